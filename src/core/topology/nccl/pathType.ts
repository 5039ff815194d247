// NCCL's path classes (src/include/graph.h PATH_*): how far apart two devices are, as NCCL ranks it.
// Their order, and so the numbers NCCL prints, changed between releases: rules.ts holds each era's.
import { t } from '../../l10n';

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
export function pathMeaning(path: PathType): string {
  switch (path) {
    case 'LOC': return t('the same device');
    case 'NVL': return t('NVLink');
    case 'NVB': return t('NVLink through an intermediate GPU');
    case 'C2C': return t('the NVLink-C2C link between a GPU and its Grace CPU');
    case 'PIX': return t('at most one PCIe bridge');
    case 'PXB': return t('several PCIe bridges, without the CPU host bridge');
    case 'P2C': return t('C2C to the GPU\'s own Grace CPU, then that CPU\'s PCIe to the NIC');
    case 'PXN': return t('NVLink to a peer GPU, then that GPU\'s PCIe path to the NIC');
    case 'PHB': return t('a PCIe host bridge (through the CPU)');
    case 'SYS': return t('the interconnect between NUMA nodes (QPI/UPI, Infinity Fabric, Grace-to-Grace)');
    case 'NET': return t('the network');
    case 'DIS': return t('disconnected');
  }
}
