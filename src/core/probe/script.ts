// Builds the one POSIX sh script a probe runs on a host (dash, bash, busybox ash).
//
// Every command starts at once, in the background, each in its own subshell writing stdout, stderr,
// exit code and start/end times to a private `mktemp -d` folder (removed by an EXIT trap). A command
// runs under `timeout -k 2 <s>` when the host has a working `timeout` (busybox's older `-t` syntax is
// not detected and then runs without one: the client-side deadline still ends the probe). Each stream
// is read through `head -c <cap+1>`, so a command that prints more is stopped by SIGPIPE and flagged.
//
// GNU timeout puts itself and the command in a process group of their own, which a signal to the
// script's group (the client deadline: sshd's killpg, or the local runner's) does not reach. So each
// timeout's PID is written down, and the script's HUP/INT/TERM trap signals the groups of the
// commands still running: a hung command is gone when the probe is stopped, not at its limit.
//
// Sections are printed as commands finish (a poll loop), so when the client gives up on a hung command
// everything that finished has already arrived. The stream (see frames.ts for the reader):
//   <B> PROBE 1 clock=<ns|s> timeout=<yes|no>
//   <B> BEGIN <id>
//   <B> META rc=<n|> ms=<n> limit=<s> timedout=<0|1> outtrunc=<0|1> errtrunc=<0|1>
//   <B> STDOUT <nbytes>          then exactly nbytes of raw output, then "\n"
//   <B> STDERR <nbytes>          likewise
//   <B> END <id>
//   ...
//   <B> DONE
// <B> is a random boundary per run. Because payloads are length-prefixed, no output (a boundary-like
// line, binary, invalid UTF-8) can break the framing; the boundary only finds the first header.
import { randomBytes } from 'crypto';
import { DEFAULT_MAX_OUTPUT_BYTES, ProbeCommandSpec } from './commands';

export const PROBE_PROTOCOL_VERSION = 1;

/** How an SSH runner should start the script: read from stdin, whatever the login shell is. */
export const PROBE_REMOTE_COMMAND = '/bin/sh -s';

export interface ProbeScriptOptions {
  readonly boundary?: string;
  readonly maxOutputBytes?: number;
}

export interface ProbeScript {
  readonly script: string;
  readonly boundary: string;
}

const ID = /^[a-z0-9][a-z0-9-]*$/;
const BOUNDARY = /^[A-Za-z0-9-]{8,}$/;
// A command with no shell syntax is `exec`ed, so `timeout` stops the command itself and not only
// its `sh -c` (dash does not exec the last command, and busybox timeout signals only its child).
const SIMPLE_COMMAND = /^[A-Za-z0-9_./=,: -]+$/;

export function newBoundary(): string {
  return `gdr-doctor-${randomBytes(16).toString('hex')}`;
}

export function buildProbeScript(commands: readonly ProbeCommandSpec[], options: ProbeScriptOptions = {}): ProbeScript {
  const boundary = options.boundary ?? newBoundary();
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!BOUNDARY.test(boundary)) throw new Error(`probe boundary must be 8+ letters, digits or dashes: ${JSON.stringify(boundary)}`);
  if (!Number.isInteger(cap) || cap < 1) throw new Error(`probe output cap must be a positive integer, got ${cap}`);
  for (const c of commands) checkSpec(c);
  const lines = [
    PRELUDE.replace('@BOUNDARY@', boundary).replace('@CAP@', String(cap)),
    ...commands.map((c) => `_gd_run ${c.id} ${c.timeoutS} ${shQuote(execIfSimple(c.command))} &`),
    `_gd_emit_all ${commands.map((c) => `${c.id}:${c.timeoutS}`).join(' ')}`,
    'wait',
    `printf '%s DONE\\n' "$B"`,
    '',
  ];
  return { script: lines.join('\n'), boundary };
}

function checkSpec(c: ProbeCommandSpec): void {
  // Ids and limits are interpolated unquoted; the table is constant, this guards a future edit.
  if (!ID.test(c.id)) throw new Error(`probe command id must be lower-case letters, digits and dashes: ${JSON.stringify(c.id)}`);
  if (!Number.isInteger(c.timeoutS) || c.timeoutS < 1) throw new Error(`probe command ${c.id}: timeoutS must be a positive integer`);
}

function execIfSimple(command: string): string {
  return SIMPLE_COMMAND.test(command) ? `exec ${command}` : command;
}

