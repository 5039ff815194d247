// The distance `nvidia-smi topo -m` would print between two PCI devices, worked out from their sysfs
// paths, for hosts where nvidia-smi topo failed or is missing. nvidia-smi prints NVML's topology level
// of the two devices' common ancestor (nvmlDeviceGetTopologyCommonAncestor, nvmlGpuTopologyLevel_t;
// docs/topo-matrix.md §1):
//   PIX  (SINGLE)     the path crosses at most one PCIe switch (bridge),
//   PXB  (MULTIPLE)   several switches, but not the host bridge,
//   PHB  (HOSTBRIDGE) the same host bridge, through it (different root ports),
//   NODE              different host bridges of one NUMA node,
//   SYS  (SYSTEM)     different NUMA nodes.
// A switch is its upstream port and its downstream ports (tree.ts). What sysfs cannot show: NVLink
// (the matrix's NV# cells), and nvidia-smi's own choices on some Grace machines (a GB200 tray prints SYS
// between every GPU and NIC, counting the GPU's memory node): the result is marked derived wherever shown
// (docs/topo-matrix.md §6).
import { splitPciPath } from './tree';

export type PcieDistance = 'PIX' | 'PXB' | 'PHB' | 'NODE' | 'SYS';

/**
 * `numaOf` gives the NUMA node of a device's host bridge (null: none given). Two host bridges whose
 * NUMA nodes are both unknown count as one node: a platform that names no node has one.
 */
export function pcieDistance(a: string, b: string, numaOf: (path: string) => number | null): PcieDistance {
  const pa = splitPciPath(a);
  const pb = splitPciPath(b);
  if (!pa || !pb || pa.hostBridge.toLowerCase() !== pb.hostBridge.toLowerCase()) return numaOf(a) === numaOf(b) ? 'NODE' : 'SYS';
  let shared = 0;
  while (shared < pa.bdfs.length && shared < pb.bdfs.length && pa.bdfs[shared] === pb.bdfs[shared]) shared++;
  if (shared === 0) return 'PHB';
  // The bridges crossed: the common ancestor, then each side's bridges below it (the devices themselves are not).
  const switches = new Set([
    switchAt(pa.bdfs, shared),
    ...range(shared + 1, pa.bdfs.length - 1).map((d) => switchAt(pa.bdfs, d)),
    ...range(shared + 1, pb.bdfs.length - 1).map((d) => switchAt(pb.bdfs, d)),
  ]);
  return switches.size <= 1 ? 'PIX' : 'PXB';
}

/** The switch a bridge at `depth` (1 = root port) belongs to: an upstream port at even depth, its downstream ports below. */
function switchAt(bdfs: readonly string[], depth: number): string {
  if (depth === 1) return 'root port';
  const upstream = depth % 2 === 0 ? depth : depth - 1;
  return bdfs.slice(0, upstream).join('/');
}

/** Depths from..to inclusive. */
function range(from: number, to: number): number[] {
  return to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
