import { PerftestRun } from '../../core/parsers/perftest';
import { t } from '../../core/l10n';

/**
 * The test, the device, the bandwidth of the last row in Gb/s, the CUDA device, perftest's error lines,
 * and whether it printed its usage.
 */
export function summarizePerftest(run: PerftestRun): string {
  const last = run.rows[run.rows.length - 1];
  const rowCount = run.rows.length > 1 ? t('{0} rows', run.rows.length) : t('1 row');
  const peakNote = last?.peak === 0 ? t(', peak not measured') : '';
  const lines = [
    `ib_write_bw: ${run.test ?? t('no banner')}${run.device ? t(' on {0}', run.device) : ''}${run.linkType ? t(' (link {0})', run.linkType) : ''}`,
    last && run.unit
      ? `  ${t('BW average {0} Gb/s at {1} B ({2}, printed in {3}{4})', run.averageGbps ?? '?', last.bytes, rowCount, run.unit, peakNote)}`
      : `  ${t('no result row')}`,
  ];
  if (run.cuda)
    lines.push(
      `  ${t('CUDA device {0}', run.cuda.device ?? '?')}${run.cuda.name ? ` (${run.cuda.name})` : ''}${run.cuda.dmabuf ? ', dma-buf' : ''}`,
    );
  for (const e of run.errors) lines.push(`  ${t('error (line {0}): {1}', e.line, e.text)}`);
  if (run.usage) lines.push(`  ${t('printed its usage (--help, or a flag it refused)')}`);
  return lines.join('\n');
}
