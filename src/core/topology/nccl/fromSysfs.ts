// Builds NCCL's topology graph from the probe's sysfs read, the way NCCL builds it from the same files:
// each device's parent is found by rewinding its sysfs path two levels at a time, so one PCIe switch
// (upstream + downstream port) becomes one PCI node, and the walk stops at the first component that is
// not a bus address: the CPU root complex, known by the NUMA node of the device below it
// (src/graph/xml.cc ncclTopoGetXmlFromSys). Link bandwidths follow src/graph/topo.cc ncclTopoAddPci,
// ncclTopoAddNvLinks, ncclTopoAddC2c, ncclTopoAddNet and ncclTopoConnectCpus.
import { type PciDevice, type PciSysfs, unreadPciDevice } from '../../probe/pciSysfs';
import { TopoGraph, TopoNode } from './graph';
import { PathTable, TableGpu, TableNet, tableFromGraph } from './pathTable';
import { PathType } from './pathType';
import { CpuInfo, NvLink, c2cBandwidth, interCpuBandwidth, nvlinkBandwidth, pciBandwidth } from './bandwidth';
import { t } from '../../l10n';

export interface SysfsInput {
  readonly sysfs: PciSysfs;
  readonly gpus: readonly TableGpu[];
  readonly nets: readonly TableNet[];
  /** Port speed in Mb/s, by net name; NCCL takes 10 Gb/s when a NIC reports none. */
  readonly netSpeedMbps: ReadonlyMap<string, number>;
  readonly nvlinks: readonly NvLink[];
  readonly cpu: CpuInfo;
  /** NCCL ≥ 2.30.7 reads a GPU's current PCIe generation and width from NVML; before, its maximum, as for any device. */
  readonly gpuLinkCurrent: boolean;
}

/** The table, or why sysfs could not place every GPU and NIC (the caller falls back to the matrix). */
export function tableFromSysfs(input: SysfsInput, order: readonly PathType[]): PathTable | { missing: string } {
  const byBdf = new Map([...input.sysfs.devices.values()].map((d) => [d.bdf, d]));
  const graph = new TopoGraph();
  const gpuNodes: TopoNode[] = [];
  for (const gpu of input.gpus) {
    const device = gpu.busId ? byBdf.get(gpu.busId) : undefined;
    if (!device)
      return { missing: t('{0} ({1}) is not among the NVIDIA devices read from sysfs', gpu.name, gpu.busId ?? t('bus address unknown')) };
    const node = graph.node('GPU', device.bdf);
    attach(graph, input.sysfs, node, device, input.gpuLinkCurrent ? gpuBandwidth(device) : linkBandwidth(input.sysfs, device));
    gpuNodes.push(node);
  }
  const netNodes: TopoNode[] = [];
  for (const net of input.nets) {
    const nic = nicDevice(input.sysfs, byBdf, net.device);
    if (!nic) return { missing: t('the PCI device of {0} is not in sysfs', net.device) };
    const nicNode = graph.find('NIC', nic.bdf) ?? attachNew(graph, input.sysfs, 'NIC', nic);
    const netNode = graph.node('NET', net.name);
    graph.connect(nicNode, netNode, 'NET', (input.netSpeedMbps.get(net.name) ?? 10000) / 8000);
    netNodes.push(netNode);
  }
  linkGpusAndCpus(graph, gpuNodes, input);
  return tableFromGraph(graph, input.gpus, gpuNodes, input.nets, netNodes, order);
}

/** What every PCI tree gets on top (sysfs or a topology file): NVLinks, C2C links, the links between CPUs. */
export function linkGpusAndCpus(
  graph: TopoGraph,
  gpuNodes: readonly TopoNode[],
  input: Pick<SysfsInput, 'gpus' | 'nvlinks' | 'cpu'>,
): void {
  addNvLinks(graph, gpuNodes, input);
  addC2c(graph, gpuNodes, input.gpus);
  connectCpus(graph, input.cpu);
}

function attachNew(graph: TopoGraph, sysfs: PciSysfs, kind: 'NIC', device: PciDevice): TopoNode {
  const node = graph.node(kind, device.bdf);
  attach(graph, sysfs, node, device, linkBandwidth(sysfs, device));
  return node;
}

/** Joins a node to its NCCL parent (a PCI switch, created and attached in turn, or a CPU). */
function attach(graph: TopoGraph, sysfs: PciSysfs, node: TopoNode, device: PciDevice, bw: number): void {
  const parent = ncclParent(device.path);
  if (parent === null) {
    graph.connect(node, graph.node('CPU', String(device.numaNode ?? -1)), 'PCI', bw);
    return;
  }
  const known = graph.find('PCI', bdfOf(parent));
  if (known) {
    graph.connect(node, known, 'PCI', bw);
    return;
  }
  const parentDevice = sysfs.devices.get(parent) ?? unreadPciDevice(parent, bdfOf(parent));
  const switchNode = graph.node('PCI', parentDevice.bdf);
  graph.connect(node, switchNode, 'PCI', bw);
  attach(graph, sysfs, switchNode, parentDevice, linkBandwidth(sysfs, parentDevice));
}

