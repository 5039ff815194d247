// The path table read straight off `nvidia-smi topo -m`, for when sysfs was not read (a saved matrix,
// an older probe, a host whose sysfs lacks a device). nvidia-smi's classes map onto NCCL's: PIX and PXB
// as they are, PHB and NODE to PHB (NCCL has no NODE: two host bridges of one NUMA node meet in its CPU
// node), SYS and the old SOC to SYS. What the matrix cannot say (which CPU a NIC hangs off, a Grace
// GPU's C2C link) stays unknown: no P2C is derived from it.
import type { Topology } from '../../parsers/topo';
import { CpuInfo, interCpuBandwidth, nvlinkBandwidth, pciBandwidth } from './bandwidth';
import { Path, PathTable, TableGpu, TableNet, UNREACHABLE } from './pathTable';
import { PathType } from './pathType';

const TOKEN_PATH: Record<string, PathType> = { X: 'LOC', PIX: 'PIX', PXB: 'PXB', PHB: 'PHB', NODE: 'PHB', SYS: 'SYS', SOC: 'SYS' };
const NVLINK = /^NV(\d+)$/;
/** A PCIe Gen4 x16 link: the matrix gives no widths, so every PCIe hop gets the same bandwidth. */
const MATRIX_PCI_BW = pciBandwidth('16.0 GT/s PCIe', 16);

export function tokenPath(token: string | null | undefined): PathType | null {
  if (token === null || token === undefined) return null;
  return NVLINK.test(token) ? 'NVL' : TOKEN_PATH[token] ?? null;
}

/** Without a matrix every path is unknown (DIS): nothing is guessed. */
export function tableFromMatrix(
  topology: Topology | null, gpus: readonly TableGpu[], nets: readonly TableNet[], netSpeedMbps: ReadonlyMap<string, number>, cpu: CpuInfo,
): PathTable {
  const column = (net: TableNet) => topology?.nics.find((n) => (n.device ?? n.name) === net.device)?.name ?? null;
  const gpuNet = gpus.map((g) => nets.map((net) => {
    const col = column(net);
    const type = tokenPath(col === null ? null : topology?.links[g.name]?.[col]);
    if (type === null) return UNREACHABLE;
    const speed = (netSpeedMbps.get(net.name) ?? 10000) / 8000;
    const bw = Math.min(MATRIX_PCI_BW, speed, type === 'SYS' ? interCpuBandwidth(cpu) : Infinity);
    return { type, bw, route: [] } as Path;
  }));
  const gpuGpu = gpus.map((g) => gpus.map((p) => gpuToGpu(topology?.links[g.name]?.[p.name], g.cc)));
  return {
    source: 'matrix', gpus, nets, cpus: [],
    gpuGpu, gpuNet, netGpu: nets.map((_, n) => gpus.map((_g, g) => gpuNet[g][n])), gpuCpu: gpus.map(() => []), netCpu: nets.map(() => []),
  };
}

function gpuToGpu(token: string | undefined | null, cc: number | null): Path {
  const type = tokenPath(token);
  if (type === null) return UNREACHABLE;
  const nv = token ? NVLINK.exec(token) : null;
  return { type, bw: nv ? Number(nv[1]) * nvlinkBandwidth(cc) : MATRIX_PCI_BW, route: [] };
}
