// Reads NCCL's log (NCCL_DEBUG=INFO) as it streams: text goes in by chunks of any size, one record
// per NCCL message comes out, and nothing else is kept, so a log of any length is read in bounded
// memory. Lines are split as an editor splits them (LF, CRLF or a lone CR, so line numbers match
// VS Code's); other programs' output between NCCL's lines is counted and skipped. A line longer than
// MAX_LINE_CHARS (no NCCL line comes close: NCCL formats into a 1 KiB buffer) is read up to there.
import { classifyMessage } from './ncclLogMessages';
import { splitRayRepeat } from './ncclLogRay';
import { findHeaders } from './ncclLogPrefix';
import type { NcclLogLine } from './ncclLogTypes';

export type { NcclLogLine } from './ncclLogTypes';

export const MAX_LINE_CHARS = 64 * 1024;

export class NcclLogReader {
  private rest = '';
  /** The previous chunk ended in CR: an LF at the start of the next one belongs to it. */
  private afterCr = false;
  /** Inside a line longer than MAX_LINE_CHARS, already read up to there: skip to its end. */
  private skipping = false;
  private lineCount = 0;
  private ncclLineCount = 0;

  /** `onLine` gets each NCCL message with the whole line it is on. */
  constructor(private readonly onLine: (line: NcclLogLine, text: string) => void) {}

  /** Lines read so far (NCCL's and others'). */
  get lines(): number {
    return this.lineCount;
  }

  /** Lines that held at least one NCCL message. */
  get ncclLines(): number {
    return this.ncclLineCount;
  }

  push(chunk: string): void {
    const text = this.rest + chunk;
    let start = this.afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCr = false;
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      this.endLine(text.slice(start, end), false);
      start = end + 1;
      if (end === cr) {
        if (start === text.length) this.afterCr = true;
        else if (text.charCodeAt(start) === 10) start++;
      }
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
    }
    this.rest = text.slice(start);
    if (this.rest.length > MAX_LINE_CHARS) {
      if (!this.skipping) this.readLine(this.rest.slice(0, MAX_LINE_CHARS), true);
      this.skipping = true;
      this.rest = '';
    }
  }

  /** The input is over: a last line without a newline is read, and marked cut. */
  end(): void {
    if (this.rest !== '') this.endLine(this.rest, true);
    this.rest = '';
  }

  private endLine(text: string, unterminated: boolean): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    const long = text.length > MAX_LINE_CHARS;
    this.readLine(long ? text.slice(0, MAX_LINE_CHARS) : text, unterminated || long);
  }

  private readLine(text: string, cutAtEnd: boolean): void {
    const line = ++this.lineCount;
    const headers = findHeaders(text);
    if (headers.length === 0) return;
    this.ncclLineCount++;
    headers.forEach((h, i) => {
      const last = i === headers.length - 1;
      const ray = splitRayRepeat(h.message);
      this.onLine(
        {
          line,
          column: h.column,
          messageColumn: h.messageColumn,
          host: h.host,
          pid: h.pid,
          tid: h.tid,
          dev: h.dev,
          level: h.level,
          origin: h.origin,
          cut: h.cut || (last && cutAtEnd),
          rayFolded: ray.folded,
          message: classifyMessage(ray.message, h.level),
        },
        text,
      );
    });
  }
}

/** Every NCCL message of a whole text (a document in an editor, a test's fixture). */
export function readNcclLog(text: string): { lines: NcclLogLine[]; lineCount: number } {
  const lines: NcclLogLine[] = [];
  const reader = new NcclLogReader((l) => lines.push(l));
  reader.push(text);
  reader.end();
  return { lines, lineCount: reader.lines };
}
