// The pieces the relay's demux streams through, each with a bound on what it keeps: lines split as
// chunks arrive, one node's probe stream decoded from its base64 lines into compact blocks, and
// capped lists of message lines. Thousands of nodes go through one run, so nothing here may hold
// the run's output, or a node's, as one string.

/** Longest line kept (a relay line is a prefix and 76 base64 characters); the rest of a longer one is dropped. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Most of one node's probe stream kept (decoded): far above a real node's (well under 2 MiB). */
export const MAX_NODE_STREAM_BYTES = 24 * 1024 * 1024;
/** Most text kept of one node's messages, and of the tool's own. */
export const MAX_MESSAGE_BYTES = 4096;

/**
 * Splits a byte stream into lines (without "\n") as chunks arrive; a final line without "\n" comes
 * at end(). A line handed on may be a view of the chunk: `onLine` must not keep it.
 */
export class LineSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly onLine: (line: Buffer) => void) {}

  push(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      // Most lines lie whole in one chunk: handed on as they are, no copy.
      if (this.partial.length === 0) this.onLine(chunk.subarray(from, Math.min(nl, from + MAX_LINE_BYTES)));
      else {
        this.keep(chunk.subarray(from, nl));
        this.emit();
      }
      from = nl + 1;
    }
    if (from < chunk.length) this.keep(chunk.subarray(from));
  }

  end(): void {
    if (this.partialBytes > 0 || this.partial.length > 0) this.emit();
  }

  private keep(piece: Buffer): void {
    const room = MAX_LINE_BYTES - this.partialBytes;
    if (room <= 0 || piece.length === 0) return;
    // A copy: the chunk itself must not stay alive with the line.
    this.partial.push(Buffer.from(piece.subarray(0, room)));
    this.partialBytes += Math.min(room, piece.length);
  }

  private emit(): void {
    const line = this.partial.length === 1 ? this.partial[0] : Buffer.concat(this.partial);
    this.partial = [];
    this.partialBytes = 0;
    this.onLine(line);
  }
}

/** A node's probe stream: its base64 lines decoded as they come, in blocks, up to MAX_NODE_STREAM_BYTES. */
export class DecodedStream {
  private readonly blocks: Buffer[] = [];
  private current = Buffer.alloc(0);
  private used = 0;
  private total = 0;
  /** Decoded bytes not kept (over MAX_NODE_STREAM_BYTES). */
  cutBytes = 0;

  /** One base64 line (a whole number of 4-character groups, except perhaps the last, cut one). */
  addBase64(line: string): void {
    const bytes = Math.floor((line.length * 3) / 4);
    if (this.total + bytes > MAX_NODE_STREAM_BYTES) {
      this.cutBytes += bytes;
      return;
    }
    if (this.current.length - this.used < bytes) this.newBlock(bytes);
    const written = this.current.write(line, this.used, 'base64');
    this.used += written;
    this.total += written;
  }

  bytes(): Buffer {
    return Buffer.concat([...this.blocks, this.current.subarray(0, this.used)]);
  }

  /** The bytes, and lets them go: what comes later starts a new stream (there is none after E). */
  take(): Buffer {
    const all = this.bytes();
    this.blocks.length = 0;
    this.current = Buffer.alloc(0);
    this.used = 0;
    return all;
  }

  get length(): number {
    return this.total;
  }

  private newBlock(atLeast: number): void {
    if (this.used > 0) this.blocks.push(this.current.subarray(0, this.used));
    // Blocks grow with the stream: few for a large one, little waste for a small one.
    this.current = Buffer.allocUnsafe(Math.max(atLeast, Math.min(1 << 20, Math.max(4096, this.total))));
    this.used = 0;
  }
}

/** Message lines, kept until MAX_MESSAGE_BYTES of text, then only counted. */
export class MessageLines {
  readonly lines: string[] = [];
  private kept = 0;
  cutLines = 0;

  push(line: string): void {
    if (this.kept + line.length > MAX_MESSAGE_BYTES && this.lines.length > 0) {
      this.cutLines++;
      return;
    }
    this.lines.push(line.length > MAX_MESSAGE_BYTES ? `${line.slice(0, MAX_MESSAGE_BYTES)}…` : line);
    this.kept += line.length;
  }

  /** The lines, and one line saying how many more there were. */
  all(): string[] {
    return this.cutLines > 0 ? [...this.lines, `(${this.cutLines} more lines cut)`] : [...this.lines];
  }
}
