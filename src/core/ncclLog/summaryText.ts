// The readable summary of an NCCL job's logs: the verdict first, then per host how many network
// connections used GPU Direct RDMA, the NICs each GPU used, the HCAs and every reason GDR was off;
// then NCCL's WARN lines and the findings. The CLI prints it; the editor's Analyze NCCL Log shows it.
import { formatFindings } from '../report/findingsText';
import { evidenceText } from './findings';
import type { NcclLogGpu, NcclLogHost, NcclLogSummary, NcclLogVerdict } from './types';

const VERDICT_TEXT: Record<NcclLogVerdict, string> = {
  gdr: 'GPU Direct RDMA on every network connection',
  'no-gdr': 'GPU Direct RDMA on no network connection',
  mixed: 'GPU Direct RDMA on some network connections only',
  'no-net': 'no connection through the network (P2P/SHM only)',
  unknown: 'no connection line in the log, so it does not show what NCCL did',
};

const SHOWN_WARNINGS = 10;

export function summarizeNcclLogText(s: NcclLogSummary): string {
  const lines = [headline(s), `Verdict: ${s.verdict}: ${VERDICT_TEXT[s.verdict]}`];
  for (const host of s.hosts) lines.push('', ...hostLines(host));
  if (s.warnings.length > 0) {
    lines.push('', 'NCCL WARN lines:');
    for (const w of s.warnings.slice(0, SHOWN_WARNINGS)) lines.push(`  ${w.count > 1 ? `${w.count}× ` : ''}${w.text}`, `    > ${evidenceText(w.first)}`);
    if (s.warnings.length > SHOWN_WARNINGS) lines.push(`  … and ${s.warnings.length - SHOWN_WARNINGS} more (--json lists them)`);
  }
  lines.push('', ...formatFindings(s.findings).map((l) => l.slice(2)));
  return lines.join('\n');
}

function headline(s: NcclLogSummary): string {
  const version = s.ncclVersion === null ? 'NCCL (version not in the log)' : `NCCL ${s.ncclVersion}${s.cudaVersion ? ` (built for CUDA ${s.cudaVersion})` : ''}`;
  const ranks = new Set(s.hosts.flatMap((h) => h.ranks)).size;
  const read = s.files.length <= 3
    ? s.files.map((f) => `${f.name}: ${f.ncclLines} of ${f.lines} lines from NCCL`).join('; ')
    : `${s.files.length} files: ${s.files.reduce((a, f) => a + f.ncclLines, 0)} of ${s.files.reduce((a, f) => a + f.lines, 0)} lines from NCCL`;
  return `${version}, network ${s.network ?? '(not printed)'}; ${plural(s.hosts.length, 'host')}, ${plural(ranks, 'rank')} seen (${read})`;
}

function hostLines(h: NcclLogHost): string[] {
  const { total, gdrdma } = h.netConnections;
  const lines = [`${h.name}: ${total === 0 ? 'no network connection in the log' : `GPU Direct RDMA used on ${gdrdma} of ${total} network connections`}${h.network ? ` (network ${h.network})` : ''}`];
  for (const gpu of h.gpus) lines.push(`  ${gpuLine(gpu)}`);
  if (h.hcas.length > 0) {
    lines.push(`  HCAs: ${h.hcas.map((x) => `${x.name}${x.link ? ` ${x.link}` : ''}${gdrText(x.gdr)}${x.dmabuf ? ', DMA-BUF' : ''}`).join('; ')}`);
  }
  if (h.gdrOffReasons.length > 0) {
    lines.push('  GPU Direct RDMA off because:');
    for (const r of h.gdrOffReasons) lines.push(`    - ${r.reason}`, `      > ${evidenceText(r.evidence)}`);
  }
  return lines;
}

function gpuLine(g: NcclLogGpu): string {
  const who = [g.busId === null ? null : `busId ${g.busId}`, g.ranks.length === 0 ? null : `${g.ranks.length === 1 ? 'rank' : 'ranks'} ${g.ranks.join(',')}`]
    .filter((x) => x !== null)
    .join(', ');
  const name = g.dev < 0 ? 'GPU ?' : `GPU ${g.dev}`;
  const nics = g.nics.map((n) => `${n.name} (${n.gdrdma} of ${n.connections} GDRDMA)`).join(', ');
  const parts = [nics === '' ? 'no network connection' : `NICs ${nics}`, g.dmabuf ? 'DMA-BUF available' : null].filter((x) => x !== null);
  return `${name}${who ? ` (${who})` : ''}: ${parts.join('; ')}`;
}

function gdrText(gdr: boolean | null): string {
  if (gdr === null) return '';
  return gdr ? ', GDR enabled' : ', GDR disabled';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
