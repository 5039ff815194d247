// The words of a GPU's NCCL verdict, written once: the CLI, the Hosts tree, the topology panel and the
// reports all show these sentences. Each names the NCCL function it follows and, where the answer
// depends on the release, the release that changed it.
import { GdrDecision, GdrBlock } from './checkGdr';
import { GpuVerdict, HostVerdict, NicUse, SkippedNic } from './model';
import { TableNet } from './pathTable';
import { PathType, pathMeaning } from './pathType';
import { formatNcclVersion } from './version';
import { t } from '../../l10n';

export const NCCL_SOURCE = {
  checkGdr: 'NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr',
  computePaths: 'NVIDIA/nccl src/graph/paths.cc ncclTopoComputePaths',
  getLocal: 'NVIDIA/nccl src/graph/topo.cc ncclTopoGetLocal/ncclTopoGetLocalNet',
  initDevices: 'NVIDIA/nccl src/transport/net_ib/init.cc (ports not PORT_ACTIVE are skipped; NCCL_IB_HCA filters)',
  ibDisable: 'NVIDIA/nccl src/transport/net_ib/init.cc ncclIbInit (NCCL_IB_DISABLE), src/transport/net_socket.cc',
  netPlugin: 'NVIDIA/nccl src/plugin/net.cc (libnccl-net.so first, then IB, then Socket; NCCL_NET_PLUGIN, NCCL_NET)',
  gdrSupport: 'NVIDIA/nccl src/transport/net_ib/gdr.cc ncclIbGdrSupport; src/graph/topo.cc "GPU Direct RDMA Enabled/Disabled for HCA"',
  systemFromSysfs: 'NVIDIA/nccl src/graph/xml.cc ncclTopoGetXmlFromSys',
  topoFile: 'NVIDIA/nccl src/graph/topo.cc ncclTopoGetSystem (NCCL_TOPO_FILE; virtualTopology.xml from 2.10)',
} as const;

/** One sentence per direction, or one for both when they agree. */
export function verdictSentence(gv: GpuVerdict, hv: HostVerdict): string {
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const use = gv.primary;
  if (hv.network === 'Socket') return socketSentence(gv, hv, nccl);
  if (!use && gv.unknownPaths) return unknownPathSentence(gv, hv);
  if (!use)
    return (
      t(
        '{0}: {1} finds no usable RDMA NIC port for it, so it has no GPUDirect RDMA path ({2}).',
        gv.gpu.name,
        nccl,
        NCCL_SOURCE.initDevices,
      ) + skippedText(gv.skipped)
    );
  const route = routeText(gv, use);
  const both = sameOutcome(use.send, use.receive);
  const outcome = both
    ? t('{0} for sends and receives', decisionText(use.receive, hv))
    : t('sends: {0}; receives: {1}', decisionText(use.send, hv), decisionText(use.receive, hv));
  return (
    t('{0} → {1} {2}. {3}: {4}.', gv.gpu.name, netLabel(use.net), route, nccl, outcome) +
    skippedText(gv.skipped) +
    versionNotes(gv, hv) +
    topoFileText(hv)
  );
}

/** Where the paths came from when NCCL loads an XML topology instead of sysfs. */
function topoFileText(hv: HostVerdict): string {
  const f = hv.topoFile;
  if (!f) return '';
  const via = f.via === 'virtual' ? t("the VM image's virtual topology") : 'NCCL_TOPO_FILE';
  if (f.state === 'used')
    return ' ' + t('Paths from {0} ({1}), which NCCL loads instead of sysfs ({2}).', f.path, via, NCCL_SOURCE.topoFile);
  if (f.state === 'absent')
    return ' ' + t('NCCL_TOPO_FILE names {0}, which does not exist: NCCL reads sysfs ({1}).', f.path, NCCL_SOURCE.topoFile);
  return (
    ' ' +
    t('NCCL loads {0} ({1}) instead of sysfs, and it was not read here: the paths are unknown ({2}).', f.path, via, NCCL_SOURCE.topoFile)
  );
}

