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
# A private /boot (the machine's bootloader files never show, and nothing a fix runs reaches them),
# with the profile's own files (BLS entries) where it gives some.
if [ -d /boot ]; then mount -t tmpfs -o mode=755 tmpfs /boot; fi
if [ -d "$H/prof/bootfs" ]; then cp -r "$H/prof/bootfs/." /boot/; fi
# The profile's device files (a GPU's /dev/nvidia0 for a process to hold): an overlay on the real /dev,
# for this host only, its own mounts (pts, shm, mqueue) carried over; the real /dev is never written.
if [ -d "$H/prof/devfiles" ]; then
  mkdir -p "$H/dev-upper" "$H/dev-work" "$H/dev-merged"
  mount -t overlay -o "lowerdir=/dev,upperdir=$H/dev-upper,workdir=$H/dev-work" overlay "$H/dev-merged"
  for s in pts shm mqueue; do if [ -d "/dev/$s" ]; then mount --rbind "/dev/$s" "$H/dev-merged/$s"; fi; done
  mount --move "$H/dev-merged" /dev
  cp -r "$H/prof/devfiles/." /dev/
fi
mkdir -p /run/sshd
cp -a "$H/home/." /home/

# The PCI tree (what NCCL and the probe read: /sys/class/infiniband, /sys/bus/pci/devices,
# /sys/devices/pci*) is the profile's, never the test machine's. sysfs refuses mkdir, so tmpfs
# covers those places and every other real entry is bound back from a bind of the real /sys,
# all by one mount process reading a generated fstab (dozens of hosts start at once).
mkdir /run/realsys
mount --bind /sys /run/realsys
: > /run/gdrlab-sysfs.fstab
bindback() { # <dir under /sys> <entry names not to bind back>...
  local dir=$1 e n
  shift
  for e in "/run/realsys/$dir"/*; do
    n=${e##*/}
    case " $* " in *" $n "*) continue ;; esac
    case $dir/$n in devices/pci*) continue ;; esac
    set_mount "$e" "/sys/$dir/$n"
  done
}
set_mount() { printf '%s %s none bind 0 0\n' "$1" "$2" >> /run/gdrlab-sysfs.fstab; MOUNTPOINTS="$MOUNTPOINTS $2"; }
MOUNTPOINTS=
mount -t tmpfs -o mode=755 sim /sys/devices
bindback devices
mount -t tmpfs -o mode=755 sim /sys/class
bindback class infiniband dmi
if [ -d /sys/bus/pci/devices ]; then
  mount -t tmpfs -o mode=755 sim /sys/bus/pci/devices
else
  mount -t tmpfs -o mode=755 sim /sys/bus
  bindback bus
  MOUNTPOINTS="$MOUNTPOINTS /sys/bus/pci/devices"
fi
# shellcheck disable=SC2086 # names from /sys: no blanks
mkdir -p $MOUNTPOINTS
mount -a -T /run/gdrlab-sysfs.fstab

# The IOMMU groups and a Xen guest's /sys/hypervisor are the profile's too (none unless it gives them).
if [ -d /sys/kernel/iommu_groups ]; then mount -t tmpfs -o mode=755 sim /sys/kernel/iommu_groups; fi
if [ -d /sys/hypervisor ]; then mount -t tmpfs -o mode=755 sim /sys/hypervisor; fi

# Kernel state the probe reads as files; fake modprobe edits it. Its boot state (profile
# files plus the modules loaded at boot, lsmod order in /run, /proc/kallsyms lines, the PCI
# tree above) was made once per profile by bootstate.sh and lab.ts: one cp here.
mount -t tmpfs -o mode=755 tmpfs /sys/module
mount -t tmpfs -o mode=755 tmpfs /sys/kernel/mm
mount -t tmpfs -o mode=755 tmpfs /proc/driver
cp -r "$H/prof/boot/." /
# /proc/kallsyms: the symbols of the profile's loaded modules (the probe greps it for OFED's
# ib_register_peer_memory_client), kept by fakecmd.sh as modules load and unload.
: >> /run/gdrlab-kallsyms
mount --bind /run/gdrlab-kallsyms /proc/kallsyms
# The profile's kernel command line (IOMMU switches), where it gives one.
if [ -e /run/gdrlab-cmdline ]; then mount --bind /run/gdrlab-cmdline /proc/cmdline; fi

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
  cp "$H/slurm/gres.conf" /etc/slurm/gres.conf
  mkdir -p /run/gdrlab-gpus
  for i in 0 1 2 3 4 5 6 7; do mknod "/run/gdrlab-gpus/nvidia$i" c 195 "$i"; done
  # slurmd insists on cgroups at /sys/fs/cgroup, which `ip netns exec` hid (fresh /sys): a
  # tmpfs there with the named v1 hierarchy "systemd" under it reads as cgroup v1, whose
  # plugin creates nothing unless a cgroup task/proctrack plugin asks (ours are task/none,
  # proctrack/pgid). Mounting a hierarchy writes nothing to it.
  mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
  mkdir /sys/fs/cgroup/systemd
  mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
  # constrainDevices (cgroup.conf): the devices controller too. lab.ts started this host as the root of a
  # cgroup namespace inside a devices cgroup of its own, so this mount shows that cgroup as the root, and
  # Slurm's uid_/job_/step_ cgroups land under it, apart from the other nodes' on this one machine.
  if [ -e "$H/slurm/cgroup.conf" ]; then
    cp "$H/slurm/cgroup.conf" /etc/slurm/cgroup.conf
    mkdir /sys/fs/cgroup/devices
    mount -t cgroup -o devices cgroup /sys/fs/cgroup/devices
  fi
  chown munge: /run/munge
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --key-file="$H/slurm/munge.key" \
    --log-file="$H/slurm/munged.log" --seed-file=/run/munge/munged.seed --pid-file=/run/munge/munged.pid
  if grep -qx ctld "$H/slurm/roles"; then /usr/sbin/slurmctld; fi
  if grep -qx d "$H/slurm/roles"; then /usr/sbin/slurmd -N "$NAME"; fi
fi

# Absolute path: sshd re-execs itself per connection and on SIGHUP.
exec /usr/sbin/sshd -D -e -f "$H/sshd_config"
