#!/bin/sh
# Installs what the test suites need on Debian 12: the simulated-host lab (sshd, sudo, iproute2), tmux for
# the terminal-prompt tests, busybox for the probe under busybox sh, and the cluster tools the fleet
# tests run for real inside lab hosts (Slurm + munge, pdsh, clush). Run as root; safe to re-run.
# Containers here have no init system: a policy-rc.d that exits 101 stops the
# openssh-server postinst from trying to start a real sshd on port 22.
set -eu
[ "$(id -u)" = 0 ] || { echo "install.sh: must run as root" >&2; exit 1; }

need=""
for p in openssh-server openssh-client sudo iproute2 util-linux tmux busybox slurm-wlm munge pdsh clustershell; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need="$need $p"
done
if [ -z "$need" ]; then echo "install.sh: lab packages already installed"; exit 0; fi

if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $need
