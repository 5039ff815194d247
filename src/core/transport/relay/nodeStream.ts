// The pieces the relay's demux streams through, each with a bound on what it keeps: lines split as
// chunks arrive, one node's probe stream decoded from its base64 lines into compact blocks, and
// capped lists of message lines. Thousands of nodes go through one run, so nothing here may hold
// the run's output, or a node's, as one string.
import { HOST_STREAM_BUDGET } from '../../probe/outputLimits';
import { sharedStreamBudget, StreamBudget, StreamCutBy } from '../../probe/streamBudget';

/** Longest line kept (a relay line is a prefix and 76 base64 characters); the rest of a longer one is dropped. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Most of one node's probe stream kept (decoded): a host's budget, as a direct probe's. */
export const MAX_NODE_STREAM_BYTES = HOST_STREAM_BUDGET;
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

/**
 * A node's probe stream: its base64 lines decoded as they come, in blocks, up to MAX_NODE_STREAM_BYTES and
 * as long as the run's budget lasts (streamBudget.ts: every node in flight takes from it; take() gives back).
 */
export class DecodedStream {
  private readonly blocks: Buffer[] = [];
  private current = Buffer.alloc(0);
  private used = 0;
  private total = 0;
  /** The run's budget this stream holds (given back by take()). */
  private held = 0;
  /** What cut the stream short, once something did: the node's own cap or the run's budget. */
  cut?: StreamCutBy;

  constructor(private readonly budget: StreamBudget = sharedStreamBudget) {}

  /** Decoded bytes not kept. */
  get cutBytes(): number {
    return this.cut?.cutBytes ?? 0;
  }

  /** One base64 line (a whole number of 4-character groups, except perhaps the last, cut one). */
  addBase64(line: string): void {
    const bytes = Math.floor((line.length * 3) / 4);
    if (this.cut === undefined && this.total + bytes > MAX_NODE_STREAM_BYTES)
      this.cut = { by: 'host', limitBytes: MAX_NODE_STREAM_BYTES, cutBytes: 0 };
    if (this.cut === undefined) {
      const granted = this.budget.take(bytes);
      if (granted === bytes) return this.keep(line, bytes);
      this.budget.give(granted);
      this.cut = { by: 'run', limitBytes: this.budget.limitBytes, cutBytes: 0 };
    }
    this.cut = { ...this.cut, cutBytes: this.cut.cutBytes + bytes };
  }

  private keep(line: string, bytes: number): void {
    if (this.current.length - this.used < bytes) this.newBlock(bytes);
    const written = this.current.write(line, this.used, 'base64');
    this.used += written;
    this.total += written;
    this.held += bytes;
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
    this.budget.give(this.held);
    this.held = 0;
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

/** One node's stream as the demux reads it: its frames, its decoded probe output, its messages. */
export class NodeStream {
  began = false;
  ended = false;
  exitCode: number | null = null;
  /** The probe's stdout, decoded from the node's base64 lines. */
  readonly data: DecodedStream;
  /** The node's own stderr and the tool's messages about it. */
  readonly messageLines = new MessageLines();
  /** Slurm: the step's node list from the node's `B` line. */
  stepNodeList?: string;

  constructor(
    readonly name: string,
    budget?: StreamBudget,
  ) {
    this.data = new DecodedStream(budget);
  }

  get messages(): string[] {
    return this.messageLines.all();
  }
}

/**
 * Why a node's stream is not used: `forged` (`other` printed relay lines claiming to be it), `forger` (it printed
 * lines claiming to be `other`), `unkeyed` (it printed relay frames without its key), `second-start` (a second
 * start line for it), `two-tasks` (a second srun task, `other`, claimed its name).
 */
export interface Contest {
  readonly why: 'forged' | 'forger' | 'unkeyed' | 'second-start' | 'two-tasks';
  readonly other?: string;
}