/** Why NCCL sends over TCP sockets: NCCL_IB_DISABLE, NCCL_NET=Socket, or plugin devices without their plugin. */
function socketSentence(gv: GpuVerdict, hv: HostVerdict, nccl: string): string {
  const why = hv.networkChoice.socketWhy;
  if (why === 'no-plugin')
    return t(
      '{0}: the RDMA devices here ({1}) are neither InfiniBand nor RoCE, so only a network plugin (aws-ofi-nccl for EFA) drives them, and no libnccl-net*.so was found where NCCL loads it from (the linker cache, the usual install folders): {2} sends over TCP sockets (NET/Socket), which never use GPUDirect RDMA ({3}).',
      gv.gpu.name,
      hv.networkChoice.pluginDevices.join(', '),
      nccl,
      NCCL_SOURCE.netPlugin,
    );
  if (why === 'net-socket')
    return t(
      '{0}: NCCL_NET={1} makes {2} send over TCP sockets (NET/Socket), which never use GPUDirect RDMA ({3}).',
      gv.gpu.name,
      hv.env.given.NCCL_NET ?? '',
      nccl,
      NCCL_SOURCE.netPlugin,
    );
  return t(
    '{0}: {1} with NCCL_IB_DISABLE={2} leaves NET/IB out and sends over TCP sockets (NET/Socket), which never use GPUDirect RDMA ({3}).',
    gv.gpu.name,
    nccl,
    hv.env.given.NCCL_IB_DISABLE ?? '1',
    NCCL_SOURCE.ibDisable,
  );
}

function unknownPathSentence(gv: GpuVerdict, hv: HostVerdict): string {
  const why =
    gv.gpu.c2c === true && hv.source === 'matrix'
      ? t(
          'nvidia-smi prints SYS between a C2C (Grace) GPU and every NIC, even one on its own Grace CPU, so only the PCI tree in sysfs tells which NICs NCCL reaches over P2C',
        )
      : t('the path from this GPU to its NICs could not be read');
  return t('{0}: GPUDirect RDMA unknown: {1} ({2}).', gv.gpu.name, why, NCCL_SOURCE.systemFromSysfs);
}

/** How a user confirms it in NCCL's own log. */
export function confirmText(gv: GpuVerdict, hv: Pick<HostVerdict, 'network' | 'rules'>): string {
  const use = gv.primary;
  if (hv.network === 'Socket')
    return t('Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: "Using network Socket" and channel lines "via NET/Socket/<n>".');
  if (hv.network === 'plugin')
    return t(
      'Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: "Using network <the plugin\'s name>" (aws-ofi-nccl: "NET/OFI Selected provider is efa"), then channel lines "via NET/<the plugin\'s name>/<n>/GDRDMA" (no "/GDRDMA": staged through host memory).',
    );
  if (!use)
    return t('Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: "NET/IB : No device found." or channel lines "via NET/Socket".');
  const send = use.proxyGpu ? `"[send] via NET/IB/<n>(<rank of ${use.proxyGpu}>)/GDRDMA"` : '"[send] via NET/IB/<n>/GDRDMA"';
  const on = use.send.enabled !== false || use.receive.enabled !== false;
  if (on) {
    // "GPU Direct RDMA Enabled for HCA" is printed from 2.13 (topo.cc); 2.12 and older print only channel lines.
    const hca = hv.rules.hcaGdrLine ? t('"NET/IB : GPU Direct RDMA Enabled for HCA <n> \'{0}\'", and ', use.net.device) : '';
    return t(
      'Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: {0}for {1}\'s connections {2} and "[receive] via NET/IB/<n>/GDRDMA" (no "/GDRDMA": staged through host memory).',
      hca,
      gv.gpu.name,
      send,
    );
  }
  return (
    t('Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: {0}\'s channel lines say "via NET/IB/<n>" without "/GDRDMA"', gv.gpu.name) +
    offLines(use, hv)
  );
}

