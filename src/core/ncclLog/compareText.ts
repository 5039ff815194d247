// Every sentence of an NCCL log's comparison with a host, in one place (translations will start
// here): the per-GPU words, the findings' titles and details, the CLI's and the tree's lines.
import type { ComparedGpu, GdrWay, NcclHostComparison } from './compareTypes';
import type { NcclLogGpu } from './types';
import { t } from '../l10n';

const wayText = (way: GdrWay): string =>
  ({ both: 'GDR', send: t('GDR for sends only'), receive: t('GDR for receives only'), none: t('no GDR'), unknown: t('GDR unknown') })[way];

const gpuList = (gpus: readonly ComparedGpu[]): string => gpus.map((g) => g.gpu).join(', ');

/** Where the release of the prediction came from. */
function versionText(c: Pick<NcclHostComparison, 'ncclAssumed' | 'versionFrom'>): string {
  return c.versionFrom === 'log'
    ? t('NCCL {0}, the release in the log', c.ncclAssumed)
    : t('NCCL {0} (the log does not name its release)', c.ncclAssumed);
}

function matchedByDevice(gpus: readonly ComparedGpu[]): string {
  return gpus.some((g) => g.matchedBy === 'device')
    ? ` ${t('GPUs are matched by CUDA device number (the log printed no busId): right unless CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reordered them.')}`
    : '';
}

