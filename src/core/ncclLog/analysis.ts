// One NCCL log read for an editor: the job's summary (the very one `gdr-doctor nccl-log` prints) and
// the located marks, from one pass of the streaming reader. A limit stops the reading at a line end
// once that many characters were read, and the analysis says so; the async form hands the event loop
// back between chunks, so a big document never blocks the process reading it (VS Code's extension host).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { NcclLogReader } from '../parsers/ncclLog';
import { MarkCollector, NcclLogMark, readLimitMark } from './marks';
import { NcclLogSummarizer } from './summarize';
import type { NcclLogSummary } from './types';

export interface NcclLogAnalysis {
  /** The name evidence gives the file (`<file>:<line>: …`). */
  readonly file: string;
  /** null when not one line was NCCL's. */
  readonly summary: NcclLogSummary | null;
  readonly marks: NcclLogMark[];
  /** Marks beyond MAX_MARKS, counted only. */
  readonly marksDropped: number;
  readonly lines: number;
  readonly ncclLines: number;
  /** Characters read; less than the text's when the limit stopped the reading. */
  readonly readChars: number;
  readonly complete: boolean;
}

export class NcclLogAnalyzer {
  private readonly summarizer = new NcclLogSummarizer();
  private readonly marks = new MarkCollector();
  private readonly reader: NcclLogReader;
  private read = 0;
  private stopped = false;

  /** `limitChars`: stop at the end of the line that reaches it (Infinity: read everything). */
  constructor(
    readonly file: string,
    private readonly limitChars = Infinity,
  ) {
    this.reader = new NcclLogReader((line, text) => {
      this.summarizer.add(line, text, file);
      this.marks.add(line, text);
    });
  }

  /** Reads a chunk; false once the limit was reached (what follows is not read). */
  push(chunk: string): boolean {
    if (this.stopped) return false;
    const room = this.limitChars - this.read;
    if (chunk.length <= room) {
      this.reader.push(chunk);
      this.read += chunk.length;
      return true;
    }
    // Up to the last line end within the limit (a single longer line: up to the limit itself).
    const cut = chunk.lastIndexOf('\n', room - 1);
    const kept = chunk.slice(0, cut >= 0 ? cut + 1 : room);
    this.reader.push(kept);
    this.read += kept.length;
    this.stopped = true;
    return false;
  }

  end(): NcclLogAnalysis {
    this.reader.end();
    const lines = this.reader.lines;
    const ncclLines = this.reader.ncclLines;
    this.summarizer.addFile({ name: this.file, lines, ncclLines });
    const summary = ncclLines === 0 ? null : this.summarizer.summary();
    const marks = summary ? this.marks.finish(summary) : [];
    // The lens says so too, but VS Code shows no lens on a document too large to colour: Problems always shows this.
    if (this.stopped) marks.unshift(readLimitMark(this.read, lines));
    return {
      file: this.file,
      summary,
      marks,
      marksDropped: this.marks.dropped,
      lines,
      ncclLines,
      readChars: this.read,
      complete: !this.stopped,
    };
  }
}

/** A whole text at once (tests, small documents). */
export function analyzeNcclLogText(text: string, file: string, limitChars = Infinity): NcclLogAnalysis {
  const analyzer = new NcclLogAnalyzer(file, limitChars);
  analyzer.push(text);
  return analyzer.end();
}

/** Splits a text into pieces of `size` characters for the async reader. */
export function* textChunks(text: string, size = CHUNK_CHARS): Generator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

export const CHUNK_CHARS = 256 * 1024;

/**
 * Characters of an open document the editor reads for its live marks and lens (Analyze NCCL Log reads all).
 * Under VS Code's own large-file limit (20 MB or 300,000 lines: TextModel.LARGE_FILE_SIZE_THRESHOLD in
 * microsoft/vscode src/vs/editor/common/model/textModel.ts), past which it neither colours a document nor
 * asks for its CodeLens (CodeLensContribution._onModelChange, src/vs/editor/contrib/codelens/browser/
 * codelensController.ts), so that the lens can still say where the reading stopped in a log a little larger.
 */
export const LIVE_LIMIT_CHARS = 16 * 1024 * 1024;

/**
 * Reads chunks as they come, handing the event loop back after each; resolves to null when
 * `cancelled()` turns true (the document changed, the user cancelled).
 */
export async function analyzeNcclLogChunks(
  chunks: Iterable<string> | AsyncIterable<string>,
  file: string,
  options: { limitChars?: number; cancelled?: () => boolean; onProgress?: (readChars: number) => void } = {},
): Promise<NcclLogAnalysis | null> {
  const analyzer = new NcclLogAnalyzer(file, options.limitChars);
  let read = 0;
  for await (const chunk of chunks) {
    const more = analyzer.push(chunk);
    read += chunk.length;
    options.onProgress?.(read);
    await nextTurn();
    if (options.cancelled?.()) return null;
    if (!more) break;
  }
  return analyzer.end();
}
