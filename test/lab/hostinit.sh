#!/bin/sh
# PID 1 of one simulated GPU host (started by lab.ts through
# `[ip netns exec NS] unshare --mount --uts --pid --fork --kill-child --mount-proc --propagation private`).
# Builds the host's private view of the machine, then becomes its sshd.
# Everything the host writes lands in <h>: the real /etc, /usr/bin, /sys stay untouched.
# Few processes on purpose: dozens of hosts start at once, and every fork counts. What can be
# prepared from outside is (etc.ts: users, sudoers, pam, /etc/hosts, keys, homes).
set -eu
H=$1
read -r NAME < "$H/hostname"

# Copy-on-write /etc: lab.ts put the host's users, sudoers, keys, /etc/hosts in <h>/etc-upper;
# the tool's own edits (modules-load.d) land there too, where tests look for them. A bind
# mount would break rename() onto it.
mount -t overlay -o "lowerdir=/etc,upperdir=$H/etc-upper,workdir=$H/etc-work" overlay /etc

# Private run/home dirs: root's real ~/.bashrc must not leak into sessions. Homes (skel,
# a login node's ~/.ssh) were built in <h>/home with their owners.
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /home
mount -t tmpfs -o mode=700 tmpfs /root
mkdir -p /run/sshd
cp -a "$H/home/." /home/

# Kernel state the probe reads as files; fake modprobe edits it. Its boot state (profile
# files plus the modules loaded at boot, lsmod order in /run) was made once per profile by
# bootstate.sh: one cp here.
mount -t tmpfs -o mode=755 tmpfs /sys/module
mount -t tmpfs -o mode=755 tmpfs /sys/kernel/mm
mount -t tmpfs -o mode=755 tmpfs /proc/driver
cp -r "$H/prof/boot/." /

hostname "$NAME"
# Own-address host: `ip netns exec` put us in its namespace; eth0 is the veth into the bridge.
if [ -e "$H/address" ]; then
  read -r addr < "$H/address"
  ip addr add "$addr" dev eth0
  ip link set eth0 up
  ip link set lo up
fi

# Last, so the setup above still runs the real tools: fakes and whiteouts (0/0 char
# devices = "not installed") over the real command dirs. PATH tricks would not survive
# `sudo modprobe` (sudo resets PATH); overlaying the directories does.
mount -t overlay -o "lowerdir=$H/bin:/usr/bin" overlay /usr/bin
mount -t overlay -o "lowerdir=$H/bin:/usr/sbin" overlay /usr/sbin

# Slurm (lab option slurm): munged as user munge with its socket in this host's private /run,
# then slurmctld and/or slurmd. Each daemonizes inside this PID namespace and dies with it.
if [ -e "$H/slurm/roles" ]; then
  mkdir -p /etc/slurm /run/munge /run/slurm/ctld /run/slurm/d
  cp "$H/slurm/slurm.conf" /etc/slurm/slurm.conf
  # slurmd insists on cgroups at /sys/fs/cgroup, which `ip netns exec` hid (fresh /sys): a
  # tmpfs there with the named v1 hierarchy "systemd" under it reads as cgroup v1, whose
  # plugin creates nothing unless a cgroup task/proctrack plugin asks (ours are task/none,
  # proctrack/linuxproc). Mounting a hierarchy writes nothing to it.
  mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
  mkdir /sys/fs/cgroup/systemd
  mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
  chown munge: /run/munge
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --key-file="$H/slurm/munge.key" \
    --log-file="$H/slurm/munged.log" --seed-file=/run/munge/munged.seed --pid-file=/run/munge/munged.pid
  if grep -qx ctld "$H/slurm/roles"; then /usr/sbin/slurmctld; fi
  if grep -qx d "$H/slurm/roles"; then /usr/sbin/slurmd -N "$NAME"; fi
fi

# Absolute path: sshd re-execs itself per connection and on SIGHUP.
exec /usr/sbin/sshd -D -e -f "$H/sshd_config"
