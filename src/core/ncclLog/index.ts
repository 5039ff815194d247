// The NCCL log reader's entry points: a whole text at once (a document, a saved file given to
// `gdr-doctor parse nccl-log`), or chunks as they stream (NcclLogReader + NcclLogSummarizer).
import { NcclLogReader } from '../parsers/ncclLog';
import { fail, ok, Parsed } from '../parsers/result';
import { NcclLogSummarizer } from './summarize';
import type { NcclLogSummary } from './types';
import { t } from '../l10n';

export { NcclLogSummarizer } from './summarize';
export type { NcclLogSummary, NcclLogVerdict } from './types';

/** The file has not one NCCL line: it is not an NCCL log (or NCCL_DEBUG was not set). */
export const noNcclLinesText = (): string =>
  t('no NCCL log lines ("host:pid:tid [dev] NCCL INFO …" or "NCCL version …"); run the job with NCCL_DEBUG=INFO');

/** Feeds one file's text to a summarizer; returns how many of its lines were NCCL's. */
export function addNcclLogText(summarizer: NcclLogSummarizer, text: string, file: string): number {
  const reader = new NcclLogReader((line, lineText) => summarizer.add(line, lineText, file));
  reader.push(text);
  reader.end();
  summarizer.addFile({ name: file, lines: reader.lines, ncclLines: reader.ncclLines });
  return reader.ncclLines;
}

/** The summary of one whole log; a ParseError at line 1 when it holds no NCCL line at all. */
export function summarizeNcclLog(text: string, file = '<input>'): Parsed<NcclLogSummary> {
  const summarizer = new NcclLogSummarizer();
  if (addNcclLogText(summarizer, text, file) === 0) return fail(1, noNcclLinesText());
  return ok(summarizer.summary());
}
