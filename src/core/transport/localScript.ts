// Runs a POSIX sh script on this machine: `/bin/sh -s` with the script on stdin, in its own process
// group so a deadline or the caller's abort signal (a user cancelling) stops the script and every
// command it started. Output goes to sinks as it arrives (streamCaps.ts), which bound what is kept.
import { spawn } from 'child_process';
import { ByteSink, pauseOnBacklog } from '../probe/streamCaps';

export interface LocalScriptOptions {
  /** Environment for the script (tests put fake commands first on PATH). Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  readonly shell?: string;
  readonly timeoutMs: number;
  /** Aborting stops the script's whole process group (TERM, then KILL), as exec() does over SSH. */
  readonly signal?: AbortSignal;
  readonly stdout: ByteSink;
  readonly stderr: ByteSink;
}

export interface LocalScriptRun {
  readonly exitCode: number | null;
  /** The shell could not be started (the reason is in `note`). */
  readonly connectionLost: boolean;
  readonly timedOut: boolean;
  /** A sink was full: the script was stopped. */
  readonly truncated: boolean;
  readonly note?: string;
}

/** After SIGTERM (a probe's trap removes its temp folder), SIGKILL follows this much later. */
const KILL_GRACE_MS = 2000;

export function runLocalScript(script: string, options: LocalScriptOptions): Promise<LocalScriptRun> {
  if (options.signal?.aborted) return Promise.resolve({ exitCode: null, connectionLost: false, timedOut: false, truncated: false });
  return new Promise((resolve) => {
    const shell = options.shell ?? '/bin/sh';
    const child = spawn(shell, ['-s'], { env: options.env ?? process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let timedOut = false;
    let truncated = false;
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
    const take = (sink: ByteSink, stream: NodeJS.ReadableStream) => (chunk: Buffer) => {
      if (!truncated && !sink.write(chunk)) {
        truncated = true;
        stop();
      }
      pauseOnBacklog(sink, stream);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const { signal } = options;
    signal?.addEventListener('abort', stop, { once: true });
    const finish = (exitCode: number | null, lost: boolean, note?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve({ exitCode, connectionLost: lost, timedOut, truncated, ...(note ? { note } : {}) });
    };
    child.stdout.on('data', take(options.stdout, child.stdout));
    child.stderr.on('data', take(options.stderr, child.stderr));
    child.on('error', (e) => finish(null, true, `cannot start ${shell}: ${e.message}`));
    child.on('close', (code) => finish(code, false));
    child.stdin.on('error', () => undefined); // the shell may exit before reading all of the script
    child.stdin.end(script);
  });
}
