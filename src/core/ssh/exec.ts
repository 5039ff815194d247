// Runs one command on an open connection with a client-side deadline and an output cap, and
// tells "the command failed" apart from "the connection was lost" (no exit status arrived).
import { Client, ClientChannel } from 'ssh2';

export interface ExecResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  /** The channel closed without an exit status: what arrived is kept. */
  readonly connectionLost: boolean;
  readonly durationMs: number;
}

export interface ExecOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly stdin?: string;
  readonly signal?: AbortSignal;
}

export function exec(client: Client, command: string, options: ExecOptions): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    client.exec(command, (err, channel) => {
      if (err) {
        resolve(emptyResult(started, { connectionLost: true, stderr: Buffer.from(err.message) }));
        return;
      }
      collect(channel, options, started, resolve);
    });
  });
}

function collect(channel: ClientChannel, options: ExecOptions, started: number, resolve: (r: ExecResult) => void): void {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let bytes = 0;
  let truncated = false;
  let timedOut = false;
  let exitCode: number | null = null;
  let signal: string | null = null;
  const take = (into: Buffer[]) => (chunk: Buffer) => {
    if (bytes + chunk.length > options.maxBytes) {
      into.push(chunk.subarray(0, Math.max(0, options.maxBytes - bytes)));
      bytes = options.maxBytes;
      truncated = true;
      stop();
      return;
    }
    bytes += chunk.length;
    into.push(chunk);
  };
  // Closing the channel makes sshd hang up on the remote session (SIGHUP to its processes).
  const stop = () => {
    channel.signal('KILL');
    channel.close();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  channel.on('data', take(out));
  channel.stderr.on('data', take(err));
  channel.on('exit', (code: number | null, sig?: string) => {
    exitCode = code;
    signal = sig ?? null;
  });
  channel.on('close', () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    const lost = exitCode === null && signal === null && !timedOut && !truncated && !options.signal?.aborted;
    resolve({ exitCode, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut, truncated, connectionLost: lost, durationMs: Date.now() - started });
  });
  if (options.stdin !== undefined) channel.end(options.stdin);
  else channel.end();
}

function emptyResult(started: number, extra: Partial<ExecResult>): ExecResult {
  return { exitCode: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timedOut: false, truncated: false, connectionLost: false, durationMs: Date.now() - started, ...extra };
}
