// The path table read straight off `nvidia-smi topo -m`, for when sysfs was not read (a saved matrix,
// an older probe, a host whose sysfs lacks a device). nvidia-smi's classes map onto NCCL's: PIX and PXB
// as they are, PHB and NODE to PHB (NCCL has no NODE: two host bridges of one NUMA node meet in its CPU
// node), SYS and the old SOC to SYS. CPUs are the GPUs' NUMA nodes; a NIC belongs to the CPU of a GPU
// it is not SYS to. What the matrix cannot say stays unknown: a C2C GPU's SYS cells (nvidia-smi counts
// the GPU's own memory node, so even a NIC on its own Grace shows SYS) are left for sysfs to decide.
import type { TopoGpu, Topology } from '../../parsers/topo';
import { CpuInfo, c2cBandwidth, interCpuBandwidth, nvlinkBandwidth, pciBandwidth } from './bandwidth';
import { Path, PathTable, TableGpu, TableNet, UNREACHABLE } from './pathTable';
import { PathType } from './pathType';

const TOKEN_PATH: Record<string, PathType> = { X: 'LOC', PIX: 'PIX', PXB: 'PXB', PHB: 'PHB', NODE: 'PHB', SYS: 'SYS', SOC: 'SYS' };
const NVLINK = /^NV(\d+)$/;
/** A PCIe Gen4 x16 link: the matrix gives no widths, so every PCIe hop gets the same bandwidth. */
const MATRIX_PCI_BW = pciBandwidth('16.0 GT/s PCIe', 16);

export function tokenPath(token: string | null | undefined): PathType | null {
  if (token === null || token === undefined) return null;
  return NVLINK.test(token) ? 'NVL' : (TOKEN_PATH[token] ?? null);
}

/** Without a matrix every path is unknown (DIS): nothing is guessed. */
export function tableFromMatrix(
  topology: Topology | null,
  gpus: readonly TableGpu[],
  nets: readonly TableNet[],
  netSpeedMbps: ReadonlyMap<string, number>,
  cpu: CpuInfo,
): PathTable {
  const column = (net: TableNet) => topology?.nics.find((n) => (n.device ?? n.name) === net.device)?.name ?? null;
  const token = (g: TableGpu, net: TableNet) => {
    const col = column(net);
    return col === null ? null : (topology?.links[g.name]?.[col] ?? null);
  };
  const gpuNet = gpus.map((g) =>
    nets.map((net): Path => {
      const type = tokenPath(token(g, net));
      if (type === null || (type === 'SYS' && g.c2c === true)) return UNREACHABLE;
      const speed = (netSpeedMbps.get(net.name) ?? 10000) / 8000;
      return { type, bw: Math.min(MATRIX_PCI_BW, speed, type === 'SYS' ? interCpuBandwidth(cpu) : Infinity), route: [] };
    }),
  );
  const cpuOf = gpus.map((g, i) => numaOf(topology?.gpus.find((t) => t.name === g.name)) ?? `GPU${i}`);
  const cpus = [...new Set(cpuOf)];
  const near = (g: number, net: TableNet) => ['PIX', 'PXB', 'PHB'].includes(tokenPath(token(gpus[g], net)) ?? '');
  return {
    source: 'matrix',
    gpus,
    nets,
    cpus,
    gpuGpu: gpus.map((g) => gpus.map((p) => gpuToGpu(topology?.links[g.name]?.[p.name], g.cc))),
    gpuNet,
    netGpu: nets.map((_, n) => gpus.map((_g, g) => gpuNet[g][n])),
    gpuCpu: gpus.map((g, i) => cpus.map((c) => cpuPath(c === cpuOf[i] ? (g.c2c ? 'C2C' : 'PHB') : 'SYS', cpu))),
    netCpu: nets.map((net) => cpus.map((c) => cpuPath(gpus.some((_, g) => cpuOf[g] === c && near(g, net)) ? 'PHB' : 'SYS', cpu))),
  };
}

/** The first NUMA node of a GPU's affinity (`0,3-9` → `0`); null when not printed. */
function numaOf(gpu: TopoGpu | undefined): string | null {
  const m = /^\s*(\d+)/.exec(gpu?.numaAffinity ?? '');
  return m ? m[1] : null;
}

function cpuPath(type: PathType, cpu: CpuInfo): Path {
  const bw = type === 'C2C' ? c2cBandwidth() : type === 'SYS' ? interCpuBandwidth(cpu) : MATRIX_PCI_BW;
  return { type, bw, route: [] };
}

function gpuToGpu(token: string | undefined | null, cc: number | null): Path {
  const type = tokenPath(token);
  if (type === null) return UNREACHABLE;
  const nv = token ? NVLINK.exec(token) : null;
  return { type, bw: nv ? Number(nv[1]) * nvlinkBandwidth(cc) : MATRIX_PCI_BW, route: [] };
}
