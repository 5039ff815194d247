// What the graph draws, before any geometry: the real PCIe tree when the extension sent one, else the
// layout the matrix implies (NUMA node → PCIe group → devices, a drawing aid); NVLink as hubs where the
// GPUs form a full mesh (an NVSwitch or all-to-all NV# cells: one hub, not n·(n−1)/2 arcs) and as single
// edges elsewhere. Pure: no DOM, unit-tested.
import { t } from '@vscode/l10n';
import type { BridgeMark, TopologyData, TreeLinkData, TreeNodeKind } from '../protocol/topology';

export type GraphNodeKind = TreeNodeKind | 'group';

export interface GraphNode {
  readonly id: string;
  readonly kind: GraphNodeKind;
  readonly parent: string | null;
  readonly label: string;
  /** Second line: a short bus address, `inferred`, a NIC's column. */
  readonly sublabel: string;
  readonly explanation: string;
  /** NCCL's rule for the distances it stands for, with its source: said last; '' where none applies. */
  readonly why: string;
  /** GPUs and NICs: the matrix column the verdicts name them by. */
  readonly column: string | null;
  readonly link: TreeLinkData | null;
  readonly marks: readonly BridgeMark[];
}

export interface NvlinkHub {
  readonly id: string;
  /** GPU columns. */
  readonly members: readonly string[];
  /** `NV18`, or `NV12–NV18` where the mesh mixes counts. */
  readonly token: string;
}

export interface NvlinkEdge {
  readonly a: string;
  readonly b: string;
  readonly token: string;
}

export interface GraphModel {
  /** True: the real tree from sysfs; false: inferred from the matrix. */
  readonly real: boolean;
  /** Parents before children. */
  readonly nodes: readonly GraphNode[];
  readonly hubs: readonly NvlinkHub[];
  /** NVLinks not drawn through a hub. */
  readonly nvlinks: readonly NvlinkEdge[];
  /** GPU columns with an NVLink-C2C link to their CPU. */
  readonly c2c: readonly string[];
}

export function graphModel(data: TopologyData): GraphModel {
  const nodes = data.graph.tree ? treeNodes(data) : inferredNodes(data);
  const placed = new Set(nodes.map((n) => n.column).filter((c): c is string => c !== null));
  const links = data.graph.nvlinks.filter((l) => placed.has(l.a) && placed.has(l.b));
  const { hubs, rest } = nvlinkHubs(links);
  return { real: data.graph.tree !== null, nodes, hubs, nvlinks: rest, c2c: data.graph.c2cGpus.filter((g) => placed.has(g)) };
}

function treeNodes(data: TopologyData): GraphNode[] {
  const tree = data.graph.tree;
  if (!tree) return [];
  return tree.nodes.map((n) => ({
    id: n.id,
    kind: n.kind,
    parent: n.parent,
    label: n.label,
    sublabel: n.kind === 'cpu' ? n.detail : sublabelOf(n.kind, n.id, n.column, n.label),
    explanation: n.explanation,
    why: n.why,
    column: n.column,
    link: n.link,
    marks: tree.marks.filter((m) => n.bridges.includes(m.bridge)),
  }));
}

/** A leaf's bus address without the usual domain (`18:00.0`); a NIC named by device also shows its column. */
function sublabelOf(kind: GraphNodeKind, id: string, column: string | null, label: string): string {
  const bus = id.replace(/^0000:/, '');
  if (kind === 'nic' && column !== null && column !== label) return `${column} · ${bus}`;
  if (kind === 'host-bridge') return id;
  return bus;
}

function inferredNodes(data: TopologyData): GraphNode[] {
  const nodes: GraphNode[] = [];
  const base = { link: null, marks: [], why: '' };
  for (const numa of data.graph.numaNodes) {
    const cpu = `numa:${numa.node ?? '?'}`;
    const where = numa.node === null ? t('NUMA node unknown') : t('NUMA node {0}', numa.node);
    nodes.push({
      ...base,
      id: cpu,
      kind: 'cpu',
      parent: null,
      label: numa.node === null ? 'CPU' : `CPU ${numa.node}`,
      sublabel: where,
      column: null,
      explanation: t(
        "{0}, as the matrix's NUMA Affinity column says (inferred: sysfs was not read, so no host bridges or switches are known).",
        where,
      ),
    });
    for (const group of numa.groups) {
      const id = `${cpu}/${group.id}`;
      nodes.push({
        ...base,
        id,
        kind: 'group',
        parent: cpu,
        label: t('PCIe group {0}', group.id.replace('pcie', '')),
        sublabel: t('inferred'),
        column: null,
        explanation: t(
          "Devices the matrix puts PIX or PXB apart ({0}): below common PCIe switches, without the CPU's host bridge. Inferred from the matrix alone; the real tree needs the PCI tree from sysfs (diagnose the host).",
          group.devices.join(', '),
        ),
      });
      for (const device of group.devices) nodes.push(inferredLeaf(data, device, id));
    }
  }
  return nodes;
}

function inferredLeaf(data: TopologyData, device: string, parent: string): GraphNode {
  const gpu = data.gpus.find((g) => g.name === device);
  const nic = data.nics.find((n) => n.name === device);
  const label = nic?.device ?? device;
  // A GPU's verdict and NCCL's reasoning are said by the graph's words (nodeText), first and last.
  const explanation = gpu
    ? t('{0}: a GPU.', device)
    : t('{0}: an RDMA NIC.', `${device}${nic?.device && nic.device !== device ? ` = ${nic.device}` : ''}`);
  return {
    id: device,
    kind: gpu ? 'gpu' : 'nic',
    parent,
    label,
    sublabel: label !== device ? device : '',
    explanation,
    why: '',
    column: device,
    link: null,
    marks: [],
  };
}

/**
 * Connected groups of GPUs over NVLink; a group where every pair is linked (3 GPUs or more) becomes one
 * hub, the rest stay single edges. Group order follows the first link of each.
 */
export function nvlinkHubs(links: readonly NvlinkEdge[]): { hubs: NvlinkHub[]; rest: NvlinkEdge[] } {
  const groups = components(links);
  const hubs: NvlinkHub[] = [];
  const rest: NvlinkEdge[] = [];
  for (const members of groups) {
    const own = links.filter((l) => members.includes(l.a));
    const full = members.length >= 3 && own.length === (members.length * (members.length - 1)) / 2;
    if (full) hubs.push({ id: `hub${hubs.length}`, members, token: tokenRange(own.map((l) => l.token)) });
    else rest.push(...own);
  }
  return { hubs, rest };
}

function components(links: readonly NvlinkEdge[]): string[][] {
  const groups: string[][] = [];
  for (const { a, b } of links) {
    const ga = groups.find((g) => g.includes(a));
    const gb = groups.find((g) => g.includes(b));
    if (ga && gb && ga !== gb) {
      ga.push(...gb);
      groups.splice(groups.indexOf(gb), 1);
    } else if (ga && !gb) ga.push(b);
    else if (gb && !ga) gb.push(a);
    else if (!ga && !gb) groups.push([a, b]);
  }
  return groups;
}

function tokenRange(tokens: readonly string[]): string {
  const counts = [...new Set(tokens)].sort((x, y) => nvCount(x) - nvCount(y));
  return counts.length === 1 ? counts[0] : `${counts[0]}–${counts[counts.length - 1]}`;
}

function nvCount(token: string): number {
  return Number(/^NV(\d+)$/.exec(token)?.[1] ?? 0);
}
