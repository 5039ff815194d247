// GPU↔NIC verdicts (issue #4 §2): for every GPU, its nearest RDMA NIC(s) in `nvidia-smi topo -m`,
// the RDMA device and active port behind each, where to pin the process (NUMA node, CPUs), and
// whether NCCL's default rule uses GPUDirect RDMA for it (DOMAIN.md §2), said in NCCL's own terms.
import { IbvDevinfo, portState } from '../parsers/ibvDevinfo';
import { formatCpuList, parseCpuList } from '../parsers/cpuList';
import { Numactl } from '../parsers/numactl';
import { TopoGpu, Topology } from '../parsers/topo';
import { NCCL_DEFAULT_NET_GDR_LEVEL, NcclPathClass, classifyLink } from '../topology/linkTypes';
import { nearestNics } from '../topology/nearestNic';
import { factOf } from './evidence';
import { RuleContext } from './context';
import { nicSideSupport, NicSideSupport } from './support';

export interface PairNic {
  /** Column name in the matrix (`NIC0`, or the device itself on older drivers). */
  readonly nic: string;
  /** RDMA device (`mlx5_0`), through the NIC legend; null when the output does not name it. */
  readonly device: string | null;
  /** First PORT_ACTIVE port from ibv_devinfo; null when ibv_devinfo did not show the device or none is active. */
  readonly port: number | null;
  /** Whether ibv_devinfo shows an active port; null when it did not show the device. */
  readonly portActive: boolean | null;
}

export interface GpuNicPair {
  readonly gpu: string;
  /** The nearest NICs (ties kept, column order); [] when the host has none. */
  readonly nics: PairNic[];
  /** Link token as printed (`PXB`); null without NICs. */
  readonly link: string | null;
  /** NCCL's path class for it (NODE counts as PHB, SOC as SYS); null without NICs or for an unknown token. */
  readonly ncclPath: NcclPathClass | null;
  /** NUMA node(s) to pin to, as printed by topo (`3`, `0-3`) or derived from numactl; null when unknown. */
  readonly numaNode: string | null;
  /** CPU list to pin to; null when unknown. */
  readonly cpus: string | null;
  readonly cpuSource: 'topo' | 'numactl' | null;
  /** Whether NCCL, with its defaults, uses GPUDirect RDMA between this GPU and its nearest NIC. */
  readonly gdr: boolean;
  /** Why, in NCCL's terms. */
  readonly reason: string;
}

export function gpuNicPairs(ctx: RuleContext): GpuNicPair[] {
  const topo = factOf(ctx.report, 'topo');
  if (!topo) return [];
  const nearest = new Map(nearestNics(topo).map((n) => [n.gpu, n]));
  const ibv = factOf(ctx.report, 'ibv');
  const numactl = factOf(ctx.report, 'numactl');
  const support = nicSideSupport(ctx);
  return topo.gpus.map((gpu) => {
    const near = nearest.get(gpu.name);
    const nics = (near?.nics ?? []).map((n) => ({ nic: n.nic, device: n.device, ...activePort(ibv, n.device) }));
    const link = near ? classifyLink(near.link) : null;
    const pin = pinning(gpu, numactl);
    const verdict = link ? judge(gpu.name, near?.link ?? '', link.ncclPath, link.ncclDefaultUsesGdr, support, pxnPeer(topo, gpu.name, nearest)) : noNic();
    return { gpu: gpu.name, nics, link: near?.link ?? null, ncclPath: link?.ncclPath ?? null, ...pin, ...verdict };
  });
}

function noNic(): { gdr: boolean; reason: string } {
  return { gdr: false, reason: 'no RDMA NIC in the topology: NCCL has no network device to use GPUDirect RDMA with' };
}

function judge(gpu: string, token: string, path: NcclPathClass | null, nearEnough: boolean | null, support: NicSideSupport, pxn: string | null) {
  const level = NCCL_DEFAULT_NET_GDR_LEVEL;
  const shown = path === token ? `path ${path}` : `path ${path} (${token})`;
  if (nearEnough === null || path === null) {
    return { gdr: false, reason: `link ${token} is not a PCIe path NCCL ranks (unknown token): GPU Direct RDMA not assumed` };
  }
  if (!nearEnough) {
    const via = pxn ? `; with PXN (default on) NCCL may instead send through NVLink peer ${pxn}, whose NIC path is within ${level}` : '';
    return { gdr: false, reason: `${shown} is beyond NCCL_NET_GDR_LEVEL=${level} (default): NCCL disables GPU Direct RDMA for ${gpu} and stages through host memory${via}` };
  }
  if (support.ok === false) return { gdr: false, reason: `${shown} is within NCCL_NET_GDR_LEVEL=${level}, but ${support.why}: NCCL disables GPU Direct RDMA` };
  const unconfirmed = support.ok === null ? ` (NIC-side support not confirmed: ${support.why})` : '';
  return { gdr: true, reason: `${shown} is within NCCL_NET_GDR_LEVEL=${level} (default): NCCL enables GPU Direct RDMA${unconfirmed}` };
}

/** An NVLink peer whose own nearest NIC is close enough: NCCL's PXN can proxy through it (DOMAIN.md §2). */
function pxnPeer(topo: Topology, gpu: string, nearest: ReadonlyMap<string, { ncclDefaultUsesGdr: boolean | null }>): string | null {
  const peer = topo.gpus.find((g) => g.name !== gpu && /^NV\d+$/.test(topo.links[gpu]?.[g.name] ?? '') && nearest.get(g.name)?.ncclDefaultUsesGdr === true);
  return peer?.name ?? null;
}

function activePort(ibv: IbvDevinfo | undefined, device: string | null): { port: number | null; portActive: boolean | null } {
  const dev = ibv && device ? ibv.devices.find((d) => d.hca_id === device) : undefined;
  if (!dev) return { port: null, portActive: null };
  const active = dev.ports.find((p) => portState(p) === 'ACTIVE');
  return { port: active?.port ?? null, portActive: active !== undefined };
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
  return fromNuma.length > 0 ? { numaNode, cpus: formatCpuList(fromNuma), cpuSource: 'numactl' } : { numaNode, cpus: null, cpuSource: null };
}

/** The NUMA node(s) whose CPUs cover an affinity list exactly, or null. */
function nodesHolding(cpuText: string, nodes: Numactl['nodes']): string | null {
  const cpus = parseCpuList(cpuText);
  if (!cpus.ok || cpus.value.length === 0) return null;
  const ids = nodes.filter((n) => n.cpus.some((c) => cpus.value.includes(c))).map((n) => n.id);
  const covered = nodes.filter((n) => ids.includes(n.id)).flatMap((n) => n.cpus);
  return ids.length > 0 && covered.length === cpus.value.length ? formatCpuList(ids) : null;
}