export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PRELUDE = `# gdr-doctor probe (read-only): collects GPUDirect RDMA facts; nothing here changes the host.
LC_ALL=C; export LC_ALL
PATH=$PATH:/usr/sbin:/sbin; export PATH
B='@BOUNDARY@'
CAP=@CAP@
T=$(mktemp -d 2>/dev/null) || { T=\${TMPDIR:-/tmp}/gdr-doctor.$$; mkdir -m 700 "$T"; } || { printf '%s FATAL cannot create a temporary directory\\n' "$B"; exit 70; }
trap 'rm -rf "$T"' EXIT
trap '_gd_stop; exit 129' HUP; trap '_gd_stop; exit 130' INT; trap '_gd_stop; exit 143' TERM
# Finished commands announce themselves on a FIFO, so sections go out the moment they are ready
# without polling; hosts without mkfifo fall back to polling.
Q=; if mkfifo "$T/q" 2>/dev/null && exec 4<>"$T/q"; then Q=1; fi
TO=
if command -v timeout >/dev/null 2>&1; then
  if timeout -k 2 10 true >/dev/null 2>&1; then TO='timeout -k 2'; elif timeout 10 true >/dev/null 2>&1; then TO=timeout; fi
fi
case $(date +%s%N 2>/dev/null) in ''|*[!0-9]*) CLK=s ;; *) CLK=ns ;; esac
_gd_now() { if [ "$CLK" = ns ]; then date +%s%N; else date +%s; fi; }
_gd_exec() { if [ -n "$TO" ]; then $TO "$1" sh -c "$2" & echo $! > "$T/$3/pid"; wait $!; else sh -c "$2"; fi; }
_gd_stop() {
  for p in "$T"/*/pid; do
    [ -f "$p" ] && [ ! -e "\${p%/pid}/done" ] || continue
    p=$(cat "$p"); kill -TERM -"$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
  done
}
_gd_run() {
  d="$T/$1"; mkdir "$d" || return 1
  _gd_now > "$d/start"
  { { _gd_exec "$2" "$3" "$1" </dev/null 2>&1 1>&3 3>&-; echo $? > "$d/rc"; } | head -c $((CAP + 1)) > "$d/err"; } 3>&1 | head -c $((CAP + 1)) > "$d/out"
  _gd_now > "$d/end"
  : > "$d/done"
  if [ -n "$Q" ]; then echo "$1:$2" >&4; fi
}
# _gd_part NAME FILE SIZE: one length-prefixed section, at most CAP bytes of it.
_gd_part() {
  n=$3; if [ "$n" -gt "$CAP" ]; then n=$CAP; fi
  printf '%s %s %s\\n' "$B" "$1" "$n"; head -c "$n" "$2"; printf '\\n'
}
_gd_emit() {
  # \`read\` is a builtin: no process per value (the probe's cost is mostly forks).
  d="$T/$1"; rc=; s=0; e=0
  read -r rc < "$d/rc" 2>/dev/null; read -r s < "$d/start"; read -r e < "$d/end"
  if [ "$CLK" = ns ]; then ms=$(( (e - s) / 1000000 )); else ms=$(( (e - s) * 1000 )); fi
  to=0
  if [ -n "$TO" ] && [ "$ms" -ge $(( ($2 - 1) * 1000 )) ]; then case $rc in 124|137|143) to=1 ;; esac; fi
  no=$(wc -c < "$d/out"); no=$((no)); ne=$(wc -c < "$d/err"); ne=$((ne))
  ot=0; [ "$no" -gt "$CAP" ] && ot=1
  et=0; [ "$ne" -gt "$CAP" ] && et=1
  printf '%s BEGIN %s\\n' "$B" "$1"
  printf '%s META rc=%s ms=%s limit=%s timedout=%s outtrunc=%s errtrunc=%s\\n' "$B" "$rc" "$ms" "$2" "$to" "$ot" "$et"
  _gd_part STDOUT "$d/out" "$no"; _gd_part STDERR "$d/err" "$ne"
  printf '%s END %s\\n' "$B" "$1"
}
_gd_emit_all() {
  if [ -n "$Q" ]; then
    for _ in "$@"; do read -r x <&4 && _gd_emit "\${x%%:*}" "\${x#*:}"; done
    return
  fi
  left="$*"
  while [ -n "$left" ]; do
    rest=
    for x in $left; do
      if [ -e "$T/\${x%%:*}/done" ]; then _gd_emit "\${x%%:*}" "\${x#*:}"; else rest="$rest $x"; fi
    done
    left=$rest
    if [ -n "$left" ]; then sleep 0.1 2>/dev/null || sleep 1; fi
  done
}
TOK=no; [ -n "$TO" ] && TOK=yes
printf '%s PROBE ${PROBE_PROTOCOL_VERSION} clock=%s timeout=%s\\n' "$B" "$CLK" "$TOK"`;
