#!/bin/sh
# PID 1 of one simulated GPU host (started by lab.ts through
# `unshare --mount --uts --pid --fork --kill-child --mount-proc --propagation private`).
# Builds the host's private view of the machine, then becomes its sshd.
# Everything the host writes lands in <h>: the real /etc, /usr/bin, /sys stay untouched.
set -eu
H=$1
NAME=$(cat "$H/hostname")

# Copy-on-write /etc: users, sudoers and the tool's own edits (modules-load.d) land in
# <h>/etc-upper, where tests look for them. A bind mount would break rename() onto it.
mount -t overlay -o "lowerdir=/etc,upperdir=$H/etc-upper,workdir=$H/etc-work" overlay /etc

# Private, empty run/home dirs: root's real ~/.bashrc must not leak into sessions.
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /home
mount -t tmpfs -o mode=700 tmpfs /root
mkdir -p /run/sshd

# Kernel state the probe reads as files, filled from the profile; fake modprobe edits it.
mount -t tmpfs -o mode=755 tmpfs /sys/module
mount -t tmpfs -o mode=755 tmpfs /sys/kernel/mm
mount -t tmpfs -o mode=755 tmpfs /proc/driver
for d in sys/module sys/kernel/mm proc/driver; do
  [ -d "$H/prof/files/$d" ] && cp -r "$H/prof/files/$d/." "/$d/"
done

hostname "$NAME"
printf '127.0.1.1\t%s\n' "$NAME" >> /etc/hosts

# users.tsv: name uid sudo(nopasswd|password|none) password(- = none)
mkdir -p /etc/ssh/authorized_keys
: > /etc/sudoers.d/gdrlab
while read -r user uid sudo pw; do
  [ "$user" = root ] || useradd -m -s /bin/bash -u "$uid" "$user"
  [ "$pw" = - ] || echo "$user:$pw" | chpasswd
  case $sudo in
    nopasswd) echo "$user ALL=(ALL:ALL) NOPASSWD: ALL" >> /etc/sudoers.d/gdrlab ;;
    password) echo "$user ALL=(ALL:ALL) ALL" >> /etc/sudoers.d/gdrlab ;;
  esac
  [ -e "$H/authorized_keys/$user" ] && cp "$H/authorized_keys/$user" "/etc/ssh/authorized_keys/$user"
done < "$H/users.tsv"
chmod 440 /etc/sudoers.d/gdrlab
chmod 644 /etc/ssh/authorized_keys/* 2> /dev/null || true

# Without nodelay every wrong password costs ~2 s. pam_loginuid cannot write
# /proc/self/loginuid in a container and would end every session at once.
sed -i '/^auth.*pam_unix\.so/ s/$/ nodelay/' /etc/pam.d/common-auth
sed -i 's/^session\s\+required\s\+pam_loginuid\.so/session optional pam_loginuid.so/' /etc/pam.d/sshd

# Ubuntu puts /usr/sbin on a user's PATH through /etc/environment; Debian doesn't.
[ -e "$H/prof/environment" ] && cp "$H/prof/environment" /etc/environment

while read -r m; do
  [ -n "$m" ] && /bin/bash "$H/fakecmd.sh" "$H" --boot-load "$m"
done < "$H/prof/modules.boot"

# Last, so the setup above still runs the real tools: fakes and whiteouts (0/0 char
# devices = "not installed") over the real command dirs. PATH tricks would not survive
# `sudo modprobe` (sudo resets PATH); overlaying the directories does.
mount -t overlay -o "lowerdir=$H/bin:/usr/bin" overlay /usr/bin
mount -t overlay -o "lowerdir=$H/bin:/usr/sbin" overlay /usr/sbin

# Absolute path: sshd re-execs itself per connection and on SIGHUP.
exec /usr/sbin/sshd -D -e -f "$H/sshd_config"
