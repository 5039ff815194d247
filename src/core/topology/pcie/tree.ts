// The machine's PCIe tree between its GPUs and RDMA NICs, from the probe's sysfs read: a CPU per NUMA
// node, the PCIe host bridges (root complexes) under it, the PCIe switches below them and the GPUs,
// NVSwitches and NICs as leaves, each with the link to its parent. A switch is its upstream port and
// its downstream ports together, the way NCCL folds them: in a sysfs path the components after the
// root port alternate upstream port, downstream port (src/graph/xml.cc ncclTopoGetXmlFromSys rewinds
// a path two levels at a time; topology/nccl/fromSysfs.ts ncclParent). Root ports are folded into
// their host bridge. Read-only and pure: the drawing and the derived distances both come from here.
import { type PciDevice, type PciSysfs, unreadPciDevice } from '../../probe/pciSysfs';
import { PcieLink, pcieLinkOf } from './link';

export type PcieNodeKind = 'cpu' | 'host-bridge' | 'switch' | 'gpu' | 'nvswitch' | 'nic' | 'device';

export interface PcieNode {
  /** `cpu:0` (`cpu:?` when no node is known), `pci0000:15`, or the device's bus address. */
  readonly id: string;
  readonly kind: PcieNodeKind;
  /** The node above; null for CPUs. */
  readonly parent: string | null;
  /** NUMA node as sysfs gives it; null when the platform gives none (-1) or it was unreadable. */
  readonly numaNode: number | null;
  /** Bus address of the device (a switch: its upstream port); null for CPUs and host bridges. */
  readonly bdf: string | null;
  /** PCI vendor and device ids (`0x10de`, `0x2330`); "" when unknown. */
  readonly vendor: string;
  readonly device: string;
  /** Bridges folded into this node: a host bridge's root ports, a switch's downstream ports. */
  readonly ports: readonly string[];
  /** The link to the parent as this node's end reads it; null where sysfs has none (a host bridge, a CPU). */
  readonly link: PcieLink | null;
  /** The port of the parent this node hangs off (a root port or a switch's downstream port). */
  readonly via: string | null;
  /** GPUs and NICs: the name the matrix gives it (`GPU0`, `NIC3`, or the RDMA device); null when unnamed. */
  readonly column: string | null;
  /** RDMA devices on this PCI function (`mlx5_0`). */
  readonly rdma: readonly string[];
}

export interface PcieTree {
  /** Depth first: each CPU, then its host bridges and everything below them, children by bus address. */
  readonly nodes: readonly PcieNode[];
}

export interface PcieTreeInput {
  readonly sysfs: PciSysfs;
  /** The GPUs with the names the matrix uses (`GPU0`) and their bus addresses (`0000:18:00.0`). */
  readonly gpus: readonly { readonly name: string; readonly busId: string | null }[];
  /** RDMA device → its matrix column (`NIC0`); a device not in it is named by itself. */
  readonly nicColumns: ReadonlyMap<string, string>;
}

type Draft = { -readonly [K in keyof PcieNode]: PcieNode[K] } & { ports: string[] };

const BDF = /^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;
const PCI_BRIDGE_CLASS = /^0x0604/;

/** A sysfs path split at its host bridge: `pci0000:15` and the bus addresses below it, root port first. */
export function splitPciPath(path: string): { hostBridge: string; bdfs: string[] } | null {
  const parts = path.split('/').filter((p) => p !== '');
  let i = parts.length - 1;
  while (i >= 0 && BDF.test(parts[i])) i--;
  if (i < 0 || !/^pci[0-9a-fA-F]+:[0-9a-fA-F]+$/.test(parts[i]) || i === parts.length - 1) return null;
  return { hostBridge: parts[i], bdfs: parts.slice(i + 1).map((b) => b.toLowerCase()) };
}

export function pcieTree(input: PcieTreeInput): PcieTree {
  const drafts = new Map<string, Draft>();
  const leaves = [...new Set([...input.sysfs.rdma.map((r) => r.path), ...input.sysfs.nvidia])];
  for (const path of leaves) addPath(input, drafts, path);
  return { nodes: depthFirst([...drafts.values()]) };
}

