// How a probe keeps the start of each stream it bounds, counts the rest and says so; the limits
// themselves are in outputLimits.ts (frames.ts needs them without this file's types).

export { PREAMBLE_KEEP_BYTES, STDERR_KEEP_BYTES, REPORT_OUTPUT_BUDGET, HOST_STREAM_BUDGET } from './outputLimits';
import { PREAMBLE_KEEP_BYTES } from './outputLimits';
import type { CommandResult } from './frames';
import { sharedStreamBudget, StreamBudget, StreamCutBy } from './streamBudget';

/** How much of one stream a report kept and how much it cut. */
export interface StreamCut {
  readonly keptBytes: number;
  readonly cutBytes: number;
}

/** A consumer of an output stream as it arrives; false: it is full and the command should stop. */
export interface ByteSink {
  write(chunk: Buffer): boolean;
  /**
   * Asked after each write: a promise means "read no more until it settles" (the stream is paused,
   * so the writer on the far side blocks instead of this process buffering).
   */
  backlog?(): Promise<void> | undefined;
}

/** Pauses `stream` while the sink has a backlog. */
export function pauseOnBacklog(sink: ByteSink, stream: { pause(): unknown; resume(): unknown }): void {
  const wait = sink.backlog?.();
  if (!wait) return;
  stream.pause();
  void wait.finally(() => stream.resume());
}

/** Keeps the first `keep` bytes of a stream and counts the rest; never asks to stop. */
export class HeadKeeper implements ByteSink {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  private cut = 0;

  constructor(private readonly keep: number) {}

  write(chunk: Buffer): boolean {
    const room = this.keep - this.kept;
    if (room > 0) {
      // A copy: a slice would hold on to the whole chunk.
      this.parts.push(Buffer.from(chunk.subarray(0, room)));
      this.kept += Math.min(room, chunk.length);
    }
    this.cut += Math.max(0, chunk.length - Math.max(0, room));
    return true;
  }

  contents(): Buffer {
    return Buffer.concat(this.parts);
  }

  get cutBytes(): number {
    return this.cut;
  }
}

/**
 * The probe's stdout as it arrives. Before the probe's header (`\n<B> PROBE `, the script prints the
 * newline first so the header starts a line after any noise), at most PREAMBLE_KEEP_BYTES are kept
 * and the rest is counted; from the header on everything is kept, up to `maxFramedBytes` (the host's
 * budget) and as long as the run's `budget` lasts (streamBudget.ts), which gets its share back at result().
 */
export class ProbeStdout implements ByteSink {
  private readonly marker: Buffer;
  private readonly preamble = new HeadKeeper(PREAMBLE_KEEP_BYTES);
  /** Bytes not yet known to be preamble: they may begin the marker. */
  private pending = Buffer.alloc(0);
  private readonly framed: Buffer[] = [];
  private framedBytes = 0;
  private started = false;
  private cut?: StreamCutBy;

  constructor(
    boundary: string,
    private readonly maxFramedBytes: number,
    private readonly budget: StreamBudget = sharedStreamBudget,
  ) {
    this.marker = Buffer.from(`\n${boundary} PROBE `, 'latin1');
  }

  write(chunk: Buffer): boolean {
    if (this.started) return this.keepFramed(chunk);
    const data = Buffer.concat([this.pending, chunk]);
    const at = data.indexOf(this.marker);
    if (at >= 0) {
      this.preamble.write(data.subarray(0, at));
      this.pending = Buffer.alloc(0);
      this.started = true;
      return this.keepFramed(data.subarray(at));
    }
    const hold = Math.min(data.length, this.marker.length - 1);
    this.preamble.write(data.subarray(0, data.length - hold));
    this.pending = Buffer.from(data.subarray(data.length - hold));
    return true;
  }

  private keepFramed(chunk: Buffer): boolean {
    const wanted = Math.min(chunk.length, Math.max(0, this.maxFramedBytes - this.framedBytes));
    const granted = this.cut ? 0 : this.budget.take(wanted);
    if (granted > 0) this.framed.push(granted === chunk.length ? chunk : chunk.subarray(0, granted));
    this.framedBytes += granted;
    if (granted === chunk.length) return true;
    const by = this.cut?.by ?? (granted < wanted ? 'run' : 'host');
    const limitBytes = by === 'run' ? this.budget.limitBytes : this.maxFramedBytes;
    this.cut = { by, limitBytes, cutBytes: (this.cut?.cutBytes ?? 0) + chunk.length - granted };
    return false;
  }

  /**
   * The kept preamble and the framed part (what frames.ts reads), the preamble bytes cut, and what cut the
   * framed part short (none: nothing). The run's budget gets this stream's share back.
   */
  result(): { stdout: Buffer; preambleCutBytes: number; streamCut?: StreamCutBy } {
    if (!this.started) this.preamble.write(this.pending);
    const stdout = Buffer.concat([this.preamble.contents(), ...(this.started ? this.framed : [])]);
    this.budget.give(this.framedBytes);
    this.framedBytes = 0;
    return { stdout, preambleCutBytes: this.preamble.cutBytes, ...(this.cut ? { streamCut: this.cut } : {}) };
  }
}

/** The first `keep` bytes of `bytes` as text, and how many bytes were left out. */
export function keptText(bytes: Buffer, keep: number): { text: string; cutBytes: number } {
  return { text: bytes.subarray(0, keep).toString('utf8'), cutBytes: Math.max(0, bytes.length - keep) };
}

/**
 * The command results with their outputs cut, in table order, where all of them together pass
 * `budget` UTF-16 code units; a command cut here is marked truncated. `cutChars`: how many were cut.
 */
export function withinBudget(results: readonly CommandResult[], budget: number): { results: CommandResult[]; cutChars: number } {
  let left = budget;
  let cutChars = 0;
  const take = (text: string): string => {
    const kept = text.length <= left ? text : text.slice(0, left);
    left -= kept.length;
    cutChars += text.length - kept.length;
    return kept;
  };
  const out = results.map((r) => {
    const stdout = take(r.stdout);
    const stderr = take(r.stderr);
    return stdout.length === r.stdout.length && stderr.length === r.stderr.length ? r : { ...r, stdout, stderr, truncated: true };
  });
  return { results: out, cutChars };
}