export const COMPARE_TEXT = {
  predicted: (way: GdrWay, nics: readonly string[], proxyGpu: string | null): string =>
    `${t('{0} via {1}', wayText(way), nics.join(', ') || t('no usable NIC'))}${proxyGpu ? t(' (PXN through {0})', proxyGpu) : ''}`,
  observed: (g: NcclLogGpu): string => {
    const { total, gdrdma } = g.netConnections;
    return total === 0
      ? t('no network connection in the log')
      : t('GDRDMA on {0} of {1} network connections via {2}', gdrdma, total, g.nics.map((n) => n.name).join(', '));
  },
  modelEvidence: (c: Pick<NcclHostComparison, 'host' | 'ncclAssumed'>, g: ComparedGpu): string =>
    `${t("{0} (gdr-doctor's model of NCCL {1})", c.host, c.ncclAssumed)}: ${g.gpu}: ${g.predicted}. ${g.pair.reason}`,
  gpuLine: (g: ComparedGpu): string => {
    const logGpu = `${t('log: GPU {0}', g.log.nvmlDev ?? g.log.dev)}${g.log.busId ? `, busId ${g.log.busId}` : ''}`;
    return `${g.gpu} (${logGpu}): ${t('predicted {0}; log: {1}', g.predicted, g.observed)}${verdictMark(g)}`;
  },
  heading: (c: NcclHostComparison): string => t('Compared with {0} (log host {1}; predicted for {2}):', c.host, c.logHost, versionText(c)),
  envFromLog: (env: Readonly<Record<string, string>>): string =>
    t(
      "the prediction takes the log's {0}",
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ),

  gdrNotUsed: (c: NcclHostComparison, gpus: readonly ComparedGpu[], logReason: string | null) => ({
    title: t('NCCL did not use GPU Direct RDMA on {0} of {1}, where gdr-doctor predicts it', gpuList(gpus), c.host),
    detail:
      t(
        'gdr-doctor predicts that {0} uses GPU Direct RDMA for {1} on {2}, but the log shows their network connections without /GDRDMA (staged through host memory). The host allows it, so look at what differs when the job runs: its NCCL_* settings (NCCL_NET_GDR_LEVEL, NCCL_IB_HCA, NCCL_DMABUF_ENABLE), a container without the peer-memory module, the host changed since it was diagnosed, or the log comes from another host.',
        versionText(c),
        gpuList(gpus),
        c.host,
      ) +
      (logReason ? ` ${t("NCCL's own reason: {0}.", logReason)}` : '') +
      matchedByDevice(gpus),
  }),
  gdrNotPredicted: (c: NcclHostComparison, gpus: readonly ComparedGpu[]) => ({
    title: t('NCCL used GPU Direct RDMA on {0} of {1}, where gdr-doctor predicts it would not', gpuList(gpus), c.host),
    detail:
      t(
        "The log shows /GDRDMA on the network connections of {0}, but gdr-doctor's model of {1} on {2} says NCCL would not use GPU Direct RDMA there. The model may be missing something: a setting the job used that the log did not echo, a DMA-BUF path or a peer-memory module the probe did not see, a network plugin with rules of its own, or the host changed since it was diagnosed. Not a problem for the job; worth telling gdr-doctor's authors.",
        gpuList(gpus),
        versionText(c),
        c.host,
      ) + matchedByDevice(gpus),
  }),
  unexpectedNic: (c: NcclHostComparison, gpus: readonly ComparedGpu[], notOnHost: readonly string[]) => ({
    title:
      gpus.length === 1
        ? t('{0} of {1} used a NIC gdr-doctor does not give it', gpuList(gpus), c.host)
        : t('{0} of {1} used a NIC gdr-doctor does not give them', gpuList(gpus), c.host),
    detail:
      gpus.map((g) => t('{0} used {1}; the model gives it {2}', g.gpu, g.unexpectedNics.join(', '), g.predicted)).join('; ') +
      '. ' +
      (notOnHost.length === 0
        ? ''
        : notOnHost.length === 1
          ? `${t('{0} is not an RDMA device of {1}: is the log from this host?', notOnHost[0], c.host)} `
          : `${t('{0} are not an RDMA device of {1}: is the log from this host?', notOnHost.join(', '), c.host)} `) +
      t(
        'NCCL can use a farther NIC when its ring or tree search finds no pattern with the nearest ones, with NCCL_CROSS_NIC, or when NCCL_IB_HCA names others; sends through another GPU (PXN) were allowed for any NIC of the host. A farther NIC costs bandwidth and may lose GPU Direct RDMA.',
      ) +
      matchedByDevice(gpus),
  }),
  socketFallback: (c: NcclHostComparison, nics: readonly string[]) => ({
    title: t(
      'NCCL fell back to TCP sockets on {0}, which has RDMA ports ({1})',
      c.host,
      `${nics.slice(0, 4).join(', ')}${nics.length > 4 ? ', …' : ''}`,
    ),
    detail: t(
      'The log says "Using network Socket" for {0}, yet {1} has usable RDMA ports: no RDMA, so no GPU Direct RDMA, for any transfer between hosts. Usual causes: NCCL_IB_DISABLE=1, a container without /dev/infiniband or without the verbs library (libibverbs), NCCL_IB_HCA naming no device, or a network plugin that failed to load.',
      c.logHost,
      c.host,
    ),
  }),
  agrees: (c: NcclHostComparison, gpus: readonly ComparedGpu[]) => ({
    title:
      gpus.length === 1
        ? t("The log agrees with gdr-doctor's prediction on {0} of {1}", gpus[0].gpu, c.host)
        : t("The log agrees with gdr-doctor's prediction on {0} GPUs of {1}", gpus.length, c.host),
    detail:
      t(
        "For {0}, NCCL used GPU Direct RDMA exactly where gdr-doctor's model of {1} predicts it, and only the NICs it gives them.",
        gpuList(gpus),
        versionText(c),
      ) + matchedByDevice(gpus),
  }),
  notCompared: (c: NcclHostComparison) => ({
    title: t('Nothing to compare between the log of {0} and {1}', c.logHost, c.host),
    detail:
      (c.gpus.length === 0 && c.unmatchedLogGpus.length > 0
        ? t("The log's GPUs {0} are not GPUs of {1}.", c.unmatchedLogGpus.join(', '), c.host)
        : t("The log has no network connection line of {0}'s GPUs.", c.logHost)) +
      ' ' +
      t('Run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET on more than one host to see how NCCL connects them.'),
  }),

  // Getters: read when shown, so in the language of the moment.
  get treeGroup(): string {
    return t('NCCL log');
  },
  treeDescription: (file: string, findings: number): string => `${file} · ${findings === 1 ? t('1 finding') : t('{0} findings', findings)}`,
  noDiagnosis: (host: string): string => t('{0} has not been diagnosed yet: the comparison appears once it is.', host),
  get pickHost(): string {
    return t('Compare the NCCL log with which host?');
  },
  pickLogHost: (host: string): string => t('Which host of the log ran on {0}?', host),
  get noLogHost(): string {
    return t('The log names no host to compare.');
  },
  get compareOpen(): string {
    return t('Open an NCCL log in the editor first (a job run with NCCL_DEBUG=INFO).');
  },
} as const;

function verdictMark(g: ComparedGpu): string {
  if (g.gdrAgrees === false || g.unexpectedNics.length > 0) return ` — ${t('differs')}`;
  return g.gdrAgrees === true ? ` — ${t('agrees')}` : '';
}
