#!/bin/bash
# Dispatcher behind every fake command of a simulated host. Each fake in <h>/bin is a
# two-line wrapper with the host dir baked in (sudo strips the environment):
#   exec /bin/bash <h>/fakecmd.sh <h> <cmd> "$@"
#
# Recordings: <h>/prof/out/<name>.stdout|.stderr|.rc, where <name> is the command and
# each argument percent-encoded (anything outside [A-Za-z0-9.,=+:@-] becomes %XX, so
# "_" is %5F) and joined with "_":  nvidia-smi topo -m  ->  nvidia-smi_topo_-m
#                                   ibv_devinfo -v      ->  ibv%5Fdevinfo_-v
# lab.ts recordingName() implements the same rule. An unrecorded command line exits 99
# with a message on stderr, so a test notices when the tool runs something new.
#
# lsmod/modprobe/rmmod/modinfo keep state in the host's private tmpfs /sys/module, in
# the same shape as the kernel's (initstate, refcnt, holders/), with messages copied
# from kmod 30 (Debian 12). Fault controls in <h>/ctl: <cmd>.hang (sleep N first),
# <cmd>.drop (print N lines of output, then kill the session's sshd), <cmd>.flood (print
# N more bytes of "gdrlab flood" lines after the output), <cmd>.flood-stderr (the same on
# stderr). Profile delays: prof/delay/<cmd>
# holds seconds to wait before replying (a real command's latency, for the bench).
# Internal entry (hostinit, not logged): fakecmd.sh <h> --boot-load <module>...
set -u
# The caller's LC_ALL goes to the call log ("=value", or empty when unset): tests check the
# locale a tool ran the command under. The dispatcher itself always works in C.
CALLER_LC_ALL=${LC_ALL+=$LC_ALL}
export LC_ALL=C
H=$1 CMD=$2
shift 2
P=$H/prof

# Same encoding as lab.ts recordingName(); bytes, not characters (LC_ALL=C).
enc() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9.,=+:@-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=${c: -3} ;;
    esac
  done
  printf '%s' "$out"
}

recname() {
  local n a
  n=$(enc "$1"); shift
  for a in "$@"; do n+=_$(enc "$a"); done
  printf '%s' "$n"
}