/**
 * The lines a release prints about why GDR is off: the HCA line (from 2.13, or "(no module)" before), the per-GPU
 * one (INFO before 2.30).
 */
function offLines(use: NicUse, hv: Pick<HostVerdict, 'rules'>): string {
  const nic = use.receive.block === 'nic-support';
  if (nic)
    return hv.rules.hcaGdrLine
      ? t('; "GPU Direct RDMA Disabled for HCA" names the NIC side as the cause.')
      : t('; "GPU Direct RDMA Disabled for HCA <n> \'<name>\' (no module)" names the NIC side as the cause.');
  if (use.receive.block !== 'distance') return '.';
  return hv.rules.perGpuGdrInfo
    ? t('; "GPU Direct RDMA Disabled for GPU … / HCA … (distance a > b)" gives the distance.')
    : t('; from NCCL 2.30 the per-GPU "GPU Direct RDMA Disabled for GPU" line is printed only at NCCL_DEBUG=TRACE (a TRACE build).');
}

function routeText(gv: GpuVerdict, use: NicUse): string {
  if (use.path === 'PXN' && use.proxyGpu) {
    return t(
      "through {0} (PXN: {1}'s own path is {2}, so NCCL relays its sends over NVLink to {0}, whose path to the NIC is {3}; {4})",
      use.proxyGpu,
      gv.gpu.name,
      use.direct,
      use.send.distance,
      NCCL_SOURCE.computePaths,
    );
  }
  if (use.path === 'P2C')
    return t(
      'over P2C ({0}; nvidia-smi prints SYS or NODE here, it does not count C2C; {1})',
      pathMeaning('P2C'),
      NCCL_SOURCE.computePaths,
    );
  if (use.path !== use.direct)
    return t('over {0} (its {1} path, routed through the CPU because GPUDirect RDMA is off for it)', use.path, use.direct);
  return t('over {0} ({1})', use.path, pathMeaning(use.path));
}

/** `mlx5_0:1`, or `mlx5_0` when its ports were not read. */
export function netLabel(net: TableNet): string {
  return net.active === null ? net.device : net.name;
}

/** The threshold in words: P2C also covers PIX and PXB, which x86 users look for. */
export function thresholdText(threshold: PathType, userSet: boolean): string {
  const named = threshold === 'P2C' ? t("P2C (PIX, PXB, or a NIC on the GPU's own Grace CPU)") : threshold;
  return userSet ? `NCCL_NET_GDR_LEVEL=${named}` : t('the default threshold {0}', named);
}

export function decisionText(d: GdrDecision, hv: HostVerdict): string {
  const level = thresholdText(d.threshold, hv.env.gdrLevel !== null);
  const judged = d.viaC2c ? 'C2C (NCCL_NET_GDR_C2C)' : d.distance;
  if (d.enabled === true) return t('GPUDirect RDMA on ({0} within {1}; {2})', judged, level, NCCL_SOURCE.checkGdr);
  if (d.enabled === null && hv.network === 'plugin' && d.unknown.every((u) => u === 'nic-support'))
    return t(
      "GPUDirect RDMA if the network plugin reports it can register GPU memory (aws-ofi-nccl: libfabric FI_HMEM, through the efa driver's peer memory or dma-buf; {0}), since {1} is within {2} ({3})",
      NCCL_SOURCE.netPlugin,
      judged,
      level,
      NCCL_SOURCE.checkGdr,
    );
  if (d.enabled === null) {
    return d.block === null && d.unknown.includes('path')
      ? t('GPUDirect RDMA unknown (the path to this NIC could not be read)')
      : t('GPUDirect RDMA on if {0} ({1} within {2})', unknownText(d.unknown), judged, level);
  }
  return t('GPUDirect RDMA off: {0}; traffic is staged through host memory', blockText(d.block as GdrBlock, d, level));
}