function addPath(input: PcieTreeInput, drafts: Map<string, Draft>, path: string): void {
  const split = splitPciPath(path);
  if (!split) return;
  const prefix = path.slice(0, path.indexOf(split.hostBridge) + split.hostBridge.length);
  const at = (depth: number) => {
    const p = `${prefix}/${split.bdfs.slice(0, depth).join('/')}`;
    return input.sysfs.devices.get(p) ?? unreadPciDevice(p, split.bdfs[depth - 1]);
  };
  const leaf = at(split.bdfs.length);
  const host = hostBridge(drafts, split.hostBridge, split.bdfs.length > 1 ? at(1) : leaf, leaf);
  let parent: Draft = host;
  let via: string | null = null;
  for (let depth = 1; depth < split.bdfs.length; depth++) {
    const d = at(depth);
    if (!PCI_BRIDGE_CLASS.test(d.class) && d.class !== '') break;
    if (depth === 1) host.ports.push(d.bdf);
    else if (depth % 2 === 0) parent = switchNode(drafts, d, parent, via);
    else parent.ports.push(d.bdf);
    via = depth % 2 === 0 ? null : d.bdf;
  }
  if (!drafts.has(leaf.bdf)) drafts.set(leaf.bdf, leafNode(input, leaf, parent.id, via));
}

function hostBridge(drafts: Map<string, Draft>, id: string, rootPort: PciDevice, leaf: PciDevice): Draft {
  const found = drafts.get(id);
  if (found) return found;
  const numaNode = numaOf(rootPort) ?? numaOf(leaf);
  const cpu = `cpu:${numaNode ?? '?'}`;
  if (!drafts.has(cpu)) drafts.set(cpu, draft({ id: cpu, kind: 'cpu', parent: null, numaNode }));
  const made = draft({ id, kind: 'host-bridge', parent: cpu, numaNode });
  drafts.set(id, made);
  return made;
}

function switchNode(drafts: Map<string, Draft>, d: PciDevice, parent: Draft, via: string | null): Draft {
  const found = drafts.get(d.bdf);
  if (found) return found;
  const made = deviceDraft(d, 'switch', parent.id, via);
  drafts.set(d.bdf, made);
  return made;
}

function leafNode(input: PcieTreeInput, d: PciDevice, parent: string, via: string | null): Draft {
  const rdma = input.sysfs.rdma.filter((r) => r.path === d.path).map((r) => r.name);
  const gpu = input.gpus.find((g) => g.busId !== null && g.busId.toLowerCase() === d.bdf);
  const kind =
    rdma.length > 0
      ? 'nic'
      : d.vendor === '0x10de' && d.class.startsWith('0x03')
        ? 'gpu'
        : d.vendor === '0x10de' && d.class.startsWith('0x0680')
          ? 'nvswitch'
          : 'device';
  const column = kind === 'gpu' ? (gpu?.name ?? null) : kind === 'nic' ? (input.nicColumns.get(rdma[0]) ?? rdma[0]) : null;
  return { ...deviceDraft(d, kind, parent, via), column, rdma };
}

function draft(fields: Partial<Draft> & Pick<Draft, 'id' | 'kind' | 'parent' | 'numaNode'>): Draft {
  return { bdf: null, vendor: '', device: '', ports: [], link: null, via: null, column: null, rdma: [], ...fields };
}

/** A node for a PCI device itself (a switch by its upstream port, or a leaf), reached through `via`. */
function deviceDraft(d: PciDevice, kind: Draft['kind'], parent: string, via: string | null): Draft {
  return draft({ id: d.bdf, kind, parent, numaNode: numaOf(d), bdf: d.bdf, vendor: d.vendor, device: d.device, link: pcieLinkOf(d), via });
}

function numaOf(d: PciDevice): number | null {
  return d.numaNode === null || d.numaNode < 0 ? null : d.numaNode;
}

function depthFirst(drafts: readonly Draft[]): PcieNode[] {
  const children = new Map<string | null, Draft[]>();
  for (const d of drafts) children.set(d.parent, [...(children.get(d.parent) ?? []), d]);
  const ordered: PcieNode[] = [];
  const visit = (d: Draft) => {
    ordered.push({ ...d, ports: [...new Set(d.ports)].sort() });
    for (const c of (children.get(d.id) ?? []).sort(byId)) visit(c);
  };
  for (const cpu of (children.get(null) ?? []).sort(byCpu)) visit(cpu);
  return ordered;
}

function byId(a: Draft, b: Draft): number {
  return a.id.localeCompare(b.id);
}

/** Known NUMA nodes in ascending order, the unknown one last. */
function byCpu(a: Draft, b: Draft): number {
  if (a.numaNode === b.numaNode) return 0;
  if (a.numaNode === null || b.numaNode === null) return a.numaNode === null ? 1 : -1;
  return a.numaNode - b.numaNode;
}
