#!/bin/sh
# The first step of `npm test`: installs what the SSH and VS Code suites need besides node_modules,
# or stops at once saying why it cannot. Idempotent, and silent when everything is already there.
#   - the simulated-host lab (test/lab/install.sh: sshd, sudo, busybox, Slurm, pdsh, clush, …)
#   - kubectl for the Kubernetes lab, where none is on PATH (test/lab/kube/install-kubectl.sh)
#   - the e2e tools (test/e2e/setup.sh: chromium, Node 24, code-server), cached under .cache/e2e
# Both suites run real sshds in network and mount namespaces: that needs root, and apt to install.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "npm test: stopped: the SSH and VS Code suites run simulated GPU hosts (sshd in network and mount namespaces), which needs root." >&2
  echo "  Run it as root (sudo npm test, or in a container or VM), or run npm run test:unit for the unit tests alone." >&2
  exit 1
fi
sh test/lab/install.sh --quiet
sh test/lab/kube/install-kubectl.sh --quiet
bash test/e2e/setup.sh --quiet
