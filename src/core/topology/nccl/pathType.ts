// NCCL's path classes (src/include/graph.h PATH_*): how far apart two devices are, as NCCL ranks it.
// Their order, and so the numbers NCCL prints, changed between releases: rules.ts holds each era's.

export const PATH_TYPES = ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET', 'DIS'] as const;
export type PathType = (typeof PATH_TYPES)[number];

export function isPathType(x: string): x is PathType {
  return (PATH_TYPES as readonly string[]).includes(x);
}

/** Rank of a path type in a release's order; a type the release lacks ranks with the next one it has. */
export function pathRank(type: PathType, order: readonly PathType[]): number {
  const i = order.indexOf(type);
  if (i >= 0) return i;
  // P2C before 2.27 and C2C before 2.26 do not occur; rank them where the newest order puts them.
  const newest = PATH_TYPES.indexOf(type);
  const next = PATH_TYPES.slice(newest + 1).find((t) => order.includes(t));
  return next === undefined ? order.length : order.indexOf(next) - 0.5;
}

export function worse(a: PathType, b: PathType, order: readonly PathType[]): PathType {
  return pathRank(a, order) >= pathRank(b, order) ? a : b;
}

/** What each class means, in NCCL's terms (src/graph/topo.h comments, paths.cc). */
export const PATH_MEANING: Record<PathType, string> = {
  LOC: 'the same device',
  NVL: 'NVLink',
  NVB: 'NVLink through an intermediate GPU',
  C2C: 'the NVLink-C2C link between a GPU and its Grace CPU',
  PIX: 'at most one PCIe bridge',
  PXB: 'several PCIe bridges, without the CPU host bridge',
  P2C: 'C2C to the GPU\'s own Grace CPU, then that CPU\'s PCIe to the NIC',
  PXN: 'NVLink to a peer GPU, then that GPU\'s PCIe path to the NIC',
  PHB: 'a PCIe host bridge (through the CPU)',
  SYS: 'the interconnect between NUMA nodes (QPI/UPI, Infinity Fabric, Grace-to-Grace)',
  NET: 'the network',
  DIS: 'disconnected',
};
