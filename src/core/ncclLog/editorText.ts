// Every sentence the editor shows about an NCCL log, in one place (translations will start here):
// the marks of the Problems panel, the summary lens at the top, the notes of Analyze NCCL Log.
// Log text appears only where it is quoted (a WARN's own words); callers that render text escape it.
import { noRdmaDeviceReason, ringsGdrOffReason, socketNetworkReason } from './reasons';
import type { NcclConnectionCount, NcclLogSummary, NcclLogVerdict } from './types';

export const MARK_TEXT = {
  hcaDisabled: (name: string, reason: string | null): string =>
    `GPU Direct RDMA disabled for HCA ${name}${reason === null ? '' : ` (${reason})`}: ${
      reason !== null && /no module/.test(reason)
        ? 'no peer-memory module (nvidia-peermem) was loaded'
        : 'NCCL found neither a peer-memory module (nvidia-peermem) nor a usable DMA-BUF path'
    }`,
  pairDisabled: (gpu: string, hca: string, distance: number | null, threshold: number | null): string =>
    `GPU Direct RDMA disabled for GPU ${gpu} / HCA ${hca}: ${
      distance === null ? 'the path' : `path distance ${distance}`
    } is beyond the threshold${threshold === null ? '' : ` ${threshold}`} (NCCL_NET_GDR_LEVEL)`,
  socket: (): string => socketNetworkReason(),
  socketWithRdma: (devices: readonly string[]): string =>
    `Using network Socket while InfiniBand devices exist (${shortList(devices)}): NCCL sends over TCP, without RDMA or GPU Direct RDMA`,
  noRdmaDevice: (net: string): string => noRdmaDeviceReason(net),
  pluginGdrOff: (): string => 'The network plugin turned GPU Direct RDMA off',
  ringsGdrOff: (): string => ringsGdrOffReason(),
  warn: (text: string): string => `NCCL WARN: ${text}`,
  netWithoutGdrdma: (host: string, dev: number, count: NcclConnectionCount, socket: boolean): string =>
    `Network connections without GDRDMA: ${count.total - count.gdrdma} of ${count.total} of GPU ${dev < 0 ? '?' : dev} on ${host} ` +
    `${socket ? 'go over TCP sockets' : 'are staged through host memory'} (this is the first)`,
  stoppedEarly: (readChars: number, lines: number): string =>
    `Read the first ${megabytes(readChars)} only (${lines} lines): nothing past line ${lines} is marked; Analyze NCCL Log reads the whole file`,
} as const;

const VERDICT_SHORT: Record<NcclLogVerdict, string> = {
  gdr: 'GDR on every network connection',
  'no-gdr': 'no GDR',
  mixed: 'GDR on some connections',
  'no-net': 'no network connection',
  unknown: 'no connection lines',
};

export const LENS_TEXT = {
  headline: (s: NcclLogSummary): string => {
    const ranks = new Set(s.hosts.flatMap((h) => h.ranks)).size;
    const { total, gdrdma } = s.netConnections;
    const used = total === 0 ? VERDICT_SHORT[s.verdict] : `${VERDICT_SHORT[s.verdict]}: GPU Direct RDMA on ${gdrdma} of ${total} network connections`;
    return `NCCL ${s.ncclVersion ?? '(version not in the log)'} · ${used} · ${count(s.hosts.length, 'host')}, ${count(ranks, 'rank')}`;
  },
  problems: (marks: number, dropped: number): string =>
    marks === 0 ? 'No problem marked' : `${count(marks, 'line')} marked in Problems${dropped > 0 ? ` (${dropped} more not shown)` : ''}`,
  stoppedEarly: (readChars: number, lines: number): string =>
    `Read the first ${megabytes(readChars)} only (${lines} lines): Analyze NCCL Log reads the whole file`,
  analyze: 'Analyze NCCL Log',
  compare: 'Compare with Host…',
  compared: (host: string, findings: number): string => `Compared with ${host}: ${count(findings, 'finding')}`,
} as const;

export const ANALYZE_TEXT = {
  stoppedEarly: (readChars: number, lines: number): string =>
    `(Read the first ${megabytes(readChars)} only, up to line ${lines}: the summary covers that part of the log.)`,
  notNccl: (file: string, lines: number): string =>
    `${file}: not one of its ${lines} lines is NCCL's ("host:pid:tid [dev] NCCL INFO …" or "NCCL version …"); run the job with NCCL_DEBUG=INFO`,
  progress: (file: string): string => `Reading the NCCL log ${file}`,
  noLog: 'Open an NCCL log (a job run with NCCL_DEBUG=INFO) in the editor first.',
} as const;

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function megabytes(chars: number): string {
  const mb = chars / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : mb.toFixed(1)} MB`;
}

function shortList(names: readonly string[]): string {
  return names.length > 4 ? `${names.slice(0, 4).join(', ')} +${names.length - 4}` : names.join(', ');
}
