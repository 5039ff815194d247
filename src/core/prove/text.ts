// A proof as text (`gdr-doctor prove` on a terminal, the extension's log): per GPU its NIC and the
// other end, one line per mode (Gb/s, the line rate, the ratio, or why not), the verdict, the
// findings that explain a failure, and notes.
import type { GpuProof, ModeOutcome, ProofReport } from './types';
import { pct } from './verdict';

export function formatProof(report: ProofReport): string {
  const lines = [heading(report), ''];
  if (report.status === 'refused') {
    lines.push('Nothing was run:', ...report.refusals.map((r) => `  - ${r}`));
    return `${lines.join('\n')}\n`;
  }
  const width = Math.max(...report.gpus.map((g) => ends(g).length), 'NIC → other end'.length);
  lines.push(`  ${'GPU'.padEnd(6)}${'NIC → other end'.padEnd(width + 2)}${'mode'.padEnd(9)}${'Gb/s'.padStart(8)}${'line'.padStart(7)}${'ratio'.padStart(7)}  result`);
  for (const g of report.gpus) lines.push(...gpuLines(g, width), '');
  for (const s of report.skipped) lines.push(`  not measured: ${s}`);
  if (report.status === 'cancelled') lines.push('  Cancelled: perftest was stopped on every host; what had ended is shown.');
  if (report.status === 'timed-out') lines.push('  A measurement reached its deadline: perftest was stopped on every host.');
  return `${lines.join('\n').trimEnd()}\n`;
}

function heading(r: ProofReport): string {
  const size = r.options.sizeBytes >= 1 << 20 && r.options.sizeBytes % (1 << 20) === 0 ? `${r.options.sizeBytes >> 20} MiB` : `${r.options.sizeBytes} B`;
  const where = r.peer ? `${r.host} ↔ ${r.peer}${r.via ? ` (one Slurm step through ${r.via})` : ''}` : `${r.host} (one host: between its ports)`;
  return `GPUDirect RDMA proof: ${where}; ib_write_bw, ${size} messages, ${r.options.durationS} s per mode`;
}

function ends(g: GpuProof): string {
  const server = `${g.server.host === g.client.host ? '' : `${g.server.host}:`}${g.server.device}:${g.server.port}`;
  return `${g.client.device}:${g.client.port} → ${server}`;
}

function gpuLines(g: GpuProof, width: number): string[] {
  const rows = g.modes.map((m, i) => `  ${(i === 0 ? g.gpu : '').padEnd(6)}${(i === 0 ? ends(g) : '').padEnd(width + 2)}${modeRow(m)}`);
  const explained = g.modes.flatMap((m) => m.explainedBy.map((e) => `        explained by ${e}`));
  return [...rows, `        ${g.verdict}`, ...[...new Set(explained)], ...g.notes.map((n) => `        note: ${n}`)];
}

function modeRow(m: ModeOutcome): string {
  const num = (n: number | null, digits = 2) => (n === null ? '-' : n.toFixed(digits));
  const ratio = m.ratio === null ? '-' : pct(m.ratio);
  const result = m.status === 'ok' ? `ok${m.sharedFrom ? ` (measured with ${m.sharedFrom}: same ports)` : ''}` : `${m.status}: ${m.reason ?? ''}`;
  return `${m.mode.padEnd(9)}${num(m.gbps).padStart(8)}${num(m.lineRateGbps, 0).padStart(7)}${ratio.padStart(7)}  ${result}`;
}
