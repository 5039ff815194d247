// The link bandwidths NCCL gives its topology graph, in GB/s (src/graph/topo.h constants; topo.cc
// ncclTopoAddPci, ncclTopoGetInterCpuBw). They matter where NCCL compares paths of the same class:
// which NICs are a GPU's local ones (ncclTopoGetLocal) and whether a peer is faster to a NIC (PXN).

export interface CpuInfo {
  readonly arch: 'x86' | 'arm' | 'power' | null;
  readonly vendor: 'intel' | 'amd' | 'zhaoxin' | null;
  /** `CPU family` and `Model` as lscpu prints them (decimal). */
  readonly family: number | null;
  readonly model: number | null;
}

export interface NvLink {
  /** GPU indices. */
  readonly a: number;
  readonly b: number;
  /** Bonded links (`NV12` → 12). */
  readonly count: number;
}

/** kvDictPciGen: 100 Mb/s units per lane, by the speed text sysfs prints (old and new kernels). */
const PCI_GEN: Record<string, number> = {
  '2.5 GT/s': 15,
  '5 GT/s': 30,
  '8 GT/s': 60,
  '16 GT/s': 120,
  '32 GT/s': 240,
  '2.5 GT/s PCIe': 15,
  '5.0 GT/s PCIe': 30,
  '8.0 GT/s PCIe': 60,
  '16.0 GT/s PCIe': 120,
  '32.0 GT/s PCIe': 240,
  '64.0 GT/s PCIe': 480,
};
const PCI_GEN_DEFAULT = 60;

/** ncclTopoAddPci: width × per-lane speed / 80; width 0 or unknown counts as 16, an unknown speed as Gen3. */
export function pciBandwidth(speed: string, width: number | null): number {
  const w = width === null || width === 0 ? 16 : width;
  return (w * (PCI_GEN[speed.trim()] ?? PCI_GEN_DEFAULT)) / 80;
}

/** ncclTopoNVLinkBw: per-link NVLink bandwidth by compute capability (× 10). */
export function nvlinkBandwidth(cc: number | null): number {
  if (cc === null) return 20;
  if (cc >= 100) return 40.1;
  if (cc >= 90) return 20.6;
  if (cc === 86) return 12;
  if (cc >= 80) return 20;
  if (cc >= 70) return 20;
  if (cc >= 60) return 18;
  return 20;
}

/**
 * NVLink-C2C between a Grace CPU and its GPU. NCCL reads it from NVML (links × per-link bandwidth);
 * the probe cannot, so a nominal 450 GB/s (one direction of GH200's 900 GB/s) stands in: only its
 * order against PCIe (far above) matters to the decisions modelled here.
 */
export function c2cBandwidth(): number {
  return 450;
}

/** ncclTopoGetInterCpuBw: the SMP interconnect between two NUMA nodes. */
export function interCpuBandwidth(cpu: CpuInfo): number {
  if (cpu.arch === 'power') return 32;
  if (cpu.arch === 'arm') return 6;
  if (cpu.arch === 'x86' && cpu.vendor === 'intel') return intelQpi(cpu.family, cpu.model);
  if (cpu.arch === 'x86' && cpu.vendor === 'amd') return 16;
  if (cpu.arch === 'x86' && cpu.vendor === 'zhaoxin') return 6;
  return 5000;
}

/** Emerald Rapids, Sapphire Rapids, Skylake, else Broadwell: by family 6 model number. */
function intelQpi(family: number | null, model: number | null): number {
  if (family !== 6 || model === null) return 6;
  if (model >= 0xcf) return 40;
  if (model >= 0x8f) return 22;
  if (model >= 0x55) return 10;
  return 6;
}