# Log line: time, euid, caller's LC_ALL, command, args; tab-separated, tabs/newlines escaped.
logcall() {
  local line a
  line="$(date +%s.%3N)	$EUID	$CALLER_LC_ALL	$CMD"
  for a in "$@"; do a=${a//\\/\\\\}; a=${a//	/\\t}; line+="	${a//$'\n'/\\n}"; done
  printf '%s\n' "$line" >> "$H/calls.log"
}

# ---- kernel-module state (real kernel layout, in the host's private tmpfs) --------
# prof/modules.tsv: name <TAB> size <TAB> deps (comma list or -) <TAB> version (or -)
# modvars sets MOD_SIZE MOD_DEPS MOD_VER without a subshell: a booting host loads many modules,
# and every fork counts when dozens of hosts start at once.
modvars() { local n s d v; while IFS=$'\t' read -r n s d v; do [ "$n" = "$1" ] && { MOD_SIZE=$s MOD_DEPS=$d MOD_VER=$v; return 0; }; done < "$P/modules.tsv"; return 1; }
modline() { modvars "$1" && printf '%s\t%s\t%s\n' "$MOD_SIZE" "$MOD_DEPS" "$MOD_VER"; }
bumpref() { local n; read -r n < "/sys/module/$1/refcnt"; echo $((n + $2)) > "/sys/module/$1/refcnt"; }
loaded() { [ -e "/sys/module/$1/initstate" ]; }
norm() { printf '%s' "${1//-/_}"; }

# Load one module and, first, its dependencies, as modprobe does.
load() {
  local m=$1 asked=$2 size deps ver d f
  modvars "$m" || { echo "modprobe: FATAL: Module $asked not found in directory /lib/modules/$(uname -r)" >&2; return 1; }
  loaded "$m" && return 0
  size=$MOD_SIZE deps=$MOD_DEPS ver=$MOD_VER
  if [ "$deps" != - ]; then for d in ${deps//,/ }; do load "$d" "$d" || return 1; done; fi
  if [ "$EUID" != 0 ]; then echo "modprobe: ERROR: could not insert '$m': Operation not permitted" >&2; return 1; fi
  if [ -e "$P/modprobe-error/$m" ]; then cat "$P/modprobe-error/$m" >&2; return 1; fi
  mkdir -p "/sys/module/$m/holders"
  echo live > "/sys/module/$m/initstate"
  echo 0 > "/sys/module/$m/refcnt"
  [ "$ver" != - ] && echo "$ver" > "/sys/module/$m/version"
  if [ "$deps" != - ]; then for d in ${deps//,/ }; do
    bumpref "$d" 1
    mkdir -p "/sys/module/$d/holders/$m"
  done; fi
  # prof/on-load/<m>/<absolute path>: files the module creates (nv_mem registration).
  if [ -d "$P/on-load/$m" ]; then
    (cd "$P/on-load/$m" && find . -type f) | while read -r f; do
      mkdir -p "$(dirname "${f#.}")"; cp "$P/on-load/$m/$f" "${f#.}"
    done
  fi
  # prof/kallsyms/<m>: its /proc/kallsyms lines (OFED's ib_register_peer_memory_client).
  [ -e "$P/kallsyms/$m" ] && cat "$P/kallsyms/$m" >> /run/gdrlab-kallsyms
  echo "$m" >> /run/gdrlab-modules.order   # lsmod lists the newest first, like /proc/modules
}

unload() {
  local m=$1 info size deps ver d f
  loaded "$m" || { echo "modprobe: FATAL: Module $m is not in kernel." >&2; return 1; }
  [ "$(cat "/sys/module/$m/refcnt")" = 0 ] || { echo "modprobe: FATAL: Module $m is in use." >&2; return 1; }
  if [ "$EUID" != 0 ]; then echo "modprobe: ERROR: could not remove '$m': Operation not permitted" >&2; return 1; fi
  info=$(modline "$m"); IFS=$'\t' read -r size deps ver <<< "$info"
  if [ -d "$P/on-load/$m" ]; then
    (cd "$P/on-load/$m" && find . -type f) | while read -r f; do rm -f "${f#.}"; done
  fi
  rm -rf "/sys/module/$m"
  # In place: /proc/kallsyms is a bind mount of this very file.
  if [ -e "$P/kallsyms/$m" ]; then
    f=$(grep -vxF -f "$P/kallsyms/$m" /run/gdrlab-kallsyms)
    if [ -n "$f" ]; then printf '%s\n' "$f" > /run/gdrlab-kallsyms; else : > /run/gdrlab-kallsyms; fi
  fi
  if [ "$deps" != - ]; then for d in ${deps//,/ }; do
    bumpref "$d" -1
    rmdir "/sys/module/$d/holders/$m"
  done; fi
  sed -i "/^$m\$/d" /run/gdrlab-modules.order
}

do_modprobe() {
  local remove=0 quiet=0 mods=() a m rc=0
  for a in "$@"; do
    case $a in
      -r|--remove) remove=1 ;;
      -q|--quiet) quiet=1 ;;
      -v|--verbose|-b|--use-blacklist) ;;
      -*) unrecorded "$@" ;;
      *) mods+=("$a") ;;
    esac
  done
  [ ${#mods[@]} -ge 1 ] || unrecorded "$@"
  # Without -a/-r only the first name is a module; the rest would be its parameters.
  [ $remove = 1 ] || mods=("${mods[0]}")
  for a in "${mods[@]}"; do
    m=$(norm "$a")
    # -q hides the "not found" complaint only; the exit status stays 1.
    if [ $quiet = 1 ] && ! modline "$m" > /dev/null; then rc=1; continue; fi
    if [ $remove = 1 ]; then unload "$m" || rc=1; else load "$m" "$a" || rc=1; fi
  done
  return $rc
}

do_lsmod() {
  [ $# = 0 ] || unrecorded "$@"
  local m size deps ver holders h
  echo "Module                  Size  Used by"
  [ -e /run/gdrlab-modules.order ] || return 0
  tac /run/gdrlab-modules.order | while read -r m; do
    IFS=$'\t' read -r size deps ver <<< "$(modline "$m")"
    holders=''
    for h in "/sys/module/$m/holders"/*; do [ -e "$h" ] && holders+=${holders:+,}${h##*/}; done
    printf '%-19s %8d  %d' "$m" "$size" "$(cat "/sys/module/$m/refcnt")"
    [ -n "$holders" ] && printf ' %s' "$holders"
    printf '\n'
  done
}

# prof/modinfo/<m>: a real `modinfo <m>` output. -F picks its "field:" lines, as kmod.
# A module that exists but has no recording fails loudly rather than inventing fields.
do_modinfo() {
  local field='' m='' line
  while [ $# -gt 0 ]; do
    case $1 in
      -F|--field) field=$2; shift ;;
      -F*) field=${1#-F} ;;
      -n|--filename) field=filename ;;
      -*) unrecorded ;;
      *) m=$1 ;;
    esac
    shift
  done
  [ -n "$m" ] || unrecorded
  modline "$(norm "$m")" > /dev/null || { echo "modinfo: ERROR: Module $m not found." >&2; return 1; }
  [ -e "$P/modinfo/$(norm "$m")" ] || unrecorded
  if [ -z "$field" ]; then cat "$P/modinfo/$(norm "$m")"; return 0; fi
  while IFS= read -r line; do
    case $line in "$field:"*) line=${line#"$field:"}; printf '%s\n' "${line#"${line%%[! ]*}"}" ;; esac
  done < "$P/modinfo/$(norm "$m")"
}

