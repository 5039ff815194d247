// Runs one command on an open connection with a client-side deadline and an output cap, and
// tells "the command failed" apart from "the connection was lost" (no exit status arrived).
import { Client, ClientChannel } from 'ssh2';
import { ByteSink, pauseOnBacklog } from '../probe/streamCaps';

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
  /** Sees each stdout chunk as it arrives (progress); the result still holds all of it. */
  readonly onStdout?: (chunk: Buffer) => void;
  /**
   * Take a stream as it arrives instead of the result (whose stdout/stderr is then empty) and
   * outside `maxBytes`: the sink bounds what it keeps; a sink that answers false stops the command
   * as the cap does (`truncated`).
   */
  readonly stdoutSink?: ByteSink;
  readonly stderrSink?: ByteSink;
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
  const run = new RunningCommand(channel, options, started, resolve);
  channel.on('data', (chunk: Buffer) => {
    run.take(run.out, chunk, options.stdoutSink);
    options.onStdout?.(chunk);
    if (options.stdoutSink) pauseOnBacklog(options.stdoutSink, channel);
  });
  channel.stderr.on('data', (chunk: Buffer) => run.take(run.err, chunk, options.stderrSink));
  channel.on('exit', (code: number | null, sig?: string) => run.exited(code, sig ?? null));
  channel.on('close', () => run.finish());
  if (options.stdin !== undefined) channel.end(options.stdin);
  else channel.end();
}

/** One exec's output, deadline and stop sequence. */
class RunningCommand {
  readonly out: Buffer[] = [];
  readonly err: Buffer[] = [];
  private bytes = 0;
  private truncated = false;
  private timedOut = false;
  private stopping = false;
  private settled = false;
  private exitCode: number | null = null;
  private signal: string | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly onAbort = () => this.stop();

  constructor(
    private readonly channel: ClientChannel,
    private readonly options: ExecOptions,
    private readonly started: number,
    private readonly resolve: (r: ExecResult) => void,
  ) {
    this.timers.push(
      setTimeout(() => {
        this.timedOut = true;
        this.stop();
      }, options.timeoutMs),
    );
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  take(into: Buffer[], chunk: Buffer, sink?: ByteSink): void {
    if (sink) {
      if (!sink.write(chunk) && !this.truncated) {
        this.truncated = true;
        this.stop();
      }
      return;
    }
    const room = this.options.maxBytes - this.bytes;
    if (chunk.length > room) {
      into.push(chunk.subarray(0, Math.max(0, room)));
      this.bytes = this.options.maxBytes;
      this.truncated = true;
      this.stop();
      return;
    }
    this.bytes += chunk.length;
    into.push(chunk);
  }

  exited(code: number | null, sig: string | null): void {
    this.exitCode = code;
    this.signal = sig;
  }

  // sshd delivers a signal request to the session's process group; closing the channel alone does
  // not end a remote command (sshd keeps the session until its process exits, and only then confirms
  // the close). TERM lets a script clean up (the probe's trap stops its commands); KILL follows if
  // the session is still there; the result is returned in any case, so a command stuck on the host
  // (e.g. in the kernel) never holds the caller much past the deadline.
  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    sendSignal(this.channel, 'TERM');
    this.timers.push(
      setTimeout(() => {
        sendSignal(this.channel, 'KILL');
        this.channel.close();
      }, STOP_GRACE_MS),
    );
    this.timers.push(setTimeout(() => this.finish(), 2 * STOP_GRACE_MS));
  }

  finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.timers.forEach(clearTimeout);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    // No exit status although nobody stopped it: the connection went away under the command.
    const lost = this.exitCode === null && this.signal === null && !this.stopping;
    const { exitCode, signal, timedOut, truncated } = this;
    this.resolve({
      exitCode,
      signal,
      stdout: Buffer.concat(this.out),
      stderr: Buffer.concat(this.err),
      timedOut,
      truncated,
      connectionLost: lost,
      durationMs: Date.now() - this.started,
    });
  }
}

/** How long a stopped command gets to exit after TERM before KILL, and again before giving up on it. */
const STOP_GRACE_MS = 2000;

interface ChannelInternals {
  readonly outgoing?: { readonly id: number; readonly state: string };
  readonly _client?: { readonly _protocol?: { signal(id: number, name: string): void } };
}

/**
 * Sends a signal request on a session channel. ssh2's `channel.signal()` sends nothing once our side
 * has sent EOF (after the script went on stdin), although RFC 4254 allows channel requests until the
 * channel is closed and sshd honours them; so the request goes through the protocol object that
 * `signal()` itself uses. test/ssh/faults.test.ts notices if a new ssh2 changes this.
 */
function sendSignal(channel: ClientChannel, name: 'TERM' | 'KILL'): void {
  const c = channel as unknown as ChannelInternals;
  if (c.outgoing && (c.outgoing.state === 'open' || c.outgoing.state === 'eof') && c._client?._protocol) {
    c._client._protocol.signal(c.outgoing.id, name);
  } else {
    channel.signal(name);
  }
}

function emptyResult(started: number, extra: Partial<ExecResult>): ExecResult {
  return {
    exitCode: null,
    signal: null,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    timedOut: false,
    truncated: false,
    connectionLost: false,
    durationMs: Date.now() - started,
    ...extra,
  };
}
