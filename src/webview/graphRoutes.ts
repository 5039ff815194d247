// The route a GPU's network traffic takes as NCCL decides it (the GPU's verdict from the extension):
// up the tree from the GPU to the common ancestor with its NIC and down again; across the CPUs'
// interconnect when they hang off different CPUs (SYS); first over NVLink to the relaying GPU for PXN;
// over NVLink-C2C to its own Grace CPU for P2C. Pure.
import type { GpuDetail } from '../protocol/topology';
import type { GraphModel } from './graphModel';

export interface Route {
  /** Nodes whose link to their parent the route uses. */
  readonly uplinks: ReadonlySet<string>;
  /** Every node on the route. */
  readonly nodes: ReadonlySet<string>;
  /** PXN: the NVLink hop, GPU column → relaying GPU column. */
  readonly nvlink: readonly [string, string] | null;
  /**
   * Where the route passes a CPU: the nodes just below it on either side (a host bridge, or the GPU itself
   * over C2C), and whether it crosses from one CPU to another (SYS). The drawing joins their panels.
   */
  readonly cpuHops: readonly CpuHop[];
  /** P2C: the GPU (node id) whose C2C link to its CPU the route takes. */
  readonly c2c: string | null;
}

export interface CpuHop {
  readonly a: string;
  readonly b: string;
  readonly sys: boolean;
}

export function routeOf(model: GraphModel, gpu: GpuDetail): Route {
  const byColumn = new Map(model.nodes.filter((n) => n.column !== null).map((n) => [n.column as string, n.id]));
  const parent = new Map(model.nodes.map((n) => [n.id, n.parent]));
  const chain = (id: string): string[] => {
    const up: string[] = [];
    for (let at: string | null | undefined = id; at !== null && at !== undefined && !up.includes(at); at = parent.get(at)) up.push(at);
    return up;
  };
  const start = byColumn.get(gpu.proxyGpu ?? gpu.name);
  const uplinks = new Set<string>();
  const nodes = new Set<string>();
  const cpuHops: CpuHop[] = [];
  const viaC2c = gpu.ncclPath === 'P2C' && model.c2c.includes(gpu.proxyGpu ?? gpu.name);
  if (start === undefined) return { uplinks, nodes, nvlink: null, cpuHops, c2c: null };
  const from = viaC2c ? [start, chain(start)[chain(start).length - 1]] : chain(start);
  // The NIC channel 0 uses (listed first); ties NCCL also gives the GPU are marked on the NICs, not routed.
  for (const nic of gpu.nearestNicColumns.slice(0, 1)) {
    const target = byColumn.get(nic);
    if (target === undefined) continue;
    const to = chain(target);
    const meet = from.findIndex((id) => to.includes(id));
    const up = meet < 0 ? from : from.slice(0, meet + 1);
    const down = meet < 0 ? to : to.slice(0, to.indexOf(from[meet]) + 1);
    // A node's uplink is on the route when the route also passes its parent (the meeting node's is not).
    for (const id of [...up.slice(0, -1), ...down.slice(0, -1)]) uplinks.add(id);
    for (const id of [...up, ...down]) nodes.add(id);
    if (meet < 0) cpuHops.push({ a: from[from.length - 2] ?? from[0], b: to[to.length - 2] ?? to[0], sys: true });
    else if (parent.get(from[meet]) === null && up.length > 1 && down.length > 1)
      cpuHops.push({ a: up[up.length - 2], b: down[down.length - 2], sys: false });
  }
  if (viaC2c) uplinks.delete(start);
  const own = byColumn.get(gpu.name);
  if (own !== undefined) nodes.add(own);
  return {
    uplinks,
    nodes,
    cpuHops,
    nvlink: gpu.proxyGpu ? [gpu.name, gpu.proxyGpu] : null,
    c2c: viaC2c ? start : null,
  };
}
