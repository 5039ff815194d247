// GPU↔NIC verdicts: for every GPU, the NIC port(s) NCCL gives it, the path class NCCL ends up with
// (PXN through an NVLink peer, P2C on Grace…), whether NCCL uses GPUDirect RDMA for its sends and
// receives, why, and how to confirm it, under the NCCL release and environment the user runs
// (topology/nccl/model.ts decides; topology/nccl/explain.ts words it). Plus where to pin the process.
import { formatCpuList, parseCpuList } from '../parsers/cpuList';
import { Numactl } from '../parsers/numactl';
import { TopoGpu, Topology } from '../parsers/topo';
import { confirmText, verdictSentence } from '../topology/nccl/explain';
import { tokenPath } from '../topology/nccl/fromMatrix';
import { GpuVerdict, HostVerdict, ncclHostVerdict } from '../topology/nccl/model';
import { PathType } from '../topology/nccl/pathType';
import { formatNcclVersion } from '../topology/nccl/version';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { hostTopology } from './hostTopology';
import { ncclIbHcaValue } from './ibHca';
import { NcclAssumptions } from './ncclAssumptions';
import { matrixModelInput, ncclModelInput } from './ncclInput';
import { t } from '../l10n';

export interface PairNic {
  /** Column name in the matrix (`NIC0`, or the device itself on older drivers); the device when the matrix lacks it. */
  readonly nic: string;
  /** RDMA device (`mlx5_0`); null when nothing names it. */
  readonly device: string | null;
  /** The port NCCL uses; null when the probe read no port. */
  readonly port: number | null;
  /** Whether that port is PORT_ACTIVE; null when its state was not read. */
  readonly portActive: boolean | null;
}

export interface GpuNicPair {
  readonly gpu: string;
  /** The NIC port(s) NCCL gives this GPU (ties kept, channel 0's first); [] when it has none. */
  readonly nics: PairNic[];
  /** The matrix's token between the GPU and the first NIC (`PXB`); its NCCL path class without a matrix; null without NICs. */
  readonly link: string | null;
  /** `link` was worked out from the sysfs PCI tree: `nvidia-smi topo -m` was not read (topology/pcie/distance.ts). */
  readonly linkDerived: boolean;
  /** NCCL's path class after its own adjustments: PIX, PXB, P2C (Grace C2C), PXN (through `proxyGpu`), PHB, SYS. */
  readonly ncclPath: PathType | null;
  /** For PXN: the GPU that relays this GPU's sends to the NIC over NVLink. */
  readonly proxyGpu: string | null;
  /** NUMA node(s) to pin to, as printed by topo (`3`, `0-3`) or derived from numactl; null when unknown. */
  readonly numaNode: string | null;
  /** CPU list to pin to; null when unknown. */
  readonly cpus: string | null;
  readonly cpuSource: 'topo' | 'numactl' | null;
  /** NCCL uses GPUDirect RDMA in both directions (true also where a supporting fact was not read; `reason` says which). */
  readonly gdr: boolean;
  /** Present only when sends and receives differ (GDR read rule). */
  readonly send?: boolean;
  readonly receive?: boolean;
  /** Why, in NCCL's terms, citing the function. */
  readonly reason: string;
  /** How to see it in NCCL's own log. */
  readonly confirm: string;
  /**
   * `NCCL_IB_HCA` value (`=mlx5_0:1`) for a job on this GPU alone: its ports, named as the whole host's value names
   * them; null without one.
   */
  readonly ncclIbHca: string | null;
  /** The NCCL release the verdict was computed for. */
  readonly ncclAssumed: string;
}

export function gpuNicPairs(ctx: RuleContext, nccl: NcclAssumptions): { pairs: GpuNicPair[]; verdict: HostVerdict | null } {
  const host = hostTopology(ctx.report);
  const verdict = ncclHostVerdict(ncclModelInput(ctx, nccl.env.NCCL_DMABUF_ENABLE !== '0'), nccl.version, nccl.env);
  if (!verdict) return { pairs: [], verdict: null };
  const numactl = factOf(ctx.report, 'numactl');
  const pairs = verdict.gpus.map((gv) => pairOf(gv, verdict, host?.topology, numactl, host?.derived === true));
  return { pairs, verdict };
}

/** Verdicts from a saved matrix alone: ports, NIC-side support and the GPUs' models are unknown, and said to be. */
export function pairsFromTopology(topo: Topology, nccl: NcclAssumptions): GpuNicPair[] {
  const verdict = ncclHostVerdict(matrixModelInput(topo), nccl.version, nccl.env);
  return verdict ? verdict.gpus.map((gv) => pairOf(gv, verdict, topo, undefined)) : [];
}

