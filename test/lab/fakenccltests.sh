# nccl-tests' all_reduce_perf (all_gather_perf, sendrecv_perf) as one rank of a run, as a lab host runs
# it (sourced by fakecmd.sh). srun or mpirun start one process per rank; each reads its rank from the
# launcher's environment (SLURM_PROCID… or OMPI_COMM_WORLD_RANK…), as MPI would give it to nccl-tests.
#
# What it prints is what a real run prints, from real recordings where one exists:
# - rank 0: nccl-tests' own lines of the profile's recorded table (prof/nccl-tests/<set>.txt, a byte copy
#   of a fixture: its "#" lines and result rows, nothing else), the set chosen by whether GPUDirect RDMA
#   would work on this host; and, given -J, the recording's -J file (<set>.json) where the set has one;
# - every rank: its own line of "Using devices" (nccl-tests gathers them to rank 0 through MPI, which the
#   stand-in does not have) and NCCL's INFO lines for its GPU, in NCCL's formats (NET/IB's device list,
#   "GPU Direct RDMA Enabled/Disabled for HCA", the channel lines "via NET/IB/<n>[/GDRDMA]" — the formats
#   of the fixtures under test/fixtures/nccl-log), with this host's name, the GPU's bus id and the NIC
#   the profile gives it (prof/nccl/gpus.tsv), the ring's neighbours on the next and previous node.
# GPUDirect RDMA works as NCCL finds it: a registered peer-memory client, or dma-buf with the open
# kernel modules (fakeperftest.sh's checks). Without either, real NCCL does not fail: it logs
# "GPU Direct RDMA Disabled for HCA … (no module)" and stages through host memory (fixture
# nccl-log/ib-no-module-2-containers-*); the stand-in does the same, with the no-GDR recording.
# Faults: ctl/<binary>.hang makes every rank sleep that many seconds first (deadline and cancel tests).

nccl_gdr_works() {
  local f
  for f in /sys/kernel/mm/memory_peers/*/version /sys/module/nvidia_peermem/initstate /sys/module/nv_peer_mem/initstate; do
    [ -e "$f" ] && return 0
  done
  grep -qs 'Open Kernel Module' /proc/driver/nvidia/version
}

# The recorded table's nccl-tests lines: "#" lines but the ranks, and result rows.
nccl_table_lines() { grep -E '^#|^ *[0-9]+ ' "$1" | grep -Ev '^#  +Rank '; }

do_nccl_tests() {
  [ -e "$H/ctl/$CMD.hang" ] && exec sleep "$(cat "$H/ctl/$CMD.hang")"
  local json='' outcome=no-gdr set rank size lrank lsize nodes host bus busid nic name i=0 nics='' idx=0 layer via
  while [ $# -gt 0 ]; do
    case $1 in
      -J|--output_file) json=$2; shift ;;
      -b|-e|-f|-g|-i|-n|-w|-c|-t|-o|-d|-r|-z|-G|-a|-m|-N|-I|-K|-x|-R|-D|-V) shift ;;
      *) ;;
    esac
    shift
  done
  nccl_gdr_works && outcome=gdr
  set=$(awk -F'\t' -v k="$outcome" '$1 == k { print $2 }' "$P/nccl/tables.tsv")
  rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-0}}
  size=${OMPI_COMM_WORLD_SIZE:-${SLURM_NTASKS:-1}}
  lrank=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-0}}
  lsize=${OMPI_COMM_WORLD_LOCAL_SIZE:-${SLURM_STEP_TASKS_PER_NODE:-${SLURM_TASKS_PER_NODE:-1}}}
  lsize=${lsize%%[(,]*}
  nodes=$((size / lsize))
  host=$(hostname)
  read -r _ bus nic name < <(awk -F'\t' -v i="$lrank" '$1 == i { print $1 "\t" $2 "\t" $3 "\t" $4 }' "$P/nccl/gpus.tsv" | tr '\t' ' ')
  busid=$(printf '%s' "$bus" | tr -d ':.' | sed 's/^0*//')
  # NCCL lists the RDMA devices in libibverbs' order (by name here) with their link layer.
  for d in $(ls /sys/class/infiniband 2> /dev/null | sort -V); do
    layer=IB
    [ "$(cat "/sys/class/infiniband/$d/ports/1/link_layer" 2> /dev/null)" = Ethernet ] && layer=RoCE
    nics+="[$i]$d:1/$layer "
    [ "$d" = "$nic" ] && idx=$i
    i=$((i + 1))
  done
  local pre="$host:$$:$$ [$lrank] NCCL INFO" comm
  comm=$(printf '0x55d0%08x' "$((rank * 4096 + 4112))")
  local version; version=$(grep -m1 -o 'NCCL version [0-9.]*+cuda[0-9.]*' "$P/nccl-tests/$set.txt" || echo 'NCCL version 2.28.9+cuda13.0')
  if [ "$rank" = 0 ]; then nccl_table_lines "$P/nccl-tests/$set.txt" | sed '/^# Using devices/q'; fi
  printf '#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s\n' "$rank" "$$" "$host" "$lrank" "${bus%.*}" "$name"
  printf '%s %s\n' "$pre" "$version"
  printf '%s NET/IB : Using %s[RO]; OOB eth0:%s<0>\n' "$pre" "$nics" "$(getent hosts "$host" | awk '{ print $1; exit }')"
  printf '%s Using network IB\n' "$pre"
  printf '%s ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x6764722d6c616221 - Init START\n' "$pre" "$comm" "$rank" "$size" "$lrank" "$lrank" "$busid"
  if [ $outcome = gdr ]; then
    printf "%s NET/IB : GPU Direct RDMA Enabled for HCA %d '%s'\n" "$pre" "$idx" "$nic"; via="NET/IB/$idx/GDRDMA"
  else
    printf "%s NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)\n" "$pre" "$idx" "$nic"; via="NET/IB/$idx"
  fi
  printf '%s comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0\n' "$pre" "$comm" "$rank" "$size" "$nodes" "$lsize" "$lrank"
  printf '%s Channel 00/0 : %d[%d] -> %d[%d] [receive] via %s\n' "$pre" "$(((rank - lsize + size) % size))" "$lrank" "$rank" "$lrank" "$via"
  printf '%s Channel 00/0 : %d[%d] -> %d[%d] [send] via %s\n' "$pre" "$rank" "$lrank" "$(((rank + lsize) % size))" "$lrank" "$via"
  printf '%s ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x6764722d6c616221 - Init COMPLETE\n' "$pre" "$comm" "$rank" "$size" "$lrank" "$lrank" "$busid"
  if [ "$rank" = 0 ]; then
    sleep 1
    nccl_table_lines "$P/nccl-tests/$set.txt" | sed '1,/^# Using devices/d'
    [ -n "$json" ] && [ -e "$P/nccl-tests/$set.json" ] && cp "$P/nccl-tests/$set.json" "$json"
  fi
  return 0
}
