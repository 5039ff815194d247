// Runs the probe script on this machine (`--local`): `/bin/sh -s` with the script on stdin, in its
// own process group so the deadline, or the caller's abort signal (a user cancelling), can stop the
// script and every command it started (localScript.ts).
import { runLocalScript } from './localScript';
import { ProbeRequest, ProbeRunner, RunnerOutput } from '../probe/runProbe';
import { HeadKeeper, HOST_STREAM_BUDGET, ProbeStdout, STDERR_KEEP_BYTES } from '../probe/streamCaps';

export interface LocalRunnerOptions {
  /** Environment for the script (tests put fake commands first on PATH). Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Cap for the framed output; default: every command's two streams at the cap, plus framing, within HOST_STREAM_BUDGET. */
  readonly maxStreamBytes?: number;
  readonly shell?: string;
  /** Aborting stops the script's whole process group (TERM, then KILL), as exec() does over SSH. */
  readonly signal?: AbortSignal;
}

export function localRunner(options: LocalRunnerOptions = {}): ProbeRunner {
  return (script, request) => runLocally(script, request, options);
}

async function runLocally(script: string, request: ProbeRequest, options: LocalRunnerOptions): Promise<RunnerOutput> {
  const cap = options.maxStreamBytes ?? Math.min(HOST_STREAM_BUDGET, request.commands.length * 2 * (request.maxOutputBytes + 4096) + 65536);
  const out = new ProbeStdout(request.boundary, cap);
  const err = new HeadKeeper(STDERR_KEEP_BYTES);
  const run = await runLocalScript(script, {
    env: options.env,
    shell: options.shell,
    timeoutMs: request.deadlineMs,
    signal: options.signal,
    stdout: out,
    stderr: err,
  });
  const { stdout, preambleCutBytes, streamCut } = out.result();
  const stderr = Buffer.concat([err.contents(), Buffer.from(run.note ?? '')]);
  return {
    stdout,
    stderr,
    exitCode: run.exitCode,
    connectionLost: run.connectionLost,
    timedOut: run.timedOut,
    preambleCutBytes,
    stderrCutBytes: err.cutBytes,
    streamCut,
  };
}
