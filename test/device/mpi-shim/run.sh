#!/bin/sh
# Starts N copies of a program linked against the MPI shim (mpi.c), as mpirun would, each with its rank
# and an NCCL_HOSTID of its own, so that NCCL takes every rank for a separate node (src/misc/utils.cc
# getHostHash reads NCCL_HOSTID first) and connects them through its network transport although they
# share one GPU (NCCL_TESTS_DEVICE=0). Usage: run.sh N program [args...]
set -u
n=$1; shift
sock=$(mktemp -u /tmp/gdr-mpi-shim.XXXXXX)
pids=
i=0
while [ "$i" -lt "$n" ]; do
  GDR_SHIM_RANK=$i GDR_SHIM_SIZE=$n GDR_SHIM_SOCKET=$sock NCCL_HOSTID=gdr-node-$i NCCL_TESTS_DEVICE=0 "$@" &
  pids="$pids $!"
  i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
rm -f "$sock"
exit "$rc"
