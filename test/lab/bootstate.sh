#!/bin/sh
# The kernel state a profile boots with (/sys/module, nv_mem registration, /proc/driver, the
# lsmod order in /run), made once per profile and lab by fakecmd.sh's own module loading and
# copied into each host's <h>/prof/boot: loading modules one host at a time cost seconds per
# host when dozens start at once. Run in a private mount namespace:
#   unshare --mount --propagation private /bin/sh bootstate.sh <hostdir> <out>
set -eu
H=$1 OUT=$2
for d in sys/module sys/kernel/mm proc/driver run; do mount -t tmpfs -o mode=755 tmpfs "/$d"; done
# /run too: a VM image's /var/run/nvidia-topologyd/virtualTopology.xml (NCCL loads it by itself).
for d in sys/module sys/kernel/mm proc/driver run; do
  [ -d "$H/prof/files/$d" ] && cp -r "$H/prof/files/$d/." "/$d/"
done
set --
while read -r m; do [ -n "$m" ] && set -- "$@" "$m"; done < "$H/prof/modules.boot"
[ $# = 0 ] || /bin/bash "$H/fakecmd.sh" "$H" --boot-load "$@"
for d in sys/module sys/kernel/mm proc/driver run; do
  mkdir -p "$OUT/$d"
  cp -a "/$d/." "$OUT/$d/"
done
