// Every sentence the editor shows about an NCCL log, in one place (translations will start here):
// the marks of the Problems panel, the summary lens at the top, the notes of Analyze NCCL Log.
// Log text appears only where it is quoted (a WARN's own words); callers that render text escape it.
import { noRdmaDeviceReason, ringsGdrOffReason, socketNetworkReason } from './reasons';
import type { NcclConnectionCount, NcclLogSummary, NcclLogVerdict } from './types';
import { t } from '../l10n';

export const MARK_TEXT = {
  hcaDisabled: (name: string, reason: string | null): string =>
    `${reason === null ? t('GPU Direct RDMA disabled for HCA {0}', name) : t('GPU Direct RDMA disabled for HCA {0} ({1})', name, reason)}: ${
      reason !== null && /no module/.test(reason)
        ? t('no peer-memory module (nvidia-peermem) was loaded')
        : t('NCCL found neither a peer-memory module (nvidia-peermem) nor a usable DMA-BUF path')
    }`,
  pairDisabled: (gpu: string, hca: string, distance: number | null, threshold: number | null): string =>
    t(
      'GPU Direct RDMA disabled for GPU {0} / HCA {1}: {2} is beyond the threshold{3} (NCCL_NET_GDR_LEVEL)',
      gpu,
      hca,
      distance === null ? t('the path') : t('path distance {0}', distance),
      threshold === null ? '' : ` ${threshold}`,
    ),
  socket: (): string => socketNetworkReason(),
  socketWithRdma: (devices: readonly string[]): string =>
    t(
      'Using network Socket while InfiniBand devices exist ({0}): NCCL sends over TCP, without RDMA or GPU Direct RDMA',
      shortList(devices),
    ),
  noRdmaDevice: (net: string): string => noRdmaDeviceReason(net),
  pluginGdrOff: (): string => t('The network plugin turned GPU Direct RDMA off'),
  ringsGdrOff: (): string => ringsGdrOffReason(),
  warn: (text: string): string => `NCCL WARN: ${text}`,
  withRelated: (message: string, more: number): string =>
    more === 1
      ? t('{0} (and 1 more line: related information)', message)
      : t('{0} (and {1} more lines: related information)', message, more),
  netWithoutGdrdma: (host: string, dev: number, count: NcclConnectionCount, socket: boolean): string => {
    const args = [count.total - count.gdrdma, count.total, dev < 0 ? '?' : dev, host] as const;
    return socket
      ? t('Network connections without GDRDMA: {0} of {1} of GPU {2} on {3} go over TCP sockets (this is the first)', ...args)
      : t('Network connections without GDRDMA: {0} of {1} of GPU {2} on {3} are staged through host memory (this is the first)', ...args);
  },
  stoppedEarly: (readChars: number, lines: number): string =>
    t(
      'Read the first {0} only ({1} lines): nothing past line {1} is marked; Analyze NCCL Log reads the whole file',
      megabytes(readChars),
      lines,
    ),
} as const;

const verdictShort = (verdict: NcclLogVerdict): string =>
  ({
    gdr: t('GDR on every network connection'),
    'no-gdr': t('no GDR'),
    mixed: t('GDR on some connections'),
    'no-net': t('no network connection'),
    unknown: t('no connection lines'),
  })[verdict];

export const LENS_TEXT = {
  headline: (s: NcclLogSummary): string => {
    const ranks = new Set(s.hosts.flatMap((h) => h.ranks)).size;
    const { total, gdrdma } = s.netConnections;
    const used =
      total === 0
        ? verdictShort(s.verdict)
        : `${verdictShort(s.verdict)}: ${t('GPU Direct RDMA on {0} of {1} network connections', gdrdma, total)}`;
    const hosts = s.hosts.length === 1 ? t('1 host') : t('{0} hosts', s.hosts.length);
    return `NCCL ${s.ncclVersion ?? t('(version not in the log)')} · ${used} · ${hosts}, ${ranks === 1 ? t('1 rank') : t('{0} ranks', ranks)}`;
  },
  problems: (marks: number, dropped: number): string =>
    marks === 0
      ? t('No problem marked')
      : `${marks === 1 ? t('1 cause in Problems') : t('{0} causes in Problems', marks)}${dropped > 0 ? t(' ({0} more not shown)', dropped) : ''}`,
  stoppedEarly: (readChars: number, lines: number): string =>
    t('Read the first {0} only ({1} lines): Analyze NCCL Log reads the whole file', megabytes(readChars), lines),
  // Getters: read when shown, so in the language of the moment.
  get analyze(): string {
    return t('Analyze NCCL Log');
  },
  get compare(): string {
    return t('Compare with Host…');
  },
  compared: (host: string, findings: number): string =>
    t('Compared with {0}: {1}', host, findings === 1 ? t('1 finding') : t('{0} findings', findings)),
} as const;

export const ANALYZE_TEXT = {
  stoppedEarly: (readChars: number, lines: number): string =>
    t('(Read the first {0} only, up to line {1}: the summary covers that part of the log.)', megabytes(readChars), lines),
  notNccl: (file: string, lines: number): string =>
    t(
      '{0}: not one of its {1} lines is NCCL\'s ("host:pid:tid [dev] NCCL INFO …" or "NCCL version …"); run the job with NCCL_DEBUG=INFO',
      file,
      lines,
    ),
  progress: (file: string): string => t('Reading the NCCL log {0}', file),
  get noLog(): string {
    return t('Open an NCCL log (a job run with NCCL_DEBUG=INFO) in the editor first.');
  },
} as const;

export function megabytes(chars: number): string {
  const mb = chars / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : mb.toFixed(1)} MB`;
}

function shortList(names: readonly string[]): string {
  return names.length > 4 ? `${names.slice(0, 4).join(', ')} +${names.length - 4}` : names.join(', ');
}
