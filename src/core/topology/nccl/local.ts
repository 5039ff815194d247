// Which devices NCCL counts as "local" to one another (src/graph/topo.cc, NCCL 2.30): the NICs a GPU
// uses, the GPU a NIC is assigned to, and a GPU's own CPU.
import { Path, PathTable } from './pathTable';
import { PathType, pathRank } from './pathType';
import type { NcclRules } from './rules';

/** MAXCHANNELS in src/include/device.h: how many channels ncclTopoGetLocalGpu tries. */
const MAX_CHANNELS = 64;

/**
 * ncclTopoGetLocal: the targets with the highest bandwidth and, among those, the best path class; ties
 * are all kept, in index order.
 */
export function localOf(paths: readonly Path[], order: readonly PathType[]): number[] {
  let maxBw = 0;
  let minRank = pathRank('DIS', order);
  let locals: number[] = [];
  paths.forEach((p, i) => {
    const rank = pathRank(p.type, order);
    if (p.bw > maxBw || (p.bw === maxBw && rank < minRank)) {
      maxBw = p.bw;
      minRank = rank;
      locals = [];
    }
    if (p.bw === maxBw && rank === minRank) locals.push(i);
  });
  return locals;
}

/** What picking a channel's NIC depends on: the path order, and whether the start is taken modulo the local GPUs. */
export type NetPickRules = Pick<NcclRules, 'order' | 'netDevModulo'>;

/**
 * ncclTopoGetLocalNet (NETDEVS_POLICY AUTO): the NIC a GPU's channel uses. GPUs sharing the same local
 * NICs spread over them by device number (`dev % localGpuCount` from v2.30.7-1; the raw `dev` in 2.19 –
 * 2.30.4, src/graph/topo.cc), mirrored when the count is a power of two.
 */
export function localNetOf(table: PathTable, gpu: number, channel: number, rules: NetPickRules): number | null {
  const { order } = rules;
  const nets = localOf(table.gpuNet[gpu], order);
  if (nets.length === 0 || table.nets.length === 0) return null;
  const gpus = localOf(table.netGpu[nets[0]], order);
  const perGpu = Math.ceil(nets.length / Math.max(gpus.length, 1));
  let net = rules.netDevModulo ? table.gpus[gpu].dev % Math.max(gpus.length, 1) : table.gpus[gpu].dev;
  if (isPow2(nets.length)) net = mirrorBits(net, nets.length);
  net += channel % perGpu;
  return nets[net % nets.length];
}

/** ncclTopoGetLocalGpu: the first of the NIC's local GPUs that uses it on some channel; null if none does. */
export function localGpuOf(table: PathTable, net: number, rules: NetPickRules): number | null {
  const gpus = localOf(table.netGpu[net], rules.order);
  for (let c = 0; c < MAX_CHANNELS; c++) {
    for (const g of gpus) if (localNetOf(table, g, c, rules) === net) return g;
  }
  return null;
}

/** ncclGetLocalCpu: among the GPU's local CPUs, the one with the fewest hops; null without CPUs. */
export function localCpuOf(table: PathTable, gpu: number, order: readonly PathType[]): number | null {
  const cpus = table.cpus.length === 0 ? [] : localOf(table.gpuCpu[gpu], order);
  if (cpus.length === 0) return null;
  return cpus.reduce((best, c) => (table.gpuCpu[gpu][c].route.length < table.gpuCpu[gpu][best].route.length ? c : best));
}

function isPow2(v: number): boolean {
  return (v & (v - 1)) === 0;
}

function mirrorBits(val: number, pow2: number): number {
  let mirror = 0;
  for (let b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1) if (val & b) mirror |= mb;
  return mirror;
}
