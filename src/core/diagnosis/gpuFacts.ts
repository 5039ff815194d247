// Each GPU as NCCL's model needs it, from whichever outputs the probe got: its name in the matrix
// (GPU0…, NVML order), bus address, compute capability, whether it supports GPUDirect RDMA at all, and
// whether it reaches its CPU over NVLink-C2C (the Grace superchips).
import type { PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { TableGpu } from '../topology/nccl/pathTable';
import { factOf } from './evidence';

/** GeForce and TITAN parts report cudaDevAttrGPUDirectRDMASupported = 0. */
export const NO_GDR_NAME = /\b(GeForce|TITAN)\b/i;
const NO_GDR_BRANDS = new Set(['GeForce', 'Titan', 'NVIDIA TITAN']);

/** Grace superchips: the GPU's CPU link is NVLink-C2C (NVML reports C2C mode; NCCL adds a C2C link). */
const C2C_NAME = /\b(GH200|GB200|GB300)\b/;

interface GpuName {
  /** topo -m's GPU NUMA ID: a number only where GPU memory is a NUMA node of a C2C-coherent CPU (Grace). */
  readonly gpuNumaId: string | null;
  /** nvidia-smi -q "GPU C2C Mode" (`Enabled`, `Disabled`, `N/A` off Grace); null where the driver does not print it. */
  readonly c2cMode: string | null;
  readonly name: string | null;
  readonly brand: string | null;
  readonly architecture: string | null;
  readonly busId: string | null;
}

export function gpuFacts(report: ProbeReport, sysfs: PciSysfs | null): TableGpu[] {
  const named = namedGpus(report, sysfs);
  return named.map((g, dev) => ({
    name: `GPU${dev}`,
    dev,
    busId: g.busId,
    cc: computeCapability(g),
    gdrSupport: g.name === null && g.brand === null ? null : !(NO_GDR_BRANDS.has(g.brand ?? '') || NO_GDR_NAME.test(g.name ?? '')),
    c2c: c2cOf(g),
  }));
}

/** One entry per GPU in NVML order: the matrix's rows, with names and addresses from the queries. */
function namedGpus(report: ProbeReport, sysfs: PciSysfs | null): GpuName[] {
  const topo = factOf(report, 'topo');
  const query = factOf(report, 'gpus')?.gpus ?? [];
  const smi = factOf(report, 'smi-q')?.gpus ?? [];
  const sysfsGpus = [...(sysfs?.nvidia ?? [])]
    .filter((p) => sysfs?.devices.get(p)?.class.startsWith('0x03'))
    .map((p) => sysfs?.devices.get(p)?.bdf ?? '')
    .sort();
  const count = topo?.gpus.length ?? (query.length || smi.length);
  return Array.from({ length: count }, (_, i) => {
    const q = query.find((r) => r.index === i) ?? query[i];
    const s = smi[i];
    return {
      gpuNumaId: topo?.gpus[i]?.gpuNumaId ?? null,
      c2cMode: s?.c2cMode ?? null,
      name: q?.name ?? s?.productName ?? null,
      brand: s?.productBrand ?? null,
      architecture: s?.productArchitecture ?? null,
      busId: normalizeBusId(q?.pciBusId ?? s?.busId ?? null) ?? (sysfsGpus.length === count ? sysfsGpus[i] : null),
    };
  });
}

/**
 * nvidia-smi -q's "GPU C2C Mode" when printed; else a Grace superchip's name; else a numeric GPU NUMA ID
 * (GPU memory onlined as a NUMA node happens only over a coherent C2C link; N/A says nothing, as Grace
 * systems under CDMM print N/A too).
 */
function c2cOf(g: GpuName): boolean | null {
  if (g.c2cMode !== null && g.c2cMode !== 'N/A') return g.c2cMode === 'Enabled';
  if (g.name !== null && C2C_NAME.test(g.name)) return true;
  if (g.gpuNumaId !== null && /^\d+$/.test(g.gpuNumaId.trim())) return true;
  return g.c2cMode === 'N/A' || g.name !== null ? false : null;
}

/** nvidia-smi prints `00000000:17:00.0`; sysfs `0000:17:00.0`. */
export function normalizeBusId(busId: string | null): string | null {
  const m = busId ? /^([0-9a-fA-F]+):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$/.exec(busId.trim()) : null;
  return m ? `${m[1].slice(-4).padStart(4, '0')}:${m[2]}:${m[3]}.${m[4]}`.toLowerCase() : null;
}

/** By name where the name decides it (A100 8.0, A10 8.6), else by architecture; × 10. */
const BY_NAME: readonly [RegExp, number][] = [
  [/\b(GB200|GB300|B200|B300|B100)\b/, 100],
  [/\bGB10\b/, 121],
  [/\b(H100|H200|H800|H20|GH200)\b/, 90],
  [/\b(A100|A800|A30)\b/, 80],
  [/\b(A10|A16|A2|A40|RTX A\d+|RTX 30\d0)\b/, 86],
  [/\b(L4|L40S?|RTX 40\d0|RTX \d+ Ada)\b/, 89],
  [/\b(V100|TITAN V|Quadro GV100)\b/, 70],
  [/\b(T4|RTX 20\d0|Quadro RTX)\b/, 75],
  [/\b(P100)\b/, 60],
  [/\b(P4|P40|P6)\b/, 61],
  [/\b(K80)\b/, 37],
  [/\b(K40m?|K20X?m?)\b/, 35],
];
const BY_ARCH: Record<string, number> = {
  Kepler: 35,
  Maxwell: 52,
  Pascal: 60,
  Volta: 70,
  Turing: 75,
  Ampere: 80,
  'Ada Lovelace': 89,
  Hopper: 90,
  Blackwell: 100,
};

function computeCapability(g: GpuName): number | null {
  const byName = g.name ? BY_NAME.find(([re]) => re.test(g.name as string)) : undefined;
  if (byName) return byName[1];
  return g.architecture ? (BY_ARCH[g.architecture] ?? null) : null;
}

/** The host's GPUs as the probe saw them (matrix, else the GPU query, else nvidia-smi -q), every one, in any job. */
export function hostGpuCount(report: ProbeReport): number {
  return factOf(report, 'topo')?.gpus.length ?? (factOf(report, 'gpus')?.gpus.length || (factOf(report, 'smi-q')?.gpus.length ?? 0));
}
