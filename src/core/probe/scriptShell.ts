// The fixed shell part of the probe script (script.ts adds the command lines, the watchdog's timer
// and the main loop). POSIX sh as dash, bash (as sh) and busybox ash run it.
//
// Its shape comes from its cost on the host: on a busy training node the probe should be nearly
// free, so beyond the commands themselves it starts as few processes, and creates as few files, as
// it can. Per command: one subshell S (a fork, no exec) that runs the command in a subshell C (the
// fork any shell needs; a simple command is `exec`ed there), and two files. S writes each file's
// frame lines around the command's output itself, with builtins: a fixed-width header first, then,
// once the command has ended, the same header with the real values written over it in place
// (`1<>`). Stream sizes come from the kernel (`pos:` in /proc/self/fdinfo of the fds S holds), times
// from /proc/uptime (centiseconds), both read with the `read` builtin. Finished sections go out with
// one `cat` per batch (whatever has finished by then); S announces a finished section on a list
// file the main loop reads on. One watchdog for all commands: a timer subshell that sleeps to each
// distinct limit and wakes the main loop, which stops the commands over that limit itself. Output
// caps are the kernel's too: `ulimit -S -f` in C stops a writer just past the cap (SIGXFSZ) without a
// `head` per stream; only the soft limit, so sudo can raise it again.
//
// In $T: <id>.o (header + stdout), <id>.e (the STDERR line + stderr + the END line), d (one line per
// finished section: `<id>`, or `<id> <bytes of .o> <bytes of .e>` when a stream is over the cap and
// must be cut), <id>.x (the watchdog stopped it), q (the FIFO that wakes the main loop), w1, w2, …
// (timer events that have fired, in the order of $EV).

