// An nccl-tests run in words and one table (the CLI's `parse nccl-tests`, the editor's summary): what
// ran on how many ranks and nodes, the bus bandwidth per size, the footer, and every row that could not
// be read. Numbers are the run's own; nothing is rounded beyond what nccl-tests printed.
import { largestRow } from './index';
import type { NcclTestsRow, NcclTestsRun } from './types';
import { t } from '../l10n';

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && v % 1024 === 0 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v} ${units[i]}`;
}

const gbps = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(2));

export function headline(run: NcclTestsRun): string {
  const what = run.test ?? t('nccl-tests (the test is not named in the output)');
  const versions = [
    run.nccl_tests_version ? `nccl-tests ${run.nccl_tests_version}` : null,
    run.nccl_release ? `NCCL ${run.nccl_release}` : null,
  ]
    .filter((x) => x !== null)
    .join(', ');
  return `${what}${versions ? ` (${versions})` : ''}: ${ranksText(run)}`;
}

/** How many ranks on how many nodes, in words that agree with the numbers ("1 nodes" reads wrong). */
function ranksText(run: NcclTestsRun): string {
  const hosts = run.hosts.slice(0, 8).join(', ') + (run.hosts.length > 8 ? ', …' : '');
  if (run.devices.length === 0) return t('no "Using devices" list');
  if (run.devices.length === 1) return t('one rank listed, on {0}', hosts);
  if (run.hosts.length === 1) return t('{0} ranks listed on one node ({1})', run.devices.length, hosts);
  return t('{0} ranks listed on {1} nodes ({2})', run.devices.length, run.hosts.length, hosts);
}

function rowLine(r: NcclTestsRow): string {
  const out = r.out_of_place;
  const inPlace = r.in_place;
  const wrong = (n: number | null | undefined) => (n === null || n === undefined ? 'N/A' : String(n));
  return [
    formatBytes(r.size).padStart(10),
    r.type.padStart(9),
    (r.redop ?? '-').padStart(6),
    (out ? String(out.time) : '-').padStart(10),
    gbps(out?.alg_bw).padStart(8),
    gbps(out?.bus_bw).padStart(8),
    wrong(out?.nwrong).padStart(7),
    gbps(inPlace?.bus_bw).padStart(10),
    wrong(inPlace?.nwrong).padStart(7),
  ].join(' ');
}

/** The result table's columns as nccl-tests prints them, with their widths. */
const TABLE_HEADER: readonly (readonly [string, number])[] = [
  ['size', 10],
  ['type', 9],
  ['redop', 6],
  ['time(us)', 10],
  ['algbw', 8],
  ['busbw', 8],
  ['#wrong', 7],
  ['in-place', 10],
  ['#wrong', 7],
];

export function summarizeNcclTests(run: NcclTestsRun): string {
  const lines = [headline(run)];
  const largest = largestRow(run);
  if (largest) {
    const side = largest.side === 'out-of-place' ? largest.row.out_of_place : largest.row.in_place;
    const size = formatBytes(largest.row.size);
    lines.push(
      `  ${t('largest size {0}: busbw {1} GB/s ({2}), algbw {3} GB/s', size, gbps(largest.busbw), largest.side, gbps(side?.alg_bw))}`,
    );
  }
  const average =
    run.average_bus_bandwidth === null ? t('not printed (the output stops before the footer)') : `${run.average_bus_bandwidth} GB/s`;
  lines.push(`  ${t('average bus bandwidth: {0}', average)}`);
  if (run.out_of_bounds)
    lines.push(`  ${t('out of bounds values: {0} {1}', run.out_of_bounds.count, run.out_of_bounds.okay ? 'OK' : 'FAILED')}`);
  if (run.layout === 'old') lines.push(`  ${t('old table layout (an error column, no #wrong): nccl-tests before 2.13')}`);
  if (run.layout === 'inferred') lines.push(`  ${t('no table header: the columns were read from the rows themselves')}`);
  if (run.results.length > 0) {
    lines.push('', `  ${TABLE_HEADER.map(([h, width]) => h.padStart(width)).join(' ')}`);
    for (const r of run.results) lines.push(`  ${rowLine(r)}`);
    lines.push('');
  }
  for (const p of run.problems)
    lines.push(`  ${t('line {0}: a row {1}, not read: {2}', p.line, p.kind === 'cut' ? t('cut off') : t('garbled'), p.why)}`);
  for (const e of run.errors) lines.push(`  ${t('error: {0}', e)}`);
  if (run.truncated) lines.push(`  ${t('read up to a cap (rows, ranks or size): the rest of the input was not read')}`);
  return lines.join('\n');
}

/** Cheap test before reading a document: nccl-tests' header or footer words. */
export const looksLikeNcclTests = (text: string): boolean => text.includes('busbw') || text.includes('Avg bus bandwidth');

/** The editor lens: what ran where, the largest size's busbw, rows that could not be read. */
export function lensText(run: NcclTestsRun): string {
  const largest = largestRow(run);
  const parts = [headline(run)];
  if (largest) parts.push(t('busbw {0} GB/s at {1}', gbps(largest.busbw), formatBytes(largest.row.size)));
  if (run.problems.length > 0) parts.push(t('{0} rows not read', run.problems.length));
  return parts.join(' · ');
}
