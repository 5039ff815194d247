# perftest's ib_write_bw, and numactl's binding form, as a lab host runs them (sourced by fakecmd.sh).
#
# ib_write_bw reads its options as perftest does, in order: --use_cuda_dmabuf before --use_cuda stops
# with perftest's own message (a recording). It really listens on and connects to the TCP port of
# -p (perl's IO::Socket: the lab's OpenSSH hosts have no perftest), so a server takes the port and a
# client finds it or not. Then each side prints the profile's recording for its device and mode:
# prof/perftest.tsv holds `<device or *> <TAB> <host|peermem|dmabuf> <TAB> <ok|fail> <TAB> <set>`, and
# prof/perftest/<set>.server|.client the recorded outputs (.server.rc/.client.rc their exit codes,
# default 0 for ok, 1 for fail). A CUDA mode fails the way real perftest does when the host's state
# says it would: peermem without a registered peer-memory client (nvidia_peermem or nv_peer_mem
# loaded, or a /sys/kernel/mm/memory_peers/*/version), dmabuf without the open kernel modules.
# Messages that no recording shows (the port taken, nobody listening) are perftest's own format
# strings (src/perftest_communication.c). Faults: ctl/ib_write_bw.hang sleeps before a measurement
# (before it listens or connects), not before --help, which the probe reads.

