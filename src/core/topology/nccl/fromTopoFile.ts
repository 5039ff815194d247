// NCCL's graph from an XML topology file (NCCL_TOPO_FILE, or /var/run/nvidia-topologyd/virtualTopology.xml
// that a VM image provides): NCCL loads the file first, then fills in its own GPU and NICs by bus address
// (src/graph/topo.cc ncclTopoGetSystem → ncclTopoFillGpu/ncclTopoFillNet find the file's <pci> element
// of that busid), so the file's tree, not the VM's emulated one, decides the paths. Each <cpu> is a CPU
// node (numaid); each <pci> holding a <gpu> or matching a GPU's busid a GPU, one holding a <nic> or
// matching a NIC's busid a NIC, any other a PCI switch whose <pci> children hang below it
// (ncclTopoAddCpu, ncclTopoAddPci; link bandwidth width × speed / 80).
import { TopoGraph, TopoNode } from './graph';
import { PathTable, TableGpu, TableNet, tableFromGraph } from './pathTable';
import { PathType } from './pathType';
import { CpuInfo, NvLink, pciBandwidth } from './bandwidth';
import { linkGpusAndCpus } from './fromSysfs';
import { XmlNode, descendants } from './topoXml';
import { t } from '../../l10n';

export interface TopoFileInput {
  readonly xml: XmlNode;
  readonly gpus: readonly TableGpu[];
  readonly nets: readonly TableNet[];
  /** Each net's NIC as NCCL names it on the bus (function 0 of device 0, ncclIbGetPciPath), from sysfs; null when unread. */
  readonly nicBusIds: ReadonlyMap<string, string | null>;
  readonly netSpeedMbps: ReadonlyMap<string, number>;
  readonly nvlinks: readonly NvLink[];
  readonly cpu: CpuInfo;
}

interface Build {
  readonly graph: TopoGraph;
  /** Bus addresses of the host's GPUs and NICs: their <pci> elements become GPU and NIC nodes. */
  readonly gpuBus: ReadonlySet<string>;
  readonly nicBus: ReadonlySet<string>;
  readonly byBusId: Map<string, TopoNode>;
  /** <net name=…> elements under a <nic>: the NIC node they belong to. */
  readonly byNetName: Map<string, TopoNode>;
}

/** The table, or why the file does not place every GPU and NIC of the host (the caller says so, and falls back). */
export function tableFromTopoFile(input: TopoFileInput, order: readonly PathType[]): PathTable | { missing: string } {
  const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();
  const build: Build = {
    graph: new TopoGraph(),
    gpuBus: new Set(input.gpus.map((g) => lower(g.busId)).filter((b) => b !== '')),
    nicBus: new Set([...input.nicBusIds.values()].map(lower).filter((b) => b !== '')),
    byBusId: new Map(),
    byNetName: new Map(),
  };
  const system = input.xml.children.find((c) => c.name === 'system') ?? input.xml;
  for (const cpu of system.children.filter((c) => c.name === 'cpu')) addCpu(build, cpu);
  const gpuNodes: TopoNode[] = [];
  for (const gpu of input.gpus) {
    const node = build.byBusId.get(lower(gpu.busId));
    if (node?.kind !== 'GPU')
      return { missing: t('the topology file has no <pci busid> for {0} ({1})', gpu.name, gpu.busId ?? t('bus address unknown')) };
    gpuNodes.push(node);
  }
  const netNodes: TopoNode[] = [];
  for (const net of input.nets) {
    const bus = input.nicBusIds.get(net.device) ?? null;
    const nic = build.byNetName.get(net.device) ?? (bus ? build.byBusId.get(lower(bus)) : undefined);
    if (nic?.kind !== 'NIC') return { missing: t('the topology file places no NIC for {0} (bus {1})', net.device, bus ?? t('unknown')) };
    const netNode = build.graph.node('NET', net.name);
    build.graph.connect(nic, netNode, 'NET', (input.netSpeedMbps.get(net.name) ?? 10000) / 8000);
    netNodes.push(netNode);
  }
  linkGpusAndCpus(build.graph, gpuNodes, input);
  return tableFromGraph(build.graph, input.gpus, gpuNodes, input.nets, netNodes, order, 'topo-file');
}

function addCpu(build: Build, cpu: XmlNode): void {
  const node = build.graph.node('CPU', cpu.attrs.numaid ?? '-1');
  for (const child of cpu.children) {
    if (child.name === 'pci') addPci(build, child, node);
    // A <nic> right under a <cpu>: a NIC without a PCI path, at local bandwidth (ncclTopoAddCpu, LOC_BW).
    if (child.name === 'nic') addNic(build, child, node, `cpu${node.id}-nic`, 5000);
  }
}

function addPci(build: Build, pci: XmlNode, parent: TopoNode): void {
  const busId = (pci.attrs.busid ?? '').toLowerCase();
  const width = pci.attrs.link_width === undefined ? null : Number(pci.attrs.link_width);
  const bw = pciBandwidth(pci.attrs.link_speed ?? '', Number.isFinite(width) ? width : null);
  const nic = pci.children.find((c) => c.name === 'nic');
  if (nic || build.nicBus.has(busId)) {
    addNic(build, nic ?? null, parent, busId, bw);
    return;
  }
  const gpu = pci.children.some((c) => c.name === 'gpu') || build.gpuBus.has(busId);
  const node = build.graph.node(gpu ? 'GPU' : 'PCI', busId);
  build.graph.connect(node, parent, 'PCI', bw);
  build.byBusId.set(busId, node);
  // ncclTopoAddPci recurses into the <pci> children of a switch (class 0x0604); a GPU ends its branch.
  if (!gpu && /^0x0604/i.test(pci.attrs.class ?? ''))
    for (const child of pci.children.filter((c) => c.name === 'pci')) addPci(build, child, node);
}

function addNic(build: Build, nic: XmlNode | null, parent: TopoNode, id: string, bw: number): void {
  const node = build.graph.node('NIC', id);
  build.graph.connect(node, parent, 'PCI', bw);
  build.byBusId.set(id, node);
  for (const net of nic ? descendants(nic, 'net') : []) if (net.attrs.name) build.byNetName.set(net.attrs.name, node);
}
