// One open SSH connection per host, reused while it is alive. A connection is closed on request or
// after it has been idle for a while; one that dropped (the server went away, keepalives went
// unanswered: ServerAliveInterval/CountMax are set by connect()) is forgotten at once, so the next
// use opens a new one. Callers that ask for the same host at the same time share one connect.
import { SshConnection } from './connect';

export type PoolCloseReason = 'request' | 'idle' | 'dropped';

export interface PoolOptions {
  /** Opens an authenticated connection for a host (resolve the destination, then connect()). */
  readonly open: (host: string) => Promise<SshConnection>;
  /** Close a connection nobody has used for this long. Default 5 minutes; 0 never. */
  readonly idleMs?: number;
  /** Told whenever a connection of the pool ends, and why (a status line in VS Code). */
  readonly onClose?: (host: string, reason: PoolCloseReason) => void;
}

/** A connection closed (close(host) or closeAll()) while it was still being opened. */
export class PoolClosedError extends Error {
  constructor(readonly host: string) {
    super(`${host}: the connection was closed on request while it was being opened`);
  }
}

interface Entry {
  /** Resolves to the open connection; shared by every caller while it is being opened. */
  readonly ready: Promise<SshConnection>;
  conn?: SshConnection;
  /** Callers inside use(): an entry in use is never closed for being idle. */
  busy: number;
  idleTimer?: NodeJS.Timeout;
  closed: boolean;
}

const DEFAULT_IDLE_MS = 5 * 60_000;

export class ConnectionPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;

  constructor(private readonly options: PoolOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** The open connection to `host`, opening it if needed. Prefer use(), which also holds off the idle close. */
  get(host: string): Promise<SshConnection> {
    const entry = this.entries.get(host) ?? this.openEntry(host);
    this.touch(entry);
    return entry.ready;
  }

  /** Runs `work` on the host's connection; the idle time counts from when the last work ends. */
  async use<T>(host: string, work: (conn: SshConnection) => Promise<T>): Promise<T> {
    const entry = this.entries.get(host) ?? this.openEntry(host);
    entry.busy++;
    this.touch(entry);
    try {
      return await work(await entry.ready);
    } finally {
      entry.busy--;
      this.touch(entry);
    }
  }

  /** Hosts with a connection open or being opened. */
  hosts(): string[] {
    return [...this.entries.keys()];
  }

  close(host: string): void {
    const entry = this.entries.get(host);
    if (entry) this.end(host, entry, 'request');
  }

  closeAll(): void {
    for (const [host, entry] of [...this.entries]) this.end(host, entry, 'request');
  }

  private openEntry(host: string): Entry {
    const entry: Entry = { ready: this.openConnection(host, () => entry), busy: 0, closed: false };
    this.entries.set(host, entry);
    // A failed connect leaves nothing behind: the next get() tries again.
    entry.ready.catch(() => {
      if (this.entries.get(host) === entry) this.entries.delete(host);
    });
    return entry;
  }

  private async openConnection(host: string, self: () => Entry): Promise<SshConnection> {
    const conn = await this.options.open(host);
    const entry = self();
    if (entry.closed) {
      conn.close();
      throw new PoolClosedError(host);
    }
    entry.conn = conn;
    const dropped = () => this.end(host, entry, 'dropped');
    conn.client.on('close', dropped);
    conn.client.on('end', dropped);
    // After 'ready' an error (reset, keepalive timeout) is followed by 'close'; without a listener
    // the error event would throw.
    conn.client.on('error', () => undefined);
    return conn;
  }

  private touch(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    if (this.idleMs <= 0 || entry.busy > 0 || entry.closed) return;
    entry.idleTimer = setTimeout(() => {
      const host = [...this.entries].find(([, e]) => e === entry)?.[0];
      if (host !== undefined && entry.busy === 0) this.end(host, entry, 'idle');
    }, this.idleMs);
    // An idle connection must not keep a CLI process alive.
    entry.idleTimer.unref();
  }

  private end(host: string, entry: Entry, reason: PoolCloseReason): void {
    if (entry.closed) return;
    entry.closed = true;
    clearTimeout(entry.idleTimer);
    if (this.entries.get(host) === entry) this.entries.delete(host);
    entry.conn?.close();
    if (entry.conn || reason !== 'request') this.options.onClose?.(host, reason);
  }
}