peer_memory_ready() {
  local f
  for f in /sys/kernel/mm/memory_peers/*/version /sys/module/nvidia_peermem/initstate /sys/module/nv_peer_mem/initstate; do
    [ -e "$f" ] && return 0
  done
  return 1
}

open_modules() { grep -qs 'Open Kernel Module' /proc/driver/nvidia/version; }

# A lab Slurm node's GPUs are device files /run/gdrlab-gpus/nvidia<n> (char 195, no driver behind them:
# opening one says "No such device or address"). A devices cgroup that denies them says "Operation not
# permitted" instead: then CUDA sees no GPU. Hosts outside Slurm have no such files and see theirs.
gpu_device_open() {
  local f
  [ -d /run/gdrlab-gpus ] || return 0
  for f in /run/gdrlab-gpus/nvidia*; do
    ( : < "$f" ) 2>&1 | grep -q 'not permitted' || return 0
  done
  return 1
}

# perftest when CUDA finds no device: after the TCP exchange (the recordings print "initializing CUDA"
# after "Waiting for client to connect"), cuda_memory_init() stops at cuInit; src/cuda_memory.c prints
# both lines, and 100 is CUDA_ERROR_NO_DEVICE, what cuInit returns without a usable GPU. ASSEMBLED from
# perftest's format strings: no recording of this failure was found, and what perftest prints after them
# is left out.
no_cuda_device() {
  echo 'initializing CUDA'
  echo 'cuInit(0) returned 100'
  return 1
}

# perftest_set DEVICE MODE OUTCOME: the recording set the profile gives, exact device first.
perftest_set() {
  local d m o s
  for want in "$1" '*'; do
    while IFS=$'\t' read -r d m o s; do
      [ "$d" = "$want" ] && [ "$m" = "$2" ] && [ "$o" = "$3" ] && { printf '%s' "$s"; return 0; }
    done < "$P/perftest.tsv"
  done
  return 1
}

# perftest_print SET ROLE OUTCOME: the recording and its exit code. With --use_cuda_bus_id, the listing
# line of the device the recording picked names the GPU asked for (bus:device, as src/cuda_memory.c prints
# it), the one thing perftest would print differently on this host; every other line as recorded.
perftest_print() {
  local f=$P/perftest/$1.$2 rc=0 picked a
  [ "$3" = fail ] && rc=1
  [ -e "$f.rc" ] && rc=$(cat "$f.rc")
  if [ -n "${BUSID:-}" ] && picked=$(sed -n 's/^Picking device No\. \([0-9]*\)$/\1/p' "$f") && [ -n "$picked" ]; then
    a=${BUSID#*:}; a=${a%.*}
    echo "Got PCIe address of: $BUSID"
    sed "s/^CUDA device $picked: PCIe address is [0-9A-F][0-9A-F]:[0-9A-F][0-9A-F]\$/CUDA device $picked: PCIe address is ${a^^}/" "$f"
  else
    cat "$f"
  fi
  return "$rc"
}

do_ib_write_bw() {
  case ${1:-} in -h|--help) replay "$@"; return ;; esac
  # A hung perftest is one process, as the real one is: `timeout` and signals reach it directly.
  [ -e "$H/ctl/ib_write_bw.hang" ] && exec sleep "$(cat "$H/ctl/ib_write_bw.hang")"
  local dev='' port=18515 cuda='' dmabuf=0 server='' mode outcome=ok set
  while [ $# -gt 0 ]; do
    case $1 in
      -d|--ib-dev) dev=$2; shift ;;
      -p|--port) port=$2; shift ;;
      -i|--ib-port|-s|--size|-D|--duration|-q|--qp|-x|--gid-index|-m|--mtu) shift ;;
      -F|--CPU-freq|--report_gbits|-a|--all|-R|--rdma_cm) ;;
      --use_cuda=*) cuda=${1#--use_cuda=} ;;
      # The GPU by its PCI address (perftest 4.5-0.2+): printed as perftest does, "Got PCIe address of: …",
      # and the recording's listing line of the picked device shows that GPU (see perftest_print).
      --use_cuda_bus_id=*) cuda=${1#--use_cuda_bus_id=}; BUSID=$cuda ;;
      --use_cuda_dmabuf)
        # perftest checks this flag when it reads it (src/perftest_parameters.c parser()).
        if [ -z "$cuda" ]; then perftest_print "$(perftest_set '*' dmabuf order)" client fail; return; fi
        dmabuf=1 ;;
      -*) unrecorded ;;
      *) server=$1 ;;
    esac
    shift
  done
  mode=host
  [ -n "$cuda" ] && mode=peermem
  [ "$dmabuf" = 1 ] && mode=dmabuf
  # A Slurm step with cgroup.conf ConstrainDevices=yes that did not ask for GPUs opens none of them.
  if [ "$mode" != host ] && ! gpu_device_open; then
    set=no-cuda-device outcome=fail
  else
    case $mode in
      peermem) peer_memory_ready || outcome=fail ;;
      dmabuf) open_modules || outcome=fail ;;
    esac
    set=$(perftest_set "$dev" "$mode" "$outcome") || unrecorded
  fi
  if [ -z "$server" ]; then perftest_server "$port" "$set" "$outcome"; else perftest_client "$server" "$port" "$set" "$outcome"; fi
}

# socket_perl ARGS...: perl for the socket part, ended with this shell. Real perftest is one process, and the
# proof's scripts bound it with `timeout --foreground`, which signals that one process only: a perl left
# behind would keep listening or connecting, and hold the script's $(...) open forever.
socket_perl() {
  local pid rc
  perl "$@" & pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null; exit 143' TERM HUP INT
  wait "$pid"; rc=$?
  trap - TERM HUP INT
  return "$rc"
}

perftest_server() {
  # One connection, as perftest's ethernet_server_connect: listen(1), accept, exchange, close.
  socket_perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => $ARGV[0], Listen => 1, ReuseAddr => 1, Proto => "tcp")
      or do { print STDERR "Couldn'\''t listen to port $ARGV[0]\n"; exit 1 };
    my $c = $s->accept or exit 1;
    my $hello = <$c>; print $c "gdrlab-perftest\n"; close $c; exit 0' "$1" || return 1
  if [ "$2" = no-cuda-device ]; then no_cuda_device; return; fi
  perftest_print "$2" server "$3"
}

perftest_client() {
  if ! socket_perl -MIO::Socket::INET -e '
    my $c = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1], Proto => "tcp") or exit 2;
    print $c "gdrlab-perftest\n"; my $r = <$c>; exit($r ? 0 : 3)' "$1" "$2"; then
    echo "Couldn't connect to $1:$2" >&2
    return 1
  fi
  if [ "$3" = no-cuda-device ]; then no_cuda_device; return; fi
  perftest_print "$3" client "$4"
}

# numactl --cpunodebind=N --membind=N COMMAND...: binds (nothing to bind in the lab) and execs COMMAND.
do_numactl_exec() {
  while [ $# -gt 0 ]; do
    case $1 in --cpunodebind=*|--membind=*|--physcpubind=*|--localalloc|--preferred=*) shift ;; *) break ;; esac
  done
  [ $# -gt 0 ] || unrecorded
  exec "$@"
}