/** `@BOUNDARY@`, `@CAP@`, `@VERSION@` are filled in by script.ts. */
export const PROBE_PRELUDE = `# gdr-doctor probe (read-only): collects GPUDirect RDMA facts; nothing here changes the host.
LC_ALL=C; export LC_ALL
PATH=$PATH:/usr/sbin:/sbin; export PATH
B='@BOUNDARY@'
CAP=@CAP@
T=$(mktemp -d 2>/dev/null) || { T=\${TMPDIR:-/tmp}/gdr-doctor.$$; mkdir -m 700 "$T"; } || { printf '%s FATAL cannot create a temporary directory\\n' "$B"; exit 70; }
left=; TW=
trap 'rm -rf "$T"' EXIT
trap '_gd_stop; exit 129' HUP; trap '_gd_stop; exit 130' INT; trap '_gd_stop; exit 143' TERM
: >"$T/d"; exec 7<"$T/d"
# Finished commands and timer ticks wake the main loop through a FIFO; without mkfifo it polls.
Q=; if mkfifo "$T/q" 2>/dev/null && exec 4<>"$T/q"; then Q=1; fi
UP=; read -r UP _ 2>/dev/null </proc/uptime
CLK=none; [ -n "$UP" ] && CLK=cs
FD=; [ -r /proc/$$/fdinfo/0 ] && FD=1
CH=; [ -r /proc/$$/task/$$/children ] && CH=1
TOK=no; command -v sleep >/dev/null 2>&1 && TOK=yes
# The file size limit in 512-byte blocks: room for the cap, the frame lines and one byte more.
FB=$((CAP / 512 + 2))
# u: /proc/uptime in centiseconds ("12345.67" -> 1234567), leading zeros off (no octal).
_gd_up() { u=; read -r u _ </proc/uptime; u=\${u%.*}\${u#*.}; u=\${u#"\${u%%[!0]*}"}; u=\${u:-0}; }
# z: the size of file $2, written only through fd $1 of this shell (its offset), or as wc counts it.
_gd_size() { if [ -n "$FD" ]; then read -r _ z </proc/self/fdinfo/$1; else z=$(wc -c <"$2"); z=$((z)); fi; }
# C: the children of process $1 (the kernel's list, else a scan of /proc).
_gd_kids() {
  C=
  if [ -n "$CH" ]; then
    for t in /proc/"$1"/task/*/children; do k=; read -r k 2>/dev/null <"$t"; C="$C $k"; done
  else
    for d in /proc/[0-9]*; do
      s=; read -r s 2>/dev/null <"$d/stat"; s=\${s##*) }; s=\${s#* }; [ "\${s%% *}" = "$1" ] && C="$C \${d#/proc/}"
    done
  fi
}
# K: process $1 and every process under it.
_gd_tree() { K=; set -- "$1"; while [ $# -gt 0 ]; do K="$K $1"; _gd_kids "$1"; shift; set -- "$@" $C; done; }
# _gd_signal SIG PID [all]: signals what runs under PID (and PID itself with a third word).
_gd_signal() { [ -n "$2" ] || return 0; _gd_tree "$2"; [ -n "$3" ] || K=\${K# "$2"}; kill -s "$1" $K 2>/dev/null; }
_gd_stop() {
  _gd_collect; [ "\${nready:-0}" -eq 0 ] || _gd_flush
  for x in $left; do eval "p=\\$P\${x%%:*}"; _gd_signal TERM "$p" all; done
  _gd_signal TERM "$TW" all; wait 2>/dev/null
}
_gd_wake() { [ -z "$Q" ] || echo >&4; }
# The frame lines before the stdout payload, always the same length: _gd_head ID META SIZE.
_gd_head() { printf '%s BEGIN %s\\n%s META %-96.96s\\n%s STDOUT %012d\\n' "$B" "$1" "$B" "$2" "$B" "$3"; }
_gd_mid() { printf '\\n%s STDERR %012d\\n' "$B" "$1"; }
# S, in the background: _gd_run ID LIMIT COMMAND. stderr off: bash reports a command killed by a
# signal ("Terminated") there.
_gd_run() {
  exec 5>"$T/$1.o" 6>"$T/$1.e" 2>/dev/null
  _gd_head "$1" '' 0 >&5; _gd_mid 0 >&6
  _gd_size 5 "$T/$1.o"; h=$z; _gd_size 6 "$T/$1.e"; m=$z
  s=; [ -n "$UP" ] && _gd_up && s=$u
  (_gd_c=$3; set --; ulimit -S -f "$FB" 2>/dev/null; eval "$_gd_c") </dev/null >&5 2>&6 4>&- 5>&- 6>&- 7<&-
  rc=$?
  ms=; [ -n "$UP" ] && _gd_up && ms=$(( (u - s) * 10 ))
  to=0; if [ -e "$T/$1.x" ]; then to=1; [ "$rc" = 137 ] || rc=124; fi
  _gd_size 5 "$T/$1.o"; no=$((z - h)); _gd_size 6 "$T/$1.e"; ne=$((z - m))
  cut=; ot=0; et=0
  [ "$no" -gt "$CAP" ] && { ot=1; no=$CAP; cut=1; }
  [ "$ne" -gt "$CAP" ] && { et=1; ne=$CAP; cut=1; }
  _gd_head "$1" "rc=$rc ms=$ms limit=$2 timedout=$to outtrunc=$ot errtrunc=$et" "$no" 1<>"$T/$1.o"
  _gd_mid "$ne" 1<>"$T/$1.e"
  printf '\\n%s END %s\\n' "$B" "$1" >&6
  echo "$1\${cut:+ $((h + no)) $((m + ne))}" >>"$T/d"; _gd_wake
}
# Timer events that have fired: stop (T: TERM, K: KILL) the unfinished commands of that limit
# (F, the flush tick, only wakes the loop).
_gd_timers() {
  while [ -e "$T/w$WN" ]; do
    set -- $EV; shift $((WN - 1)); ev=$1; WN=$((WN + 1))
    for x in $left; do
      [ "\${x##*:}" = "\${ev#*:}" ] || continue
      eval "p=\\$P\${x%%:*}"
      if [ "\${ev%%:*}" = T ]; then id=\${x#*:}; : >"$T/\${id%:*}.x"; _gd_signal TERM "$p"; else _gd_signal KILL "$p"; fi
    done
  done
}
# Sections finished since the last look, onto $ready ("id//" or "id/<bytes of .o>/<bytes of .e>").
_gd_collect() { while read -r id a b <&7; do ready="$ready $id/$a/$b"; nready=$((nready + 1)); done; }
# Out with them when every command still out has finished, else at most once a second (each batch
# costs a cat; the timer's 1 s tick makes sure none waits longer than that).
_gd_due() {
  [ "$nready" -gt 0 ] || return 1; [ "$nready" -eq "$nleft" ] && return 0; [ -n "$UP" ] || return 0
  _gd_up; [ "$u" -ge "$next" ]
}
# Every ready section in one cat; one over the cap alone, cut by head -c.
_gd_flush() {
  set --; fin=' '
  for r in $ready; do
    id=\${r%%/*}; r=\${r#*/}; a=\${r%/*}; fin="$fin$id "
    if [ -z "$a" ]; then set -- "$@" "$id.o" "$id.e"; continue; fi
    (cd "$T" && head -c "$a" "$id.o" && exec head -c "\${r#*/}" "$id.e"); printf '\\n%s END %s\\n' "$B" "$id"
  done
  [ $# -eq 0 ] || (cd "$T" && exec cat "$@")
  rest=; for x in $left; do id=\${x#*:}; case $fin in *" \${id%:*} "*) ;; *) rest="$rest $x" ;; esac; done
  left=$rest; nleft=$((nleft - nready)); ready=; nready=0
  [ -z "$UP" ] || { _gd_up; next=$((u + 100)); }
}
_gd_loop() {
  WN=1; ready=; nready=0; nleft=0; for x in $left; do nleft=$((nleft + 1)); done
  next=0; [ -z "$UP" ] || { _gd_up; next=$((u + 100)); }
  while [ -n "$left" ]; do
    if [ -n "$Q" ]; then read -r _ <&4; else sleep 0.1 2>/dev/null || sleep 1; fi
    _gd_collect; if _gd_due; then _gd_flush; fi; _gd_timers
  done
  _gd_signal TERM "$TW" all; wait
}
# The newline first: the header starts a line even after login-shell output that ended without one.
printf '\\n%s PROBE @VERSION@ clock=%s timeout=%s\\n' "$B" "$CLK" "$TOK"`;