/**
 * The sysfs path of a device's parent in NCCL's tree, or null when it hangs off the CPU: cut the path one
 * component at a time; a remaining last component that is no bus address means the root complex; at the
 * second cut the grandparent is the parent (the downstream port between them is skipped).
 */
export function ncclParent(path: string): string | null {
  const parts = path.split('/');
  for (let cut = 1; cut < parts.length - 1; cut++) {
    const last = parts[parts.length - 1 - cut];
    if (!isBdf(last)) return null;
    if (cut === 2) return parts.slice(0, parts.length - cut).join('/');
  }
  return null;
}

const BDF = /^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]$/;

function isBdf(component: string): boolean {
  return BDF.test(component);
}

function bdfOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).toLowerCase();
}

/**
 * The NIC's PCI device as NCCL names it: function 0 and, with NCCL_IB_MERGE_VFS (default 1), device 00,
 * so the ports and virtual functions of one card are one NIC (src/transport/net_ib/init.cc ncclIbGetPciPath).
 */
function nicDevice(sysfs: PciSysfs, byBdf: ReadonlyMap<string, PciDevice>, name: string): PciDevice | null {
  const rdma = sysfs.rdma.find((d) => d.name === name);
  if (!rdma) return null;
  const own = sysfs.devices.get(rdma.path) ?? unreadPciDevice(rdma.path, bdfOf(rdma.path));
  const merged = `${own.bdf.slice(0, -4)}00.0`;
  return byBdf.get(merged) ?? { ...own, bdf: merged, path: `${own.path.slice(0, own.path.lastIndexOf('/') + 1)}${merged}` };
}

/**
 * NVML's current generation and width for a GPU (v2.30.7-1 xml.cc ncclTopoGetXmlFromGpu): the same register sysfs
 * shows. An idle GPU may have trained down to 2.5 GT/s; NCCL ≤ 2.30.4 reads max_link_speed and never sees it.
 */
function gpuBandwidth(d: PciDevice): number {
  return pciBandwidth(d.currentLinkSpeed || d.maxLinkSpeed, d.currentLinkWidth ?? d.maxLinkWidth);
}

/** Other devices: the lower of the device's and its upstream port's maximum speed and width. */
function linkBandwidth(sysfs: PciSysfs, d: PciDevice): number {
  const port = sysfs.devices.get(d.path.slice(0, d.path.lastIndexOf('/')));
  const width =
    port?.maxLinkWidth !== undefined && port.maxLinkWidth !== null && d.maxLinkWidth !== null
      ? Math.min(port.maxLinkWidth, d.maxLinkWidth)
      : d.maxLinkWidth;
  const speeds = [d.maxLinkSpeed, port?.maxLinkSpeed ?? ''].filter((s) => s !== '');
  const speed = speeds.sort((a, b) => parseFloat(a) - parseFloat(b))[0] ?? '';
  return pciBandwidth(speed, width);
}

function addNvLinks(graph: TopoGraph, gpuNodes: readonly TopoNode[], input: Pick<SysfsInput, 'gpus' | 'nvlinks'>): void {
  for (const link of input.nvlinks) {
    const bw = link.count * nvlinkBandwidth(input.gpus[link.a].cc);
    graph.connect(gpuNodes[link.a], gpuNodes[link.b], 'NVL', bw);
  }
}

/** A C2C link to the CPU the GPU's PCI path leads to (ncclTopoAddC2c → findLocalCpu). */
function addC2c(graph: TopoGraph, gpuNodes: readonly TopoNode[], gpus: readonly TableGpu[]): void {
  gpus.forEach((gpu, i) => {
    if (gpu.c2c !== true) return;
    const cpu = localCpuOf(gpuNodes[i], null);
    if (cpu) graph.connect(gpuNodes[i], cpu, 'C2C', c2cBandwidth());
  });
}

function localCpuOf(node: TopoNode, from: TopoNode | null): TopoNode | null {
  if (node.kind === 'CPU') return node;
  for (const link of node.links) {
    if (link.kind !== 'PCI' || link.to === from || (link.to.kind !== 'PCI' && link.to.kind !== 'CPU')) continue;
    const found = localCpuOf(link.to, node);
    if (found) return found;
  }
  return null;
}

function connectCpus(graph: TopoGraph, cpu: CpuInfo): void {
  const cpus = graph.nodes.filter((n) => n.kind === 'CPU');
  const bw = interCpuBandwidth(cpu);
  for (let i = 0; i < cpus.length; i++) for (let j = i + 1; j < cpus.length; j++) graph.connect(cpus[i], cpus[j], 'SYS', bw);
}
