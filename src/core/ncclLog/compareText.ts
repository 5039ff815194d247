// Every sentence of an NCCL log's comparison with a host, in one place (translations will start
// here): the per-GPU words, the findings' titles and details, the CLI's and the tree's lines.
import type { ComparedGpu, GdrWay, NcclHostComparison } from './compareTypes';
import type { NcclLogGpu } from './types';

const WAY_TEXT: Record<GdrWay, string> = {
  both: 'GDR',
  send: 'GDR for sends only',
  receive: 'GDR for receives only',
  none: 'no GDR',
};

const gpuList = (gpus: readonly ComparedGpu[]): string => gpus.map((g) => g.gpu).join(', ');

/** Where the release of the prediction came from. */
function versionText(c: Pick<NcclHostComparison, 'ncclAssumed' | 'versionFrom'>): string {
  return c.versionFrom === 'log' ? `NCCL ${c.ncclAssumed}, the release in the log` : `NCCL ${c.ncclAssumed} (the log does not name its release)`;
}

function matchedByDevice(gpus: readonly ComparedGpu[]): string {
  return gpus.some((g) => g.matchedBy === 'device')
    ? ' GPUs are matched by CUDA device number (the log printed no busId): right unless CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reordered them.'
    : '';
}

export const COMPARE_TEXT = {
  predicted: (way: GdrWay, nics: readonly string[], proxyGpu: string | null): string =>
    `${WAY_TEXT[way]} via ${nics.join(', ') || 'no usable NIC'}${proxyGpu ? ` (PXN through ${proxyGpu})` : ''}`,
  observed: (g: NcclLogGpu): string => {
    const { total, gdrdma } = g.netConnections;
    return total === 0 ? 'no network connection in the log' : `GDRDMA on ${gdrdma} of ${total} network connections via ${g.nics.map((n) => n.name).join(', ')}`;
  },
  modelEvidence: (c: Pick<NcclHostComparison, 'host' | 'ncclAssumed'>, g: ComparedGpu): string =>
    `${c.host} (gdr-doctor's model of NCCL ${c.ncclAssumed}): ${g.gpu}: ${g.predicted}. ${g.pair.reason}`,
  gpuLine: (g: ComparedGpu): string =>
    `${g.gpu} (log: GPU ${g.log.dev}${g.log.busId ? `, busId ${g.log.busId}` : ''}): predicted ${g.predicted}; log: ${g.observed}${verdictMark(g)}`,
  heading: (c: NcclHostComparison): string => `Compared with ${c.host} (log host ${c.logHost}; predicted for ${versionText(c)}):`,
  envFromLog: (env: Readonly<Record<string, string>>): string =>
    `the prediction takes the log's ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}`,

  gdrNotUsed: (c: NcclHostComparison, gpus: readonly ComparedGpu[], logReason: string | null) => ({
    title: `NCCL did not use GPU Direct RDMA on ${gpuList(gpus)} of ${c.host}, where gdr-doctor predicts it`,
    detail:
      `gdr-doctor predicts that ${versionText(c)} uses GPU Direct RDMA for ${gpuList(gpus)} on ${c.host}, but the log shows their ` +
      'network connections without /GDRDMA (staged through host memory). The host allows it, so look at what differs when the job ' +
      'runs: its NCCL_* settings (NCCL_NET_GDR_LEVEL, NCCL_IB_HCA, NCCL_DMABUF_ENABLE), a container without the peer-memory module, ' +
      `the host changed since it was diagnosed, or the log comes from another host.${logReason ? ` NCCL's own reason: ${logReason}.` : ''}` +
      matchedByDevice(gpus),
  }),
  gdrNotPredicted: (c: NcclHostComparison, gpus: readonly ComparedGpu[]) => ({
    title: `NCCL used GPU Direct RDMA on ${gpuList(gpus)} of ${c.host}, where gdr-doctor predicts it would not`,
    detail:
      `The log shows /GDRDMA on the network connections of ${gpuList(gpus)}, but gdr-doctor's model of ${versionText(c)} on ${c.host} ` +
      'says NCCL would not use GPU Direct RDMA there. The model may be missing something: a setting the job used that the log did ' +
      'not echo, a DMA-BUF path or a peer-memory module the probe did not see, a network plugin with rules of its own, or the host ' +
      `changed since it was diagnosed. Not a problem for the job; worth telling gdr-doctor's authors.${matchedByDevice(gpus)}`,
  }),
  unexpectedNic: (c: NcclHostComparison, gpus: readonly ComparedGpu[], notOnHost: readonly string[]) => ({
    title: `${gpuList(gpus)} of ${c.host} used a NIC gdr-doctor does not give ${gpus.length === 1 ? 'it' : 'them'}`,
    detail:
      gpus.map((g) => `${g.gpu} used ${g.unexpectedNics.join(', ')}; the model gives it ${g.predicted}`).join('; ') + '. ' +
      (notOnHost.length > 0
        ? `${notOnHost.join(', ')} ${notOnHost.length === 1 ? 'is' : 'are'} not an RDMA device of ${c.host}: is the log from this host? `
        : '') +
      'NCCL can use a farther NIC when its ring or tree search finds no pattern with the nearest ones, with NCCL_CROSS_NIC, or when ' +
      'NCCL_IB_HCA names others; sends through another GPU (PXN) were allowed for any NIC of the host. A farther NIC costs bandwidth ' +
      `and may lose GPU Direct RDMA.${matchedByDevice(gpus)}`,
  }),
  socketFallback: (c: NcclHostComparison, nics: readonly string[]) => ({
    title: `NCCL fell back to TCP sockets on ${c.host}, which has RDMA ports (${nics.slice(0, 4).join(', ')}${nics.length > 4 ? ', …' : ''})`,
    detail:
      `The log says "Using network Socket" for ${c.logHost}, yet ${c.host} has usable RDMA ports: no RDMA, so no GPU Direct RDMA, ` +
      'for any transfer between hosts. Usual causes: NCCL_IB_DISABLE=1, a container without /dev/infiniband or without the verbs ' +
      'library (libibverbs), NCCL_IB_HCA naming no device, or a network plugin that failed to load.',
  }),
  agrees: (c: NcclHostComparison, gpus: readonly ComparedGpu[]) => ({
    title: `The log agrees with gdr-doctor's prediction on ${gpus.length === 1 ? gpus[0].gpu : `${gpus.length} GPUs`} of ${c.host}`,
    detail: `For ${gpuList(gpus)}, NCCL used GPU Direct RDMA exactly where gdr-doctor's model of ${versionText(c)} predicts it, and only the NICs it gives them.${matchedByDevice(gpus)}`,
  }),
  notCompared: (c: NcclHostComparison) => ({
    title: `Nothing to compare between the log of ${c.logHost} and ${c.host}`,
    detail:
      (c.gpus.length === 0 && c.unmatchedLogGpus.length > 0
        ? `The log's GPUs ${c.unmatchedLogGpus.join(', ')} are not GPUs of ${c.host}. `
        : `The log has no network connection line of ${c.logHost}'s GPUs. `) +
      'Run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET on more than one host to see how NCCL connects them.',
  }),

  treeGroup: 'NCCL log',
  treeDescription: (file: string, findings: number): string => `${file} · ${findings} finding${findings === 1 ? '' : 's'}`,
  noDiagnosis: (host: string): string => `${host} has not been diagnosed yet: the comparison appears once it is.`,
  pickHost: 'Compare the NCCL log with which host?',
  pickLogHost: (host: string): string => `Which host of the log ran on ${host}?`,
  noLogHost: 'The log names no host to compare.',
  compareOpen: 'Open an NCCL log in the editor first (a job run with NCCL_DEBUG=INFO).',
} as const;

function verdictMark(g: ComparedGpu): string {
  if (g.gdrAgrees === false || g.unexpectedNics.length > 0) return ' — differs';
  return g.gdrAgrees === true ? ' — agrees' : '';
}
