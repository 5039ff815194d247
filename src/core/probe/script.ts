// Builds the one POSIX sh script a probe runs on a host (dash, bash as sh, busybox ash).
//
// Every command starts at once, in the background, writing its stdout and stderr to files in a
// private `mktemp -d` folder (removed by an EXIT trap); each section is printed as soon as its
// command has finished, so when the client gives up on a hung command everything that finished has
// already arrived. scriptShell.ts holds the shell code and says why it is shaped as it is (the
// probe's own cost on the host: a fork per command beyond the command itself, one `cat` per batch
// of finished sections, one watchdog for every time limit).
//
// Time limits: one timer subshell sleeps to each distinct limit L; then the main loop sends TERM to
// every command of limit L still running (and everything it started, found through /proc), and KILL
// 2 s later if it is still there, as `timeout -k 2 L` would; such a command reports exit code 124
// (137 when KILL was needed) and `timedout=1`. Commands stay in the script's process group, so a
// signal to the group (the client deadline: sshd's killpg, or the local runner's) reaches them too;
// the script's HUP/INT/TERM trap stops them when only the script itself is signalled.
//
// Output: more than `cap` bytes on a stream is cut to `cap` and flagged (the kernel's file size
// limit stops the writer just past it).
//
// The stream (see frames.ts for the reader):
//   <B> PROBE 1 clock=<cs|none> timeout=<yes|no>
//   <B> BEGIN <id>
//   <B> META rc=<n|> ms=<n|> limit=<s> timedout=<0|1> outtrunc=<0|1> errtrunc=<0|1>
//   <B> STDOUT <nbytes>          then exactly nbytes of raw output, then "\n"
//   <B> STDERR <nbytes>          likewise
//   <B> END <id>
//   ...
//   <B> DONE
// <B> is a random boundary per run. Because payloads are length-prefixed, no output (a boundary-like
// line, binary, invalid UTF-8) can break the framing; the boundary only finds the first header.
import { randomBytes } from 'crypto';
import { DEFAULT_MAX_OUTPUT_BYTES, ProbeCommandSpec } from './commands';
import { PROBE_PRELUDE } from './scriptShell';
import { shQuote } from '../shellText';

export const PROBE_PROTOCOL_VERSION = 1;

/** How an SSH runner should start the script: read from stdin, whatever the login shell is. */
export const PROBE_REMOTE_COMMAND = '/bin/sh -s';

/** After TERM at its limit, a command still running gets KILL this much later (as `timeout -k 2`). */
export const KILL_AFTER_S = 2;

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
// A command with no shell syntax is `exec`ed, so the process the watchdog stops is the command itself.
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
  const events = timerEvents(commands);
  const lines = [
    PROBE_PRELUDE.replace('@BOUNDARY@', boundary).replace('@CAP@', String(cap)).replace('@VERSION@', String(PROBE_PROTOCOL_VERSION)),
    `EV='${events.map((e) => `${e.kind}:${e.limitS}`).join(' ')}'`,
    `left='${commands.map((c, i) => `${i}:${c.id}:${c.timeoutS}`).join(' ')}'`,
    ...commands.map((c, i) => `_gd_run ${c.id} ${c.timeoutS} ${shQuote(execIfSimple(c.command))} & P${i}=$!`),
    timerLine(events),
    '_gd_loop',
    `printf '%s DONE\\n' "$B"`,
    '',
  ];
  return { script: lines.join('\n'), boundary };
}

/** Sections finished are held back at most this long, to go out in fewer batches (see scriptShell.ts). */
const FLUSH_TICK_S = 1;

interface TimerEvent {
  /** Seconds after the start. */
  readonly atS: number;
  /** T: TERM the commands of this limit; K: KILL those still running; F: only wake the loop. */
  readonly kind: 'T' | 'K' | 'F';
  readonly limitS: number;
}

/** The flush tick, TERM at each distinct limit and KILL KILL_AFTER_S later, in time order. */
function timerEvents(commands: readonly ProbeCommandSpec[]): TimerEvent[] {
  const limits = [...new Set(commands.map((c) => c.timeoutS))];
  const events = limits.flatMap((l): TimerEvent[] => [
    { atS: l, kind: 'T', limitS: l },
    { atS: l + KILL_AFTER_S, kind: 'K', limitS: l },
  ]);
  if (limits.some((l) => l > FLUSH_TICK_S)) events.push({ atS: FLUSH_TICK_S, kind: 'F', limitS: 0 });
  const order = { F: 0, K: 1, T: 2 };
  return events.sort((a, b) => a.atS - b.atS || order[a.kind] - order[b.kind]);
}

/** The watchdog: one subshell, one `sleep` at a time, a file per event, and a wake-up for the loop. */
function timerLine(events: readonly TimerEvent[]): string {
  if (events.length === 0) return 'TW=';
  let at = 0;
  const steps = events.map((e, i) => {
    const step = `sleep ${e.atS - at} && : >"$T/w${i + 1}" && _gd_wake`;
    at = e.atS;
    return step;
  });
  // stdio off: a sleep left over must not hold the session's output open.
  return `(exec </dev/null >/dev/null 2>&1 7<&-; ${steps.join(' && ')}) & TW=$!`;
}

function checkSpec(c: ProbeCommandSpec): void {
  // Ids and limits are interpolated unquoted; the table is constant, this guards a future edit.
  if (!ID.test(c.id)) throw new Error(`probe command id must be lower-case letters, digits and dashes: ${JSON.stringify(c.id)}`);
  if (!Number.isInteger(c.timeoutS) || c.timeoutS < 1) throw new Error(`probe command ${c.id}: timeoutS must be a positive integer`);
}

function execIfSimple(command: string): string {
  return SIMPLE_COMMAND.test(command) ? `exec ${command}` : command;
}