# ---- PCI configuration state: lspci -vvv and setpci ECAP_ACS -----------------------
# /run/gdrlab-pci/<bdf>.lspci: the device's section of a real `lspci -vvv` recording (as root);
# <bdf>.acscap / <bdf>.acsctl: its ACS Capability and Control words (4 hex digits), made by pciState.ts.
# lspci renders ACSCtl from the control word as pciutils ls-ecaps.c cap_acs does; setpci reads and
# writes it at ECAP_ACS+0x6 (pciutils lib/header.h PCI_ACS_CTRL), bits the capability lacks stay 0.
PCI=/run/gdrlab-pci
ACS_NAMES=(SrcValid TransBlk ReqRedir CmpltRedir UpstreamFwd EgressCtrl DirectTrans)

# -s argument -> 0000:bb:dd.f (lspci/setpci accept the domain left out).
pcislot() {
  local s=${1,,}
  case $s in [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7]) SLOT=$s ;;
    [0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7]) SLOT=0000:$s ;; *) return 1 ;; esac
}

acsctl_line() {
  local w=$((16#$1)) i out=''
  for i in 0 1 2 3 4 5 6; do out+="${out:+ }${ACS_NAMES[i]}$( (( w >> i & 1 )) && echo + || echo -)"; done
  printf '\t\tACSCtl:\t%s\n' "$out"
}

do_lspci() {
  local verbose='' slot='' line caps=0
  while [ $# -gt 0 ]; do
    case $1 in -vvv) verbose=3 ;; -s) slot=${2-}; shift ;; *) unrecorded ;; esac
    shift
  done
  [ "$verbose" = 3 ] && [ -n "$slot" ] || unrecorded
  pcislot "$slot" || { echo "lspci: -s: Invalid slot number" >&2; return 1; }
  [ -e "$PCI/$SLOT.lspci" ] || return 0   # no such device: lspci prints nothing
  if [ "$EUID" = 0 ]; then
    while IFS= read -r line; do
      if [[ $line == $'\t\tACSCtl:'* ]] && [ -e "$PCI/$SLOT.acsctl" ]; then acsctl_line "$(< "$PCI/$SLOT.acsctl")"; else printf '%s\n' "$line"; fi
    done < "$PCI/$SLOT.lspci"
    return 0
  fi
  # Without root, sysfs serves only the first 64 bytes of config space, so lspci stops at the
  # capability list (pciutils ls-caps.c show_caps); the driver lines come from sysfs and still show.
  while IFS= read -r line; do
    case $line in
      $'\tCapabilities:'*) [ $caps = 0 ] && printf '\tCapabilities: <access denied>\n'; caps=1 ;;
      $'\tKernel '*) printf '%s\n' "$line" ;;
      *) [ $caps = 0 ] && printf '%s\n' "$line" ;;
    esac
  done < "$PCI/$SLOT.lspci"
}

no_acs() { echo "setpci: $SLOT: Instance #0 of Extended capability 000d not found - there are no capabilities with that id." >&2; return 1; }

