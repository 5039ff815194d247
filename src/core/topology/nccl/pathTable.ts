// What NCCL's decisions read from its topology, as one table: the GPUs and usable NIC ports (NETs)
// and the path between each pair, GPU↔GPU, GPU↔CPU and NET↔CPU. Built from sysfs through the
// path search (graph.ts), or straight from `nvidia-smi topo -m` tokens when sysfs was not read.
import { NodePath, TopoGraph, TopoNode, pathsTo } from './graph';
import { PathType } from './pathType';

export interface TableGpu {
  /** `GPU0`, as nvidia-smi numbers it (NVML index order, which NCCL's `dev` follows). */
  readonly name: string;
  readonly dev: number;
  readonly busId: string | null;
  /** Compute capability × 10 (`90`); null when unknown. */
  readonly cc: number | null;
  /** cudaDevAttrGPUDirectRDMASupported; null when the probe could not tell. */
  readonly gdrSupport: boolean | null;
  /** An NVLink-C2C link to its CPU (Grace); null when it could not be told. */
  readonly c2c: boolean | null;
}

export interface TableNet {
  /** `mlx5_0:1`. */
  readonly name: string;
  readonly device: string;
  readonly port: number;
  /** The NIC (PCI function 0) it belongs to: ports of one NIC share it. */
  readonly nic: string;
  readonly linkLayer: 'IB' | 'RoCE' | null;
  /** PORT_ACTIVE; null when the state was not read. */
  readonly active: boolean | null;
}

export interface Path {
  readonly type: PathType;
  readonly bw: number;
  /** The GPU (index) NCCL relays through, for a PXN path. */
  readonly proxy?: number;
  /** Node labels from source to target, for drawing; [] when built from the matrix. */
  readonly route: readonly string[];
}

export interface PathTable {
  /** Where the PCI tree came from: sysfs as NCCL reads it, an XML topology file NCCL loads instead, or the matrix. */
  readonly source: 'sysfs' | 'topo-file' | 'matrix';
  readonly gpus: readonly TableGpu[];
  readonly nets: readonly TableNet[];
  /** CPU (NUMA node) ids. */
  readonly cpus: readonly string[];
  readonly gpuGpu: Path[][];
  readonly gpuNet: Path[][];
  readonly netGpu: Path[][];
  readonly gpuCpu: Path[][];
  readonly netCpu: Path[][];
}

export const UNREACHABLE: Path = { type: 'DIS', bw: 0, route: [] };

/** Runs the path search from every GPU, NET and CPU node of a graph built from sysfs. */
export function tableFromGraph(
  graph: TopoGraph,
  gpus: readonly TableGpu[],
  gpuNodes: readonly TopoNode[],
  nets: readonly TableNet[],
  netNodes: readonly TopoNode[],
  order: readonly PathType[],
  source: 'sysfs' | 'topo-file' = 'sysfs',
): PathTable {
  const cpuNodes = graph.nodes.filter((n) => n.kind === 'CPU');
  const from = (bases: readonly TopoNode[]) => bases.map((b) => pathsTo(b, order));
  const toGpu = from(gpuNodes);
  const toNet = from(netNodes);
  const toCpu = from(cpuNodes);
  const pick = (maps: Map<TopoNode, NodePath>[], sources: readonly TopoNode[]) => sources.map((s) => maps.map((m) => asPath(m, s)));
  return {
    source,
    gpus,
    nets,
    cpus: cpuNodes.map((c) => c.id),
    gpuGpu: pick(toGpu, gpuNodes),
    gpuNet: pick(toNet, gpuNodes),
    netGpu: pick(toGpu, netNodes),
    gpuCpu: pick(toCpu, gpuNodes),
    netCpu: pick(toCpu, netNodes),
  };
}

function asPath(paths: Map<TopoNode, NodePath>, source: TopoNode): Path {
  const p = paths.get(source);
  if (!p) return UNREACHABLE;
  const route: string[] = [];
  for (let n: TopoNode | null = source; n !== null; n = paths.get(n)?.next ?? null) route.push(`${n.kind}/${n.id}`);
  return { type: p.type, bw: p.bw, route };
}
