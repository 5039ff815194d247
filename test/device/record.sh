#!/bin/bash
# Records real outputs on the GPU machine a session is sometimes lent (one NVIDIA H200 in a VM, no RDMA
# NIC, no network beyond itself, nothing installable), for fixtures and for checking gdr-doctor on a real
# GPU host. Run from the repository root there, with what it needs carried in .device/ (see README.md):
#   bash test/device/record.sh          (writes into $OUT, at most 8 files)
# Every step is bounded by `timeout` and a failed step does not stop the others: what arrived is kept.
set -u
OUT=${OUT:-/tmp/gdr-record-out}
mkdir -p "$OUT"
W=/tmp/gdr-record
rm -rf "$W" && mkdir -p "$W/runs"
exec > >(tee "$OUT/record.log") 2>&1

step() { echo; echo "=== $(date -u +%H:%M:%S) $* ==="; }

step "machine"
uname -a; cat /etc/os-release 2>/dev/null | head -3; nproc; nvidia-smi -L; nvcc --version | tail -2

step "node and the CLI"
xz -dc .device/node.xz > "$W/node" && chmod +x "$W/node" && "$W/node" --version
NODE=$W/node

step "collect script (as a user would run it) and diagnose --local"
"$NODE" dist/cli.js diagnose --print-collect-script > "$W/collect.sh"
(cd "$W" && timeout 120 sh collect.sh collect-h200) ; echo "collect rc=$?"
tar -C "$W" -czf "$OUT/collect-h200.tgz" collect-h200
timeout 120 "$NODE" dist/cli.js diagnose --local > "$OUT/diagnose-local.txt" 2>&1; echo "diagnose --local rc=$?"
timeout 120 "$NODE" dist/cli.js diagnose --local --json > "$W/runs/diagnose-local.json" 2> "$W/runs/diagnose-local.json.err"
echo "diagnose --local --json rc=$?"

step "NCCL from the image's Python (nvidia-nccl-cu13)"
NCCL_PY=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
echo "NCCL_PY=$NCCL_PY"; ls -la "$NCCL_PY/lib" "$NCCL_PY/include" 2>&1 | head -20
python3 -m pip show nvidia-nccl-cu13 2>/dev/null | head -3
mkdir -p "$W/nccl/lib"
if [ -f "$NCCL_PY/include/nccl.h" ]; then ln -sf "$NCCL_PY/include" "$W/nccl/include"
else echo "no nccl.h beside the library: using the carried 2.30.7 headers"; ln -sf "$PWD/.device/nccl-include-2.30.7" "$W/nccl/include"; fi
ln -sf "$NCCL_PY/lib/libnccl.so.2" "$W/nccl/lib/libnccl.so.2"
ln -sf libnccl.so.2 "$W/nccl/lib/libnccl.so"

step "the MPI shim"
mkdir -p "$W/mpi/include" "$W/mpi/lib"
cp test/device/mpi-shim/mpi.h "$W/mpi/include/"
gcc -O2 -fPIC -shared -o "$W/mpi/lib/libmpi.so" test/device/mpi-shim/mpi.c -Wl,-soname,libmpi.so && echo shim built

step "build nccl-tests (sm_90 only, three tests)"
cp -r .device/nccl-tests "$W/nccl-tests"
time timeout 400 make -C "$W/nccl-tests/src" -j"$(nproc)" MPI=1 MPI_HOME="$W/mpi" NCCL_HOME="$W/nccl" \
  NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR="$W/build" \
  BIN_FILES_LIST="all_reduce all_gather sendrecv" > "$W/runs/build.log" 2>&1
echo "build rc=$?"; tail -5 "$W/runs/build.log"; ls "$W/build"

export LD_LIBRARY_PATH="$W/nccl/lib:$W/mpi/lib:$W/build/verifiable:${LD_LIBRARY_PATH:-}"
RUN=test/device/mpi-shim/run.sh
DBG="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"
record() { # name timeout ranks test args...
  local name=$1 to=$2 n=$3 t=$4; shift 4
  step "run $name: $n rank(s), $t $*"
  echo "\$ $DBG $RUN $n $t $*" > "$W/runs/$name.txt"
  env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET timeout "$to" "$RUN" "$n" "$W/build/$t" "$@" -J "$W/runs/$name.json" \
    >> "$W/runs/$name.txt" 2>&1
  echo "rc=$?" | tee -a "$W/runs/$name.rc"
  tail -4 "$W/runs/$name.txt"
}
record allreduce-1rank 60 1 all_reduce_perf -b 8 -e 256M -f 2 -g 1
record allreduce-2nodes 150 2 all_reduce_perf -b 8 -e 512M -f 2 -g 1
record allgather-2nodes 60 2 all_gather_perf -b 8 -e 64M -f 2 -g 1
record sendrecv-2nodes 60 2 sendrecv_perf -b 8 -e 64M -f 2 -g 1

step "pack"
tar -C "$W" -czf "$OUT/nccl-runs.tgz" runs
ls -la "$OUT"
