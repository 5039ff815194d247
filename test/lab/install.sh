#!/bin/sh
# Installs what the test suites need on Debian 12: the simulated-host lab (sshd, sudo, iproute2), tmux for
# the terminal-prompt tests, busybox for the probe under busybox sh, and the cluster tools the fleet
# tests run for real inside lab hosts (Slurm + munge, pdsh, clush, and Open MPI's mpirun for prove --nccl), and the
# Prometheus tools the metrics tests read gdr-doctor's output with (prometheus-node-exporter's textfile collector;
# promtool, in prometheus). Run as root; safe to re-run.
# --quiet: print nothing when every package is already installed (npm test's first step).
# Containers here have no init system: a policy-rc.d that exits 101 stops the
# openssh-server postinst from trying to start a real sshd on port 22.
set -eu
quiet=0
[ "${1:-}" = --quiet ] && quiet=1
PACKAGES="openssh-server openssh-client sudo iproute2 util-linux tmux busybox slurm-wlm munge pdsh clustershell openmpi-bin prometheus-node-exporter prometheus"
stop() { echo "test/lab/install.sh: stopped: $*" >&2; exit 1; }
command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 ||
  stop "this installer needs Debian or Ubuntu (dpkg, apt-get); elsewhere install these yourself: $PACKAGES"

need=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need="$need $p"
done
if [ -z "$need" ]; then
  [ $quiet = 1 ] || echo "install.sh: lab packages already installed"
  exit 0
fi
[ "$(id -u)" = 0 ] || stop "must run as root to install:$need"

echo "test/lab/install.sh: installing:$need"
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || stop "apt-get update failed (no network or no package source?): could not install$need"
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $need || stop "apt-get install failed for:$need"
