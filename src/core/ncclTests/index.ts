// The nccl-tests reader's entry: a pasted output (text) or the -J JSON file, into one shape.
import { fail, ok, Parsed } from '../parsers/result';
import { readNcclTestsJson } from './parseJson';
import { readNcclTestsText } from './parseText';
import type { NcclTestsRun } from './types';
import { t } from '../l10n';

export type { NcclTestsDevice, NcclTestsPerf, NcclTestsProblem, NcclTestsRow, NcclTestsRun } from './types';
export { NCCL_TESTS_CAPS } from './parseText';

/** Outputs beyond this are read up to here (and marked truncated): a 16-node run with NCCL INFO lines is a few MB. */
export const MAX_NCCL_TESTS_CHARS = 256 * 1024 * 1024;

export const noNcclTestsText = (): string =>
  t(
    'no nccl-tests result table, "Using devices" list or footer found (is this the output of all_reduce_perf or another nccl-tests binary?)',
  );

/** Text or -J JSON; a ParseError when neither a table, a device list nor a footer is there. */
export function parseNcclTests(text: string): Parsed<NcclTestsRun> {
  if (text.indexOf('\u0000') >= 0) return fail(1, t('input contains binary data (a NUL byte); expected text output'));
  const first = text.search(/\S/);
  if (first >= 0 && text[first] === '{' && text.length <= MAX_NCCL_TESTS_CHARS) return readNcclTestsJson(text);
  const run = readNcclTestsText(text, MAX_NCCL_TESTS_CHARS);
  const found = run.results.length + run.devices.length + run.problems.length > 0 || run.average_bus_bandwidth !== null;
  return found ? ok(run) : fail(1, noNcclTestsText());
}

/** The row of the largest size and its bus bandwidth (out-of-place, else in-place); null without rows. */
export function largestRow(
  run: NcclTestsRun,
): { row: NcclTestsRun['results'][number]; busbw: number; side: 'out-of-place' | 'in-place' } | null {
  let best: NcclTestsRun['results'][number] | null = null;
  for (const r of run.results) if (best === null || r.size >= best.size) best = r;
  if (!best) return null;
  if (best.out_of_place) return { row: best, busbw: best.out_of_place.bus_bw, side: 'out-of-place' };
  return best.in_place ? { row: best, busbw: best.in_place.bus_bw, side: 'in-place' } : null;
}
