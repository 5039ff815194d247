// One probe of one host: build the script, hand it to a runner (SSH, local shell, offline folder,
// demo), read the framed stream back, parse every section. Never throws for anything the host or
// the transport does; a runner that rejects is reported as a lost connection with nothing collected.
import { DEFAULT_MAX_OUTPUT_BYTES, PROBE_COMMANDS, ProbeCommandSpec, probeDeadlineMs } from './commands';
import { ProbeFacts, parseProbe } from './facts';
import { CommandResult, FramedStream, parseFrames } from './frames';
import { buildProbeScript } from './script';
import { PREAMBLE_KEEP_BYTES, REPORT_OUTPUT_BUDGET, STDERR_KEEP_BYTES, StreamCut, keptText, withinBudget } from './streamCaps';
import type { StreamCutBy } from './streamBudget';

export interface RunnerOutput {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number | null;
  /** The transport ended without an exit status (SSH channel closed, process vanished). */
  readonly connectionLost: boolean;
  /** The client-side deadline stopped the script. */
  readonly timedOut: boolean;
  /** Bytes the runner dropped (a ProbeStdout, a HeadKeeper) beyond what it kept of the text before the probe, and of stderr. */
  readonly preambleCutBytes?: number;
  readonly stderrCutBytes?: number;
  /** The probe stream was cut short by the host's budget or the run's (streamBudget.ts): the probe was stopped there. */
  readonly streamCut?: StreamCutBy;
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
  /** Present when a stream was too long to keep whole (streamCaps.ts): what was kept and cut of each. */
  readonly outputCut?: OutputCut;
}

export interface OutputCut {
  /** What the login shell printed before the probe started. */
  readonly beforeProbe?: StreamCut;
  readonly stderr?: StreamCut;
  /** Command outputs cut because all of them together passed REPORT_OUTPUT_BUDGET (their `truncated` is set). */
  readonly commandOutputChars?: number;
  /** The probe stream itself, cut by the host's budget or the run's (the probe was stopped there). */
  readonly stream?: StreamCutBy;
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
  const budget = withinBudget(framed.results, REPORT_OUTPUT_BUDGET);
  const cut = streamCuts(out, framed);
  return {
    host: options.host,
    collectedAt: started.toISOString(),
    durationMs: Date.now() - t0,
    commands: budget.results,
    facts: parseProbe(budget.results),
    connectionLost: out.connectionLost,
    timedOut: out.timedOut,
    finished: framed.done,
    notes: [...cut.notes, ...framed.framingErrors, ...(budget.cutChars > 0 ? [budgetNote(budget.cutChars)] : [])],
    ...(cut.outputCut || budget.cutChars > 0
      ? { outputCut: { ...cut.outputCut, ...(budget.cutChars > 0 ? { commandOutputChars: budget.cutChars } : {}) } }
      : {}),
  };
}

/** The notes for stderr and the text before the probe (their kept start, then what was cut), and the cut counts. */
function streamCuts(out: RunnerOutput, framed: FramedStream): { notes: string[]; outputCut?: OutputCut } {
  const err = keptText(out.stderr, STDERR_KEEP_BYTES);
  const stderr = { keptBytes: out.stderr.length - err.cutBytes, cutBytes: err.cutBytes + (out.stderrCutBytes ?? 0) };
  const keptBefore = Math.min(framed.preambleBytes, PREAMBLE_KEEP_BYTES);
  const beforeProbe = { keptBytes: keptBefore, cutBytes: framed.preambleBytes - keptBefore + (out.preambleCutBytes ?? 0) };
  const notes = [err.text.trim()];
  if (out.streamCut) notes.push(streamCutNote(out.streamCut));
  if (stderr.cutBytes > 0) notes.push(`${stderr.cutBytes} more bytes on stderr were cut (the first ${stderr.keptBytes} are kept above)`);
  notes.push(framed.preamble.trim());
  if (beforeProbe.cutBytes > 0)
    notes.push(
      `${beforeProbe.cutBytes} more bytes printed before the probe started (the login shell's output) were cut (the first ${keptBefore} are kept above)`,
    );
  const outputCut =
    stderr.cutBytes > 0 || beforeProbe.cutBytes > 0 || out.streamCut
      ? {
          ...(beforeProbe.cutBytes > 0 ? { beforeProbe } : {}),
          ...(stderr.cutBytes > 0 ? { stderr } : {}),
          ...(out.streamCut ? { stream: out.streamCut } : {}),
        }
      : undefined;
  return { notes: notes.filter((n) => n !== ''), outputCut };
}

/** Said in the report's notes when a budget stopped the probe (English, like every note: it is evidence). */
export function streamCutNote(cut: StreamCutBy): string {
  const mib = `${Math.round(cut.limitBytes / (1024 * 1024))} MiB`;
  const whose =
    cut.by === 'host'
      ? `the host's probe output passed its budget of ${mib}`
      : `the probe outputs held at once over the whole run passed their budget of ${mib}`;
  return `${whose}: ${cut.cutBytes} more bytes were cut there (the commands not complete by then are cut or not run)`;
}

function budgetNote(cutChars: number): string {
  return `the command outputs together passed ${REPORT_OUTPUT_BUDGET} characters: ${cutChars} more were cut (the commands cut are marked truncated)`;
}

function failedRun(err: unknown): RunnerOutput {
  const message = err instanceof Error ? err.message : String(err);
  return { stdout: Buffer.alloc(0), stderr: Buffer.from(message), exitCode: null, connectionLost: true, timedOut: false };
}