function pairOf(gv: GpuVerdict, hv: HostVerdict, topo: Topology | undefined, numactl: Numactl | undefined, derived = false): GpuNicPair {
  const column = (device: string) => topo?.nics.find((n) => (n.device ?? n.name) === device)?.name ?? device;
  const ordered = gv.primary ? [gv.primary, ...gv.uses.filter((u) => u !== gv.primary)] : [];
  const nics = ordered.map((u) => ({
    nic: column(u.net.device),
    device: u.net.device,
    port: u.net.active === null ? null : u.net.port,
    portActive: u.net.active,
  }));
  const first = ordered[0];
  const printed = first ? (topo?.links[gv.gpu.name]?.[column(first.net.device)] ?? null) : null;
  const token = first ? (printed ?? first.direct) : null;
  const send = first ? first.send.enabled !== false : false;
  const receive = first ? first.receive.enabled !== false : false;
  const topoGpu = topo?.gpus.find((g) => g.name === gv.gpu.name);
  return {
    gpu: gv.gpu.name,
    nics,
    link: token,
    linkDerived: derived && printed !== null,
    ncclPath: first?.path ?? null,
    proxyGpu: first?.proxyGpu ?? null,
    ...(topoGpu ? pinning(topoGpu, numactl) : { numaNode: null, cpus: null, cpuSource: null }),
    gdr: send && receive,
    ...(send !== receive ? { send, receive } : {}),
    reason: verdictSentence(gv, hv),
    confirm: confirmText(gv),
    ncclIbHca: ncclIbHcaValue(ordered.map((u) => u.net)),
    ncclAssumed: formatNcclVersion(hv.rules.version),
  };
}

/** The verdict in a few words, the same everywhere it is shown short (CLI, Hosts tree, topology panel). */
export function shortVerdict(p: GpuNicPair): string {
  if (p.nics.length === 0) return t('no GDR: no usable NIC');
  if (p.send === false && p.receive === true) return t('GDR receives only');
  if (p.send === true && p.receive === false) return t('GDR sends only');
  if (!p.gdr) return t('GDR no');
  return p.proxyGpu ? t('GDR yes via {0} (PXN)', p.proxyGpu) : p.ncclPath === 'P2C' ? t('GDR yes (C2C)') : t('GDR yes');
}

/**
 * The path as shown beside the NIC: the matrix token (`, derived` when from the PCI tree), and NCCL's class where NCCL
 * sees another one.
 */
export function pathLabel(p: GpuNicPair): string {
  if (p.link === null) return '-';
  const token = p.linkDerived ? `${p.link}, ${t('derived')}` : p.link;
  const plain = tokenPath(p.link);
  return p.ncclPath === null || p.ncclPath === plain ? token : `${token} → NCCL ${p.ncclPath}`;
}

/** topo's affinity columns; numactl fills in what they leave out (N/A, empty, an old driver without them). */
function pinning(gpu: TopoGpu, numactl: Numactl | undefined): Pick<GpuNicPair, 'numaNode' | 'cpus' | 'cpuSource'> {
  const shown = (v: string | null) => (v !== null && v.trim() !== '' && v.trim() !== 'N/A' ? v.trim() : null);
  const cpus = shown(gpu.cpuAffinity);
  let numaNode = shown(gpu.numaAffinity);
  const nodes = numactl?.nodes ?? [];
  if (numaNode === null && cpus !== null) numaNode = nodesHolding(cpus, nodes);
  if (cpus !== null) return { numaNode, cpus, cpuSource: 'topo' };
  const ids = numaNode === null ? null : parseCpuList(numaNode);
  const chosen = ids?.ok ? nodes.filter((n) => ids.value.includes(n.id)) : [];
  const fromNuma = chosen.flatMap((n) => n.cpus);
  return fromNuma.length > 0
    ? { numaNode, cpus: formatCpuList(fromNuma), cpuSource: 'numactl' }
    : { numaNode, cpus: null, cpuSource: null };
}

/** The NUMA node(s) whose CPUs cover an affinity list exactly, or null. */
function nodesHolding(cpuText: string, nodes: Numactl['nodes']): string | null {
  const cpus = parseCpuList(cpuText);
  if (!cpus.ok || cpus.value.length === 0) return null;
  const ids = nodes.filter((n) => n.cpus.some((c) => cpus.value.includes(c))).map((n) => n.id);
  const covered = nodes.filter((n) => ids.includes(n.id)).flatMap((n) => n.cpus);
  return ids.length > 0 && covered.length === cpus.value.length ? formatCpuList(ids) : null;
}
