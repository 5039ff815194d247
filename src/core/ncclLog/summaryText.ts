// The readable summary of an NCCL job's logs: the verdict first, then per host how many network
// connections used GPU Direct RDMA, the NICs each GPU used, the HCAs and every reason GDR was off;
// then NCCL's WARN lines and the findings. The CLI prints it; the editor's Analyze NCCL Log shows it.
import { formatFindings } from '../report/findingsText';
import { evidenceText } from './findings';
import type { NcclLogGpu, NcclLogHost, NcclLogSummary, NcclLogVerdict } from './types';
import { t } from '../l10n';

const verdictText = (verdict: NcclLogVerdict): string =>
  ({
    gdr: t('GPU Direct RDMA on every network connection'),
    'no-gdr': t('GPU Direct RDMA on no network connection'),
    mixed: t('GPU Direct RDMA on some network connections only'),
    'no-net': t('no connection through the network (P2P/SHM only)'),
    unknown: t('no connection line in the log, so it does not show what NCCL did'),
  })[verdict];

const SHOWN_WARNINGS = 10;

export function summarizeNcclLogText(s: NcclLogSummary): string {
  const lines = [headline(s), t('Verdict: {0}: {1}', s.verdict, verdictText(s.verdict))];
  for (const host of s.hosts) lines.push('', ...hostLines(host));
  if (s.warnings.length > 0) {
    lines.push('', t('NCCL WARN lines:'));
    for (const w of s.warnings.slice(0, SHOWN_WARNINGS))
      lines.push(`  ${w.count > 1 ? `${w.count}× ` : ''}${w.text}`, `    > ${evidenceText(w.first)}`);
    if (s.warnings.length > SHOWN_WARNINGS) lines.push(`  ${t('… and {0} more (--json lists them)', s.warnings.length - SHOWN_WARNINGS)}`);
  }
  lines.push('', ...formatFindings(s.findings).map((l) => l.slice(2)));
  return lines.join('\n');
}

function headline(s: NcclLogSummary): string {
  const version =
    s.ncclVersion === null
      ? t('NCCL (version not in the log)')
      : s.cudaVersion
        ? t('NCCL {0} (built for CUDA {1})', s.ncclVersion, s.cudaVersion)
        : `NCCL ${s.ncclVersion}`;
  const ranks = new Set(s.hosts.flatMap((h) => h.ranks)).size;
  const read =
    s.files.length <= 3
      ? s.files.map((f) => t('{0}: {1} of {2} lines from NCCL', f.name, f.ncclLines, f.lines)).join('; ')
      : t(
          '{0} files: {1} of {2} lines from NCCL',
          s.files.length,
          s.files.reduce((a, f) => a + f.ncclLines, 0),
          s.files.reduce((a, f) => a + f.lines, 0),
        );
  const hosts = s.hosts.length === 1 ? t('1 host') : t('{0} hosts', s.hosts.length);
  const rankText = ranks === 1 ? t('1 rank') : t('{0} ranks', ranks);
  return t('{0}, network {1}; {2}, {3} seen ({4})', version, s.network ?? t('(not printed)'), hosts, rankText, read);
}

function hostLines(h: NcclLogHost): string[] {
  const { total, gdrdma } = h.netConnections;
  const used =
    total === 0 ? t('no network connection in the log') : t('GPU Direct RDMA used on {0} of {1} network connections', gdrdma, total);
  const lines = [`${h.name}: ${used}${h.network ? t(' (network {0})', h.network) : ''}`];
  for (const gpu of h.gpus) lines.push(`  ${gpuLine(gpu)}`);
  if (h.hcas.length > 0) {
    lines.push(`  HCAs: ${h.hcas.map(hcaText).join('; ')}`);
  }
  if (h.gdrOffReasons.length > 0) {
    lines.push(`  ${t('GPU Direct RDMA off because:')}`);
    for (const r of h.gdrOffReasons) lines.push(`    - ${r.reason}`, `      > ${evidenceText(r.evidence)}`);
  }
  return lines;
}

function gpuLine(g: NcclLogGpu): string {
  // NVML's index is nvidia-smi's; the CUDA device is said too where the process saw the GPU under another number.
  const index = g.nvmlDev ?? g.dev;
  const who = [
    g.nvmlDev !== null && g.nvmlDev !== g.dev ? t('CUDA device {0}', g.dev) : null,
    g.busId === null ? null : `busId ${g.busId}`,
    g.ranks.length === 0 ? null : `${g.ranks.length === 1 ? 'rank' : 'ranks'} ${g.ranks.join(',')}`,
  ]
    .filter((x) => x !== null)
    .join(', ');
  const name = index < 0 ? 'GPU ?' : `GPU ${index}`;
  const nics = g.nics.map((n) => t('{0} ({1} of {2} GDRDMA)', n.name, n.gdrdma, n.connections)).join(', ');
  const parts = [nics === '' ? t('no network connection') : t('NICs {0}', nics), g.dmabuf ? t('DMA-BUF available') : null].filter(
    (x) => x !== null,
  );
  return `${name}${who ? ` (${who})` : ''}: ${parts.join('; ')}`;
}

/** One HCA: its name, Socket or its link, whether GPU Direct RDMA is on, DMA-BUF. */
function hcaText(x: NcclLogHost['hcas'][number]): string {
  const link = x.net === 'Socket' ? ' Socket' : x.link ? ` ${x.link}` : '';
  return `${x.name}${link}${gdrText(x.gdr)}${x.dmabuf ? ', DMA-BUF' : ''}`;
}

function gdrText(gdr: boolean | null): string {
  if (gdr === null) return '';
  return gdr ? t(', GDR enabled') : t(', GDR disabled');
}
