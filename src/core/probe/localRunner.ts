// Runs the probe script on this machine (`--local`): `/bin/sh -s` with the script on stdin, in its
// own process group so the deadline, or the caller's abort signal (a user cancelling), can stop the
// script and every command it started.
import { spawn } from 'child_process';
import { ProbeRequest, ProbeRunner, RunnerOutput } from './runProbe';
import { ByteSink, HeadKeeper, ProbeStdout, STDERR_KEEP_BYTES } from './streamCaps';

export interface LocalRunnerOptions {
  /** Environment for the script (tests put fake commands first on PATH). Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Cap for the framed output; default: every command's two streams at the cap, plus framing. */
  readonly maxStreamBytes?: number;
  readonly shell?: string;
  /** Aborting stops the script's whole process group (TERM, then KILL), as exec() does over SSH. */
  readonly signal?: AbortSignal;
}

/** After SIGTERM (the script's trap removes its temp folder), SIGKILL follows this much later. */
const KILL_GRACE_MS = 2000;

export function localRunner(options: LocalRunnerOptions = {}): ProbeRunner {
  return (script, request) => runLocally(script, request, options);
}

function runLocally(script: string, request: ProbeRequest, options: LocalRunnerOptions): Promise<RunnerOutput> {
  const cap = options.maxStreamBytes ?? request.commands.length * 2 * (request.maxOutputBytes + 4096) + 65536;
  if (options.signal?.aborted) {
    return Promise.resolve({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: null, connectionLost: false, timedOut: false });
  }
  return new Promise((resolve) => {
    const child = spawn(options.shell ?? '/bin/sh', ['-s'], { env: options.env ?? process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = new ProbeStdout(request.boundary, cap);
    const err = new HeadKeeper(STDERR_KEEP_BYTES);
    const notes: Buffer[] = [];
    let timedOut = false;
    let settled = false;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
    };
    let full = false;
    const take = (sink: ByteSink) => (chunk: Buffer) => {
      if (full || sink.write(chunk)) return;
      full = true;
      stop();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, request.deadlineMs);
    const { signal } = options;
    signal?.addEventListener('abort', stop, { once: true });
    const finish = (exitCode: number | null, lost: boolean, note?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      if (note) notes.push(Buffer.from(note));
      const { stdout, preambleCutBytes } = out.result();
      resolve({ stdout, stderr: Buffer.concat([err.contents(), ...notes]), exitCode, connectionLost: lost, timedOut, preambleCutBytes, stderrCutBytes: err.cutBytes });
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    child.on('error', (e) => finish(null, true, `cannot start ${options.shell ?? '/bin/sh'}: ${e.message}`));
    child.on('close', (code) => finish(code, false));
    child.stdin.on('error', () => undefined); // the shell may exit before reading all of the script
    child.stdin.end(script);
  });
}
