// One probe of one host: build the script, hand it to a runner (SSH, local shell, offline folder,
// demo), read the framed stream back, parse every section. Never throws for anything the host or
// the transport does; a runner that rejects is reported as a lost connection with nothing collected.
import { DEFAULT_MAX_OUTPUT_BYTES, PROBE_COMMANDS, ProbeCommandSpec, probeDeadlineMs } from './commands';
import { ProbeFacts, parseProbe } from './facts';
import { CommandResult, parseFrames } from './frames';
import { buildProbeScript } from './script';

export interface RunnerOutput {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number | null;
  /** The transport ended without an exit status (SSH channel closed, process vanished). */
  readonly connectionLost: boolean;
  /** The client-side deadline stopped the script. */
  readonly timedOut: boolean;
}

/** What a runner may need besides the script (offline runners build a stream instead of running it). */
export interface ProbeRequest {
  readonly boundary: string;
  readonly commands: readonly ProbeCommandSpec[];
  /** Client-side deadline for the whole script. */
  readonly deadlineMs: number;
  readonly maxOutputBytes: number;
}

/**
 * Runs the script (POSIX sh, fed on stdin to `/bin/sh -s`: PROBE_REMOTE_COMMAND) and returns its
 * output. An SSH runner: `(script, req) => exec(client, PROBE_REMOTE_COMMAND, { stdin: script,
 * timeoutMs: req.deadlineMs, maxBytes: … })`.
 */
export type ProbeRunner = (script: string, request: ProbeRequest) => Promise<RunnerOutput>;

export interface ProbeOptions {
  /** Shown in the report: the SSH destination, `localhost`, the folder, `demo`. */
  readonly host: string;
  /** Defaults to PROBE_COMMANDS; tests pass their own. */
  readonly commands?: readonly ProbeCommandSpec[];
  /** Per stream per command; default 8 MiB. */
  readonly maxOutputBytes?: number;
  /** Default: probeDeadlineMs(commands). */
  readonly deadlineMs?: number;
  /** Only for tests: a fixed boundary. */
  readonly boundary?: string;
  readonly now?: () => Date;
}

/** The `diagnose --json` shape of one host's probe. */
export interface ProbeReport {
  readonly host: string;
  /** ISO time the probe started. */
  readonly collectedAt: string;
  readonly durationMs: number;
  readonly commands: CommandResult[];
  readonly facts: ProbeFacts;
  readonly connectionLost: boolean;
  /** The client-side deadline ended the probe before every section arrived. */
  readonly timedOut: boolean;
  /** The script ran to its end (`DONE` arrived). */
  readonly finished: boolean;
  /** The runner's stderr, text before the first frame, and framing problems, when any: for a user to read. */
  readonly notes: string[];
}

export async function runProbe(runner: ProbeRunner, options: ProbeOptions): Promise<ProbeReport> {
  const commands = options.commands ?? PROBE_COMMANDS;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const { script, boundary } = buildProbeScript(commands, { boundary: options.boundary, maxOutputBytes });
  const request: ProbeRequest = { boundary, commands, deadlineMs: options.deadlineMs ?? probeDeadlineMs(commands), maxOutputBytes };
  const started = (options.now ?? (() => new Date()))();
  const t0 = Date.now();
  const out = await runner(script, request).catch((err: unknown) => failedRun(err));
  const framed = parseFrames(out.stdout, boundary, commands);
  const notes = [out.stderr.toString('utf8').trim(), framed.preamble.trim(), ...framed.framingErrors].filter((n) => n !== '');
  return {
    host: options.host,
    collectedAt: started.toISOString(),
    durationMs: Date.now() - t0,
    commands: framed.results,
    facts: parseProbe(framed.results),
    connectionLost: out.connectionLost,
    timedOut: out.timedOut,
    finished: framed.done,
    notes,
  };
}

function failedRun(err: unknown): RunnerOutput {
  const message = err instanceof Error ? err.message : String(err);
  return { stdout: Buffer.alloc(0), stderr: Buffer.from(message), exitCode: null, connectionLost: true, timedOut: false };
}
