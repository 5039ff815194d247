// The real PCIe paths between each GPU and the NICs NCCL may give it, from the sysfs tree (a device's
// parents are the bus addresses before it in its /sys/devices path): the bridges a peer-to-peer packet
// crosses on its way up from the GPU to the lowest bridge both share, and down to the NIC. Those are
// the ports whose Access Control Services can send the packet up to the root complex instead
// (PCIe Base Specification, "ACS P2P Request Redirect"; NCCL Troubleshooting, "PCI Access Control Services").
import type { PciDevice, PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { gpuFacts } from './gpuFacts';
import { GpuNicPair } from './pairs';

export interface PairPath {
  /** The GPU the verdict is for (`GPU3`). */
  readonly gpu: string;
  /** The GPU whose PCIe path carries the traffic: itself, or its PXN relay. */
  readonly pathGpu: string;
  readonly gpuBdf: string;
  /** RDMA device (`mlx5_3`). */
  readonly nic: string;
  readonly nicBdf: string;
  /** Bridges below the lowest common one, GPU side first (upward), then NIC side (downward). */
  readonly bridges: PciDevice[];
  /** Both under one root bus: the packet can turn below the CPU; false when it must cross the CPU anyway. */
  readonly sameRoot: boolean;
}

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/**
 * One path per GPU and each NIC NCCL may give it, where sysfs places both ends; [] without a tree. NCCL
 * spreads a GPU's channels over every NIC at its best distance (src/graph/search.cc ncclTopoGetLocalNet
 * picks by channel among them), so each tie is a path its traffic takes; a PXN pair's path starts at the
 * relaying GPU (src/graph/paths.cc ncclTopoGetIntermediateRank), whose PCIe path the packets cross.
 */
export function pairPaths(report: ProbeReport, pairs: readonly GpuNicPair[]): PairPath[] {
  const sysfs = factOf(report, 'pci-sysfs');
  if (!sysfs) return [];
  const busIds = new Map(gpuFacts(report, sysfs).map((g) => [g.name, g.busId]));
  const byBdf = new Map([...sysfs.devices.values()].map((d) => [d.bdf, d]));
  return pairs.flatMap((pair) => {
    const pathGpu = pair.proxyGpu ?? pair.gpu;
    const gpu = byBdf.get(busIds.get(pathGpu) ?? '');
    if (!gpu) return [];
    const names = [...new Set(pair.nics.map((n) => n.device).filter((d): d is string => d !== null))];
    return names.flatMap((nicName) => {
      const nic = sysfs.rdma.find((r) => r.name === nicName);
      const nicDevice = nic ? sysfs.devices.get(nic.path) : undefined;
      if (!nic || !nicDevice) return [];
      return [{ gpu: pair.gpu, pathGpu, gpuBdf: gpu.bdf, nic: nicName, nicBdf: nicDevice.bdf, ...between(sysfs, gpu.path, nic.path) }];
    });
  });
}

/** The bridges between two devices' sysfs paths, and whether they share a root bus. */
export function between(sysfs: PciSysfs, a: string, b: string): { bridges: PciDevice[]; sameRoot: boolean } {
  const pa = a.split('/');
  const pb = b.split('/');
  let common = 0;
  while (common < pa.length && common < pb.length && pa[common] === pb[common]) common++;
  const sameRoot = common > 0 && /^pci[0-9a-f]{4}:[0-9a-f]{2}$/.test(pa[common - 1]) ? true : common > 0 && BDF.test(pa[common - 1]);
  const up = ancestors(sysfs, pa, common).reverse();
  const down = ancestors(sysfs, pb, common);
  return { bridges: [...up, ...down], sameRoot };
}

/** The devices of `parts` after the first `common` components and before the last (the endpoint itself). */
function ancestors(sysfs: PciSysfs, parts: readonly string[], common: number): PciDevice[] {
  const out: PciDevice[] = [];
  for (let i = Math.max(common, 1); i < parts.length - 1; i++) {
    if (!BDF.test(parts[i])) continue;
    const device = sysfs.devices.get(parts.slice(0, i + 1).join('/'));
    if (device) out.push(device);
  }
  return out;
}

/** The bridges of all paths, each once, in the order first met. */
export function pathBridges(paths: readonly PairPath[]): PciDevice[] {
  const seen = new Map<string, PciDevice>();
  for (const p of paths) for (const b of p.bridges) if (!seen.has(b.bdf)) seen.set(b.bdf, b);
  return [...seen.values()];
}

/** `GPU0↔mlx5_0`, or `GPU1 (via GPU0)↔mlx5_0` for a PXN relay. */
export function pairLabel(p: PairPath): string {
  return `${p.gpu}${p.pathGpu !== p.gpu ? ` (via ${p.pathGpu})` : ''}↔${p.nic}`;
}
