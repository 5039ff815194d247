// A proof as text (`gdr-doctor prove` on a terminal, the extension's log): per GPU its NIC and the
// other end, one line per mode (Gb/s, the line rate, the ratio, or why not), the verdict, the
// findings that explain a failure, and notes.
import type { GpuProof, ModeOutcome, ProofReport } from './types';
import { pct } from './verdict';
import { t } from '../l10n';
import { displayWidth, padEndColumns, padStartColumns } from '../columns';

export function formatProof(report: ProofReport): string {
  const lines = [heading(report), ''];
  if (report.status === 'refused') {
    lines.push(t('Nothing was run:'), ...report.refusals.map((r) => `  - ${r}`));
    return `${lines.join('\n')}\n`;
  }
  const endsHeading = t('NIC → other end');
  const width = Math.max(...report.gpus.map((g) => displayWidth(ends(g))), displayWidth(endsHeading));
  const columns = [
    'GPU'.padEnd(6),
    padEndColumns(endsHeading, width + 2),
    padEndColumns(t('mode'), 9),
    'Gb/s'.padStart(8),
    padStartColumns(t('line'), 7),
    padStartColumns(t('ratio'), 7),
  ];
  lines.push(`  ${columns.join('')}  ${t('result')}`);
  for (const g of report.gpus) lines.push(...gpuLines(g, width), '');
  for (const s of report.skipped) lines.push(`  ${t('not measured: {0}', s)}`);
  if (report.status === 'cancelled') lines.push(`  ${t('Cancelled: perftest was stopped on every host; what had ended is shown.')}`);
  if (report.status === 'timed-out') lines.push(`  ${t('A measurement reached its deadline: perftest was stopped on every host.')}`);
  return `${lines.join('\n').trimEnd()}\n`;
}

function heading(r: ProofReport): string {
  const size =
    r.options.sizeBytes >= 1 << 20 && r.options.sizeBytes % (1 << 20) === 0
      ? `${r.options.sizeBytes >> 20} MiB`
      : `${r.options.sizeBytes} B`;
  const where = r.peer
    ? `${r.host} ↔ ${r.peer}${r.via ? t(' (one Slurm step through {0})', r.via) : ''}`
    : t('{0} (one host: between its ports)', r.host);
  return t('GPUDirect RDMA proof: {0}; ib_write_bw, {1} messages, {2} s per mode', where, size, r.options.durationS);
}

function ends(g: GpuProof): string {
  const server = `${g.server.host === g.client.host ? '' : `${g.server.host}:`}${g.server.device}:${g.server.port}`;
  return `${g.client.device}:${g.client.port} → ${server}`;
}

function gpuLines(g: GpuProof, width: number): string[] {
  const rows = g.modes.map(
    (m, i) => `  ${(i === 0 ? g.gpu : '').padEnd(6)}${padEndColumns(i === 0 ? ends(g) : '', width + 2)}${modeRow(m)}`,
  );
  const explained = g.modes.flatMap((m) => m.explainedBy.map((e) => `        ${t('explained by {0}', e)}`));
  return [...rows, `        ${g.verdict}`, ...[...new Set(explained)], ...g.notes.map((n) => `        ${t('note: {0}', n)}`)];
}

function modeRow(m: ModeOutcome): string {
  const num = (n: number | null, digits = 2) => (n === null ? '-' : n.toFixed(digits));
  const ratio = m.ratio === null ? '-' : pct(m.ratio);
  const result =
    m.status === 'ok' ? `ok${m.sharedFrom ? t(' (measured with {0}: same ports)', m.sharedFrom) : ''}` : `${m.status}: ${m.reason ?? ''}`;
  return `${m.mode.padEnd(9)}${num(m.gbps).padStart(8)}${num(m.lineRateGbps, 0).padStart(7)}${ratio.padStart(7)}  ${result}`;
}
