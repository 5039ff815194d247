// The physical layout `nvidia-smi topo -m` implies: NUMA nodes → PCIe groups (devices joined by
// PIX/PXB, i.e. behind the same PCIe switch tree without crossing a host bridge) → GPUs and NICs,
// plus the NVLink edges between GPUs. Inferred from the matrix alone: a drawing aid, not a fact.
import type { Topology } from '../parsers/topo';
import { classifyLink } from './linkTypes';

export interface PcieGroup {
  /** `pcie0`, `pcie1`, … in order of each group's first device column. */
  readonly id: string;
  /** Device names (GPUs and NICs) in column order. */
  readonly devices: string[];
}

export interface NumaNodeGroups {
  /** The NUMA node as topo prints it (`0`, `0-1`), or null when nothing says. */
  readonly node: string | null;
  readonly groups: PcieGroup[];
}

export interface NvlinkEdge {
  readonly a: string;
  readonly b: string;
  /** As printed, e.g. `NV18`. */
  readonly token: string;
}

export interface TopologyGraph {
  /** Known nodes in ascending order, then the devices whose node is unknown. */
  readonly numaNodes: NumaNodeGroups[];
  readonly nvlinks: NvlinkEdge[];
}

const SAME_SWITCH = new Set(['PIX', 'PXB']);
/** Paths that stay inside one NUMA node (SYS crosses NUMA nodes: sockets, or NPS2/NPS4 nodes of one socket). */
const SAME_NODE = new Set(['PIX', 'PXB', 'PHB', 'NODE']);

export function topologyGraph(topology: Topology): TopologyGraph {
  const groups = pcieGroups(topology);
  const nodeOf = numaOfDevices(topology);
  const byNode = new Map<string | null, PcieGroup[]>();
  for (const group of groups) {
    const node = group.devices.map((d) => nodeOf.get(d)).find((n) => n !== undefined) ?? null;
    byNode.set(node, [...(byNode.get(node) ?? []), group]);
  }
  const known = [...byNode.keys()].filter((n): n is string => n !== null).sort(compareNodes);
  const numaNodes = [...known, ...(byNode.has(null) ? [null] : [])].map((node) => ({ node, groups: byNode.get(node) ?? [] }));
  return { numaNodes, nvlinks: nvlinkEdges(topology) };
}

/** The link between two devices, read from either row (NIC rows may be absent). */
export function linkBetween(topology: Topology, a: string, b: string): string | null {
  return topology.links[a]?.[b] ?? topology.links[b]?.[a] ?? null;
}

function pcieGroups(topology: Topology): PcieGroup[] {
  const devices = topology.columns;
  const parent = new Map(devices.map((d) => [d, d]));
  const find = (d: string): string => {
    let root = d;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    return root;
  };
  for (let i = 0; i < devices.length; i++) {
    for (let j = i + 1; j < devices.length; j++) {
      if (SAME_SWITCH.has(linkBetween(topology, devices[i], devices[j]) ?? '')) parent.set(find(devices[j]), find(devices[i]));
    }
  }
  const members = new Map<string, string[]>();
  for (const d of devices) members.set(find(d), [...(members.get(find(d)) ?? []), d]);
  return [...members.values()].map((list, i) => ({ id: `pcie${i}`, devices: list }));
}

/** GPUs say their node (NUMA Affinity); a NIC takes the node of a GPU it reaches without crossing NUMA nodes. */
function numaOfDevices(topology: Topology): Map<string, string> {
  const nodeOf = new Map<string, string>();
  for (const gpu of topology.gpus) {
    const node = gpu.numaAffinity?.trim() ?? '';
    if (node !== '' && node !== 'N/A') nodeOf.set(gpu.name, node);
  }
  for (const nic of topology.nics) {
    const gpu = topology.gpus.find((g) => nodeOf.has(g.name) && SAME_NODE.has(linkBetween(topology, g.name, nic.name) ?? ''));
    if (gpu) nodeOf.set(nic.name, nodeOf.get(gpu.name) ?? '');
  }
  return nodeOf;
}

function nvlinkEdges(topology: Topology): NvlinkEdge[] {
  const edges: NvlinkEdge[] = [];
  const gpus = topology.gpus.map((g) => g.name);
  for (let i = 0; i < gpus.length; i++) {
    for (let j = i + 1; j < gpus.length; j++) {
      const token = linkBetween(topology, gpus[i], gpus[j]);
      if (token !== null && classifyLink(token).kind === 'nvlink') edges.push({ a: gpus[i], b: gpus[j], token });
    }
  }
  return edges;
}

function compareNodes(a: string, b: string): number {
  return parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b);
}