function blockText(block: GdrBlock, d: GdrDecision, level: string): string {
  switch (block) {
    case 'nic-support':
      return t('the NIC side reports no GPUDirect RDMA (no peer-memory client NCCL recognises, no dma-buf; {0})', NCCL_SOURCE.gdrSupport);
    case 'gpu-support':
      return t('the GPU does not support GPUDirect RDMA (cudaDevAttrGPUDirectRDMASupported)');
    case 'read-disabled':
      return t('NCCL_NET_GDR_READ=0 disables it for sends');
    case 'read-no-nvlink':
      return t(
        'sends from a GPU without an NVLink peer read through host memory when NCCL_NET_GDR_READ is unset ({0}, GDR read)',
        NCCL_SOURCE.checkGdr,
      );
    case 'distance':
      return t('{0} is beyond {1} ({2})', d.distance, level, NCCL_SOURCE.checkGdr);
  }
}

function unknownText(unknown: GdrDecision['unknown']): string {
  const words: Record<GdrDecision['unknown'][number], string> = {
    'nic-support': t('the NIC side supports it (peer memory or dma-buf not confirmed)'),
    'gpu-support': t('the GPU supports it (its model was not read)'),
    'compute-capability': t('its compute capability is 8.0 or more (not read; below that, sends need an NVLink peer)'),
    path: t('the path is known'),
    'topo-file': t('the topology file NCCL loads allows it (not read)'),
  };
  return unknown.map((u) => words[u]).join(t(' and '));
}

function sameOutcome(a: GdrDecision, b: GdrDecision): boolean {
  if (a.enabled === false && b.enabled === false) return a.block === b.block;
  return a.enabled === b.enabled && a.block === b.block && a.unknown.join() === b.unknown.join();
}

function skippedText(skipped: readonly SkippedNic[]): string {
  if (skipped.length === 0) return '';
  const why = {
    'port-not-active': t('has no active port'),
    'not-ib-or-roce': t('is neither InfiniBand nor RoCE'),
    'ib-hca': t('is left out by NCCL_IB_HCA'),
    'ib-disabled': t('is left out: NCCL_IB_DISABLE turns NET/IB off'),
  };
  const list = skipped.map((s) => `${netLabel(s.net)} (${s.direct}) ${why[s.why]}`).join('; ');
  return ' ' + t('Nearer but unused: {0} ({1}).', list, NCCL_SOURCE.initDevices);
}

/** Where the answer depends on the release, say which release changed it. */
function versionNotes(gv: GpuVerdict, hv: HostVerdict): string {
  const use = gv.primary;
  if (!use) return '';
  const notes: string[] = [];
  if (use.path === 'PXN') notes.push(t('PXN exists from NCCL 2.12 (NCCL_PXN_DISABLE=1 turns it off)'));
  if (use.path === 'P2C' || use.receive.viaC2c)
    notes.push(t('C2C-attached NICs get GPUDirect RDMA by default from NCCL 2.27 (NCCL_NET_GDR_C2C; opt-in in 2.26, none before)'));
  if (use.send.block === 'read-no-nvlink')
    notes.push(
      hv.rules.gdrReadOnlyPreAmpere
        ? t('from NCCL 2.19 this applies only below compute capability 8.0')
        : t('before NCCL 2.19 this applies to every GPU'),
    );
  return notes.length > 0 ? ' ' + t('Depends on the NCCL release: {0}.', notes.join('; ')) : '';
}

/** For hovers and the matrix: what NCCL does with a GPU↔NIC path of this class, under the assumed release. */
export function pathRuleText(path: PathType, hv: Pick<HostVerdict, 'rules' | 'env'>, threshold: PathType): string {
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const beyond = hv.rules.order.indexOf(path) > hv.rules.order.indexOf(threshold);
  const args = [nccl, path, threshold, NCCL_SOURCE.checkGdr] as const;
  return beyond
    ? t(
        '{0} does not use GPUDirect RDMA over a {1} path (beyond {2}; {3}), unless it relays through an NVLink peer nearer the NIC (PXN).',
        ...args,
      )
    : t('{0} uses GPUDirect RDMA over a {1} path (within {2}; {3}) when both sides support it.', ...args);
}
