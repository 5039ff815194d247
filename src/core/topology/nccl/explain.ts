// The words of a GPU's NCCL verdict, written once: the CLI, the Hosts tree, the topology panel and the
// reports all show these sentences. Each names the NCCL function it follows and, where the answer
// depends on the release, the release that changed it.
import { GdrDecision, GdrBlock } from './checkGdr';
import { GpuVerdict, HostVerdict, NicUse, SkippedNic } from './model';
import { TableNet } from './pathTable';
import { PATH_MEANING, PathType } from './pathType';
import { formatNcclVersion } from './version';

export const NCCL_SOURCE = {
  checkGdr: 'NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr',
  computePaths: 'NVIDIA/nccl src/graph/paths.cc ncclTopoComputePaths',
  getLocal: 'NVIDIA/nccl src/graph/topo.cc ncclTopoGetLocal/ncclTopoGetLocalNet',
  initDevices: 'NVIDIA/nccl src/transport/net_ib/init.cc (ports not PORT_ACTIVE are skipped; NCCL_IB_HCA filters)',
  gdrSupport: 'NVIDIA/nccl src/transport/net_ib/gdr.cc ncclIbGdrSupport; src/graph/topo.cc "GPU Direct RDMA Enabled/Disabled for HCA"',
  systemFromSysfs: 'NVIDIA/nccl src/graph/xml.cc ncclTopoGetXmlFromSys',
} as const;

/** One sentence per direction, or one for both when they agree. */
export function verdictSentence(gv: GpuVerdict, hv: HostVerdict): string {
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const use = gv.primary;
  if (!use && gv.unknownPaths) return unknownPathSentence(gv, hv);
  if (!use) return `${gv.gpu.name}: ${nccl} finds no usable RDMA NIC port for it, so it has no GPUDirect RDMA path (${NCCL_SOURCE.initDevices}).${skippedText(gv.skipped)}`;
  const route = routeText(gv, use);
  const both = sameOutcome(use.send, use.receive);
  const outcome = both
    ? `${decisionText(use.receive, hv)} for sends and receives`
    : `sends: ${decisionText(use.send, hv)}; receives: ${decisionText(use.receive, hv)}`;
  return `${gv.gpu.name} → ${netLabel(use.net)} ${route}. ${nccl}: ${outcome}.${skippedText(gv.skipped)}${versionNotes(gv, hv)}`;
}

function unknownPathSentence(gv: GpuVerdict, hv: HostVerdict): string {
  const why = gv.gpu.c2c === true && hv.source === 'matrix'
    ? 'nvidia-smi prints SYS between a C2C (Grace) GPU and every NIC, even one on its own Grace CPU, so only the PCI tree in sysfs tells which NICs NCCL reaches over P2C'
    : 'the path from this GPU to its NICs could not be read';
  return `${gv.gpu.name}: GPUDirect RDMA unknown: ${why} (${NCCL_SOURCE.systemFromSysfs}).`;
}

/** How a user confirms it in NCCL's own log. */
export function confirmText(gv: GpuVerdict): string {
  const use = gv.primary;
  if (!use) return 'Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: "NET/IB : No device found." or channel lines "via NET/Socket".';
  const hca = `"NET/IB : GPU Direct RDMA Enabled for HCA <n> '${use.net.device}'"`;
  const send = use.proxyGpu ? `"[send] via NET/IB/<n>(<rank of ${use.proxyGpu}>)/GDRDMA"` : '"[send] via NET/IB/<n>/GDRDMA"';
  const on = use.send.enabled !== false || use.receive.enabled !== false;
  return on
    ? `Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: ${hca}, and for ${gv.gpu.name}'s connections ${send} and "[receive] via NET/IB/<n>/GDRDMA" (no "/GDRDMA": staged through host memory).`
    : `Confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: ${gv.gpu.name}'s channel lines say "via NET/IB/<n>" without "/GDRDMA"; "GPU Direct RDMA Disabled for HCA" when the NIC side is the cause.`;
}

function routeText(gv: GpuVerdict, use: NicUse): string {
  if (use.path === 'PXN' && use.proxyGpu) {
    return `through ${use.proxyGpu} (PXN: ${gv.gpu.name}'s own path is ${use.direct}, so NCCL relays its sends over NVLink to ${use.proxyGpu}, ` +
      `whose path to the NIC is ${use.send.distance}; ${NCCL_SOURCE.computePaths})`;
  }
  if (use.path === 'P2C') return `over P2C (${PATH_MEANING.P2C}; nvidia-smi prints SYS or NODE here, it does not count C2C; ${NCCL_SOURCE.computePaths})`;
  if (use.path !== use.direct) return `over ${use.path} (its ${use.direct} path, routed through the CPU because GPUDirect RDMA is off for it)`;
  return `over ${use.path} (${PATH_MEANING[use.path]})`;
}

/** `mlx5_0:1`, or `mlx5_0` when its ports were not read. */
export function netLabel(net: TableNet): string {
  return net.active === null ? net.device : net.name;
}

