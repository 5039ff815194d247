import { PerftestRun } from '../../core/parsers/perftest';

/** The test, the device, the bandwidth of the last row in Gb/s, the CUDA device, perftest's error lines, and whether it printed its usage. */
export function summarizePerftest(run: PerftestRun): string {
  const last = run.rows[run.rows.length - 1];
  const lines = [
    `ib_write_bw: ${run.test ?? 'no banner'}${run.device ? ` on ${run.device}` : ''}${run.linkType ? ` (link ${run.linkType})` : ''}`,
    last && run.unit
      ? `  BW average ${run.averageGbps} Gb/s at ${last.bytes} B (${run.rows.length} row${run.rows.length > 1 ? 's' : ''}, printed in ${run.unit}${last.peak === 0 ? ', peak not measured' : ''})`
      : '  no result row',
  ];
  if (run.cuda) lines.push(`  CUDA device ${run.cuda.device ?? '?'}${run.cuda.name ? ` (${run.cuda.name})` : ''}${run.cuda.dmabuf ? ', dma-buf' : ''}`);
  for (const e of run.errors) lines.push(`  error (line ${e.line}): ${e.text}`);
  if (run.usage) lines.push('  printed its usage (--help, or a flag it refused)');
  return lines.join('\n');
}
