// Turns a parsed topology (and, for a diagnosed host, its GPU↔NIC verdicts) into the one message
// the webview draws. Every word about a link comes from core/topology/linkTypes.ts, so the panel,
// the hovers and the diagnosis never disagree. No VS Code import: unit tests build it directly.
import type { GpuNicPair, SuggestedEnv } from '../../core/diagnosis';
import type { Topology } from '../../core/parsers/topo';
import { topologyGraph } from '../../core/topology/graph';
import { NCCL_DEFAULT_NET_GDR_LEVEL, classifyLink, knownLinkTypes, linkMeaning } from '../../core/topology/linkTypes';
import { NearestNic, nearestNics } from '../../core/topology/nearestNic';
import type { GpuDetail, LinkClassName, LinkExplanation, TopologyData } from '../../protocol/topology';

export interface TopologySource {
  readonly title: string;
  readonly source: string;
  readonly topology: Topology;
  /** From a diagnosis: verdicts that also know ports and NIC-side support. */
  readonly pairs?: readonly GpuNicPair[];
  readonly suggestedEnv?: SuggestedEnv;
}

export function topologyData(input: TopologySource): TopologyData {
  const { topology } = input;
  const nearest = new Map(nearestNics(topology).map((n) => [n.gpu, n]));
  const pairs = new Map((input.pairs ?? []).map((p) => [p.gpu, p]));
  const label = (nic: string) => nicLabel(topology, nic);
  return {
    title: input.title,
    source: input.source,
    gpus: topology.gpus.map((gpu) => gpuDetail(topology, gpu.name, nearest.get(gpu.name), pairs.get(gpu.name), label)),
    nics: topology.nics.map((n) => ({ name: n.name, device: n.device })),
    columns: topology.columns,
    cells: topology.columns.map((row) => topology.columns.map((column) => topology.links[row]?.[column] ?? null)),
    explanations: explanations(topology),
    graph: topologyGraph(topology),
    env: Object.entries(input.suggestedEnv?.env ?? {}).map(([name, value]) => ({ name, value })),
  };
}

/** The colour class of a token: NV<n> are all `nvlink`; SOC is the old name of SYS. */
export function linkClassOf(token: string): LinkClassName {
  const link = classifyLink(token);
  if (link.kind === 'self' || link.kind === 'nvlink' || link.kind === 'unknown') return link.kind;
  return link.legendToken === 'SOC' ? 'sys' : (link.legendToken.toLowerCase() as LinkClassName);
}

export function gdrVerdictOf(token: string): string {
  const link = classifyLink(token);
  if (link.kind === 'self') return 'The device itself: no path, no GPUDirect RDMA verdict.';
  if (link.kind === 'nvlink') return 'NVLink joins two GPUs; GPUDirect RDMA is about a GPU↔NIC PCIe path (NCCL may still reach a NIC through this NVLink peer, PXN).';
  if (link.ncclDefaultUsesGdr === null) return 'Unknown link type: whether NCCL uses GPUDirect RDMA over it is unknown.';
  const rule = `NCCL's default NCCL_NET_GDR_LEVEL=${NCCL_DEFAULT_NET_GDR_LEVEL} allows only PIX or PXB`;
  return link.ncclDefaultUsesGdr
    ? `GPUDirect RDMA: used by default between a GPU and a NIC over this path (${rule}).`
    : `GPUDirect RDMA: not used by default between a GPU and a NIC over this path; NCCL stages through host memory (${rule}).`;
}

/** Every token the matrix holds, in the legend's order, then tokens the legend does not know. */
function explanations(topology: Topology): LinkExplanation[] {
  const tokens = new Set<string>();
  for (const row of Object.values(topology.links)) for (const t of Object.values(row)) if (t !== null && t !== '') tokens.add(t);
  const order = knownLinkTypes().map((info) => info.legendToken);
  const rank = (t: string) => {
    const i = order.indexOf(classifyLink(t).legendToken);
    return i < 0 ? order.length : i;
  };
  return [...tokens].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((token) => ({
    token, linkClass: linkClassOf(token), meaning: linkMeaning(token), gdrVerdict: gdrVerdictOf(token),
  }));
}

function gpuDetail(topology: Topology, name: string, near: NearestNic | undefined, pair: GpuNicPair | undefined, label: (nic: string) => string): GpuDetail {
  const gpu = topology.gpus.find((g) => g.name === name);
  const shown = (v: string | null | undefined) => (v && v.trim() !== '' && v.trim() !== 'N/A' ? v.trim() : null);
  const numaNode = pair ? pair.numaNode : shown(gpu?.numaAffinity);
  const cpus = pair ? pair.cpus : shown(gpu?.cpuAffinity);
  const nics = pair ? pair.nics.map((n) => ({ column: n.nic, hca: n.device === null ? null : n.port === null ? n.device : `${n.device}:${n.port}` }))
    : (near?.nics ?? []).map((n) => ({ column: n.nic, hca: n.device }));
  const hcas = nics.map((n) => n.hca).filter((h): h is string => h !== null);
  const link = pair ? pair.link : near?.link ?? null;
  return {
    name, numaNode, cpus, link,
    nearestNics: nics.map((n) => label(n.column)),
    nearestNicColumns: nics.map((n) => n.column),
    gdr: pair ? pair.gdr : near?.ncclDefaultUsesGdr ?? null,
    reason: pair ? pair.reason : offlineReason(near),
    ncclIbHca: hcas.length > 0 ? `NCCL_IB_HCA==${hcas.join(',')}` : null,
    pinning: numaNode !== null && /^[\d,-]+$/.test(numaNode) ? `numactl --cpunodebind=${numaNode} --membind=${numaNode}` : null,
  };
}

function offlineReason(near: NearestNic | undefined): string {
  if (!near) return 'No RDMA NIC in this topology: nothing for GPUDirect RDMA to use.';
  return `Nearest NIC over ${near.link}. ${gdrVerdictOf(near.link)} (From the matrix alone: peer memory and NIC ports were not checked.)`;
}

function nicLabel(topology: Topology, column: string): string {
  const device = topology.nics.find((n) => n.name === column)?.device;
  return device && device !== column ? `${column} (${device})` : column;
}