do_setpci() {
  local slot='' reg='' value cap
  while [ $# -gt 0 ]; do
    case $1 in -s) slot=${2-}; shift ;; -v|-D) unrecorded ;; -*) unrecorded ;; *) [ -z "$reg" ] || unrecorded; reg=$1 ;; esac
    shift
  done
  [ -n "$slot" ] && [ -n "$reg" ] && pcislot "$slot" || unrecorded
  case ${reg^^} in ECAP_ACS+0X6.W|ECAP_ACS+6.W|ECAP_ACS+0X6.W=*|ECAP_ACS+6.W=*) ;; *) unrecorded ;; esac
  value=''; [[ $reg == *=* ]] && value=${reg#*=}
  if [ ! -e "$PCI/$SLOT.lspci" ]; then echo "setpci: Warning: No devices selected for operation group 1." >&2; return 0; fi
  # Not root: the config file does not open for writing (pciutils lib/sysfs.c), reads then see no capability.
  if [ "$EUID" != 0 ]; then echo "pcilib: Cannot open /sys/bus/pci/devices/$SLOT/config" >&2; no_acs; return; fi
  [ -e "$PCI/$SLOT.acsctl" ] || { no_acs; return; }
  if [ -z "$value" ]; then cat "$PCI/$SLOT.acsctl"; return 0; fi
  [[ $value =~ ^[0-9a-fA-F]{1,4}$ ]] || { echo "setpci: Invalid value \"$value\"." >&2; echo "Try \`setpci --help' for more information." >&2; return 1; }
  cap=$((16#$(< "$PCI/$SLOT.acscap")))
  printf '%04x\n' $((16#$value & cap & 0x7f)) > "$PCI/$SLOT.acsctl"
}

unrecorded() {
  echo "fakecmd[$(hostname)]: no recording for: $CMD ${ARGS[*]} (add prof out/$(recname "$CMD" "${ARGS[@]}").stdout|.stderr|.rc)" >&2
  exit 99
}

replay() {
  local base
  base=$P/out/$(recname "$CMD" "$@")
  [ -e "$base.stdout" ] || [ -e "$base.stderr" ] || [ -e "$base.rc" ] || unrecorded
  [ -e "$base.stdout" ] && cat "$base.stdout"
  [ -e "$base.stderr" ] && cat "$base.stderr" >&2
  return "$(cat "$base.rc" 2> /dev/null || echo 0)"
}

run() {
  # An exact recording wins, so a profile can pin e.g. a real `modinfo nvidia` output.
  case $CMD in
    lsmod|modprobe|modinfo|rmmod|lspci|setpci)
      [ -e "$P/out/$(recname "$CMD" "$@").stdout" ] && { replay "$@"; return; } ;;
  esac
  case $CMD in
    lsmod) do_lsmod "$@" ;;
    modprobe) do_modprobe "$@" ;;
    rmmod) do_modprobe -r "$@" ;;
    modinfo) do_modinfo "$@" ;;
    lspci) do_lspci "$@" ;;
    setpci) do_setpci "$@" ;;
    # perftest and numactl's binding form: fakeperftest.sh.
    ib_write_bw) . "$H/fakeperftest.sh"; do_ib_write_bw "$@" ;;
    numactl) case ${1:-} in --cpunodebind=*|--membind=*) . "$H/fakeperftest.sh"; do_numactl_exec "$@" ;; *) replay "$@" ;; esac ;;
    # nccl-tests: fakenccltests.sh (one rank of a run, as srun or mpirun starts it).
    all_reduce_perf|all_gather_perf|sendrecv_perf) . "$H/fakenccltests.sh"; do_nccl_tests "$@" ;;
    *) replay "$@" ;;
  esac
}

# Nearest sshd above us: the session's own sshd (never PID 1, the listener).
session_sshd() {
  local p=$$ stat
  while [ "$p" -gt 1 ]; do
    stat=$(cat "/proc/$p/stat" 2> /dev/null) || return 1
    stat=${stat##*) }; set -- $stat; p=$2
    [ "$p" -gt 1 ] && [ "$(cat "/proc/$p/comm")" = sshd ] && { echo "$p"; return 0; }
  done
  return 1
}

if [ "$CMD" = --boot-load ]; then for m; do load "$m" "$m" || exit; done; exit 0; fi
ARGS=("$@")
logcall "$@"
[ -e "$P/delay/$CMD" ] && sleep "$(cat "$P/delay/$CMD")"
# ib_write_bw hangs in fakeperftest.sh, after --help (the probe reads that); nccl-tests in fakenccltests.sh.
case $CMD in ib_write_bw|all_reduce_perf|all_gather_perf|sendrecv_perf) ;; *) [ -e "$H/ctl/$CMD.hang" ] && sleep "$(cat "$H/ctl/$CMD.hang")" ;; esac
if [ -e "$H/ctl/$CMD.flood" ] || [ -e "$H/ctl/$CMD.flood-stderr" ]; then
  run "$@"; rc=$?
  [ -e "$H/ctl/$CMD.flood" ] && yes 'gdrlab flood' | head -c "$(cat "$H/ctl/$CMD.flood")"
  [ -e "$H/ctl/$CMD.flood-stderr" ] && yes 'gdrlab flood on stderr' | head -c "$(cat "$H/ctl/$CMD.flood-stderr")" >&2
  exit $rc
fi
if [ -e "$H/ctl/$CMD.drop" ]; then
  run "$@" 2>&1 | head -n "$(cat "$H/ctl/$CMD.drop")"
  sid=$(session_sshd) && kill -KILL "$sid"
  sleep 5   # the session is gone; print nothing more
  exit 1
fi
run "$@"