/** The threshold in words: P2C also covers PIX and PXB, which x86 users look for. */
export function thresholdText(threshold: PathType, userSet: boolean): string {
  const named = threshold === 'P2C' ? 'P2C (PIX, PXB, or a NIC on the GPU\'s own Grace CPU)' : threshold;
  return userSet ? `NCCL_NET_GDR_LEVEL=${named}` : `the default threshold ${named}`;
}

export function decisionText(d: GdrDecision, hv: HostVerdict): string {
  const level = thresholdText(d.threshold, hv.env.gdrLevel !== null);
  const judged = d.viaC2c ? 'C2C (NCCL_NET_GDR_C2C)' : d.distance;
  if (d.enabled === true) return `GPUDirect RDMA on (${judged} within ${level}; ${NCCL_SOURCE.checkGdr})`;
  if (d.enabled === null) {
    return d.block === null && d.unknown.includes('path')
      ? 'GPUDirect RDMA unknown (the path to this NIC could not be read)'
      : `GPUDirect RDMA on if ${unknownText(d.unknown)} (${judged} within ${level})`;
  }
  return `GPUDirect RDMA off: ${blockText(d.block as GdrBlock, d, level)}; traffic is staged through host memory`;
}

function blockText(block: GdrBlock, d: GdrDecision, level: string): string {
  switch (block) {
    case 'nic-support': return `the NIC side reports no GPUDirect RDMA (no peer-memory client NCCL recognises, no dma-buf; ${NCCL_SOURCE.gdrSupport})`;
    case 'gpu-support': return 'the GPU does not support GPUDirect RDMA (cudaDevAttrGPUDirectRDMASupported)';
    case 'read-disabled': return 'NCCL_NET_GDR_READ=0 disables it for sends';
    case 'read-no-nvlink': return `sends from a GPU without an NVLink peer read through host memory when NCCL_NET_GDR_READ is unset (${NCCL_SOURCE.checkGdr}, GDR read)`;
    case 'distance': return `${d.distance} is beyond ${level} (${NCCL_SOURCE.checkGdr})`;
  }
}

function unknownText(unknown: GdrDecision['unknown']): string {
  const words: Record<GdrDecision['unknown'][number], string> = {
    'nic-support': 'the NIC side supports it (peer memory or dma-buf not confirmed)',
    'gpu-support': 'the GPU supports it (its model was not read)',
    'compute-capability': 'its compute capability is 8.0 or more (not read; below that, sends need an NVLink peer)',
    path: 'the path is known',
  };
  return unknown.map((u) => words[u]).join(' and ');
}

function sameOutcome(a: GdrDecision, b: GdrDecision): boolean {
  if (a.enabled === false && b.enabled === false) return a.block === b.block;
  return a.enabled === b.enabled && a.block === b.block && a.unknown.join() === b.unknown.join();
}

function skippedText(skipped: readonly SkippedNic[]): string {
  if (skipped.length === 0) return '';
  const why = { 'port-not-active': 'has no active port', 'not-ib-or-roce': 'is neither InfiniBand nor RoCE', 'ib-hca': 'is left out by NCCL_IB_HCA' } as const;
  const list = skipped.map((s) => `${netLabel(s.net)} (${s.direct}) ${why[s.why]}`).join('; ');
  return ` Nearer but unused: ${list} (${NCCL_SOURCE.initDevices}).`;
}

/** Where the answer depends on the release, say which release changed it. */
function versionNotes(gv: GpuVerdict, hv: HostVerdict): string {
  const use = gv.primary;
  if (!use) return '';
  const notes: string[] = [];
  if (use.path === 'PXN') notes.push('PXN exists from NCCL 2.12 (NCCL_PXN_DISABLE=1 turns it off)');
  if (use.path === 'P2C' || use.receive.viaC2c) notes.push('C2C-attached NICs get GPUDirect RDMA by default from NCCL 2.27 (NCCL_NET_GDR_C2C; opt-in in 2.26, none before)');
  if (use.send.block === 'read-no-nvlink') notes.push(hv.rules.gdrReadOnlyPreAmpere ? 'from NCCL 2.19 this applies only below compute capability 8.0' : 'before NCCL 2.19 this applies to every GPU');
  return notes.length > 0 ? ` Depends on the NCCL release: ${notes.join('; ')}.` : '';
}

/** For hovers and the matrix: what NCCL does with a GPU↔NIC path of this class, under the assumed release. */
export function pathRuleText(path: PathType, hv: Pick<HostVerdict, 'rules' | 'env'>, threshold: PathType): string {
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const beyond = hv.rules.order.indexOf(path) > hv.rules.order.indexOf(threshold);
  return beyond
    ? `${nccl} does not use GPUDirect RDMA over a ${path} path (beyond ${threshold}; ${NCCL_SOURCE.checkGdr}), unless it relays through an NVLink peer nearer the NIC (PXN).`
    : `${nccl} uses GPUDirect RDMA over a ${path} path (within ${threshold}; ${NCCL_SOURCE.checkGdr}) when both sides support it.`;
}
