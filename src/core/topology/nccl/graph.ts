// NCCL's topology graph and its path search: nodes (GPU, PCI switch, CPU = NUMA node, NIC, NET =
// one usable port) joined by typed links with a bandwidth, and the breadth-first search that gives
// every node its path type and bandwidth to a base node (src/graph/topo.cc ncclTopoConnectNodes,
// src/graph/paths.cc ncclTopoSetPaths, as of NCCL 2.30).
import { PathType, pathRank, worse } from './pathType';

export type NodeKind = 'GPU' | 'PCI' | 'CPU' | 'NIC' | 'NET';
export type LinkKind = 'LOC' | 'NVL' | 'C2C' | 'PCI' | 'SYS' | 'NET';

export interface TopoLink {
  readonly kind: LinkKind;
  bw: number;
  readonly to: TopoNode;
}

export interface TopoNode {
  readonly kind: NodeKind;
  /** Unique within its kind: a bus address, a NUMA id, `mlx5_0:1`. */
  readonly id: string;
  readonly links: TopoLink[];
}

/** A node's path to the search's base: its class, bandwidth, hop count and the next node toward the base. */
export interface NodePath {
  readonly type: PathType;
  readonly bw: number;
  readonly count: number;
  readonly next: TopoNode | null;
}

export class TopoGraph {
  readonly nodes: TopoNode[] = [];

  node(kind: NodeKind, id: string): TopoNode {
    const found = this.find(kind, id);
    if (found) return found;
    const created: TopoNode = { kind, id, links: [] };
    this.nodes.push(created);
    return created;
  }

  find(kind: NodeKind, id: string): TopoNode | undefined {
    return this.nodes.find((n) => n.kind === kind && n.id === id);
  }

  /** Both directions; a second link of the same kind between the same nodes adds bandwidth (bonded NVLinks). */
  connect(a: TopoNode, b: TopoNode, kind: LinkKind, bw: number): void {
    addLink(a, b, kind, bw);
    addLink(b, a, kind, bw);
  }
}

function addLink(from: TopoNode, to: TopoNode, kind: LinkKind, bw: number): void {
  const existing = from.links.find((l) => l.to === to && l.kind === kind);
  if (existing) existing.bw += bw;
  else from.links.push({ kind, bw, to });
  // ncclTopoConnectNodes keeps links sorted by bandwidth, highest first: the search visits them in that order.
  from.links.sort((x, y) => y.bw - x.bw);
}

const LINK_PATH: Record<LinkKind, PathType> = { LOC: 'LOC', NVL: 'NVL', C2C: 'C2C', PCI: 'PIX', SYS: 'SYS', NET: 'LOC' };

/** Local bandwidth of a node to itself (LOC_BW in src/graph/topo.h). */
export const LOC_BW = 5000;

/**
 * ncclTopoSetPaths: every node's path to `base`. A path class is the worst of its links' classes, where
 * PCI switch to PCI switch counts as PXB and a PCI link into or out of a CPU as PHB. A path never passes
 * through a GPU, except one NVLink hop between two GPUs (NVB) when the base is a GPU.
 */
export function pathsTo(base: TopoNode, order: readonly PathType[]): Map<TopoNode, NodePath> {
  const paths = new Map<TopoNode, NodePath>([[base, { type: 'LOC', bw: LOC_BW, count: 0, next: null }]]);
  let frontier = [base];
  while (frontier.length > 0) {
    const next: TopoNode[] = [];
    for (const node of frontier) {
      const path = paths.get(node) as NodePath;
      for (const link of node.links) {
        const candidate = extend(base, node, path, link, order);
        if (!candidate || !better(candidate, paths.get(link.to), order)) continue;
        paths.set(link.to, candidate);
        if (!next.includes(link.to)) next.push(link.to);
      }
    }
    frontier = next;
  }
  return paths;
}

function extend(base: TopoNode, node: TopoNode, path: NodePath, link: TopoLink, order: readonly PathType[]): NodePath | null {
  const rem = link.to;
  const nvb = base.kind === 'GPU' && link.kind === 'NVL' && rem.kind === 'GPU' && path.count <= 1;
  if (node !== base && node.kind === 'GPU' && !nvb) return null;
  let type = LINK_PATH[link.kind];
  if (node.kind === 'PCI' && rem.kind === 'PCI') type = 'PXB';
  if (link.kind === 'PCI' && (node.kind === 'CPU' || rem.kind === 'CPU')) type = 'PHB';
  if (nvb && node !== base && path.type === 'NVL' && type === 'NVL') type = 'NVB';
  return { type: worse(path.type, type, order), bw: Math.min(path.bw, link.bw), count: path.count + 1, next: node };
}

/** A better class, or the same class with more bandwidth, or the same with fewer hops. */
function better(candidate: NodePath, current: NodePath | undefined, order: readonly PathType[]): boolean {
  if (!current) return true;
  const c = pathRank(candidate.type, order);
  const r = pathRank(current.type, order);
  return c < r || (c === r && current.bw < candidate.bw) || (c === r && current.bw === candidate.bw && current.count > candidate.count);
}
