// The GPU↔NIC part of ncclTopoComputePaths (src/graph/paths.cc): after the plain path search, NCCL
// (0) sends GPU↔GPU traffic beyond NCCL_P2P_LEVEL (or all of it, NCCL_P2P_DISABLE=1) through the CPU,
// (1) lets a GPU on a Grace CPU reach that CPU's NICs as P2C, (2) routes a GPU's sends to a NIC through
// an NVLink peer closer to it (PXN), and (3) sends the traffic of pairs that cannot use GPUDirect RDMA
// through the GPU's CPU. Each step follows the release `ctx.rules` describe.
import { GdrContext, checkGdr } from './checkGdr';
import { localCpuOf, localGpuOf, localNetOf, localOf } from './local';
import { Path, PathTable } from './pathTable';
import { PathType, pathRank } from './pathType';

export function computePaths(input: PathTable, ctx: GdrContext): PathTable {
  const table: PathTable = {
    ...input,
    gpuGpu: input.gpuGpu.map((r) => [...r]),
    gpuNet: input.gpuNet.map((r) => [...r]),
    netGpu: input.netGpu.map((r) => [...r]),
  };
  divertP2p(table, ctx);
  upgradeC2c(table, ctx);
  const pxnOff = ctx.rules.pxn === 'none' || ctx.env.pxnDisable === 1;
  for (let n = 0; n < table.nets.length; n++) {
    for (let g = 0; g < table.gpus.length; g++) {
      if (!pxnOff) relayThroughPeer(table, ctx, g, n);
      if (pathRank(table.gpuNet[g][n].type, ctx.rules.order) < pathRank('PHB', ctx.rules.order)) divertIfNoGdr(table, ctx, g, n);
    }
  }
  return table;
}

/**
 * ncclTopoCheckP2p with the user's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE (every release modelled, 2.7 to 2.30): a GPU
 * pair whose path is beyond it goes through g's local CPU (addInterStep), so it is no NVLink pair any more: no
 * PXN through it, and no NVLink peer for the GDR-read rule. NCCL's own default (PXB) keeps every NVLink pair.
 */
function divertP2p(table: PathTable, ctx: GdrContext): void {
  const level = ctx.env.p2pLevel;
  if (level === null) return;
  const { order } = ctx.rules;
  for (let g = 0; g < table.gpus.length; g++) {
    const cpu = localCpuOf(table, g, order);
    for (let p = 0; p < table.gpus.length; p++) {
      if (p === g || pathRank(table.gpuGpu[p][g].type, order) <= pathRank(level, order)) continue;
      const [toCpu, fromCpu] = cpu === null ? [null, null] : [table.gpuCpu[p][cpu], table.gpuCpu[g][cpu]];
      const type = toCpu && fromCpu ? merge(toCpu.type, fromCpu.type, order) : 'PHB';
      const bw = Math.min(toCpu?.bw ?? table.gpuGpu[p][g].bw, fromCpu?.bw ?? table.gpuGpu[p][g].bw);
      table.gpuGpu[p][g] = { type, bw, route: toCpu && fromCpu ? [...toCpu.route, ...[...fromCpu.route].reverse().slice(1)] : [] };
    }
  }
}

/** mergePathType: the worse class, except that C2C joined to PHB is P2C. */
function merge(a: PathType, b: PathType, order: readonly PathType[]): PathType {
  const [lo, hi] = pathRank(a, order) <= pathRank(b, order) ? [a, b] : [b, a];
  return hi === 'PHB' && lo === 'C2C' ? 'P2C' : hi;
}

function upgradeC2c(table: PathTable, ctx: GdrContext): void {
  const { c2c, order } = ctx.rules;
  if (c2c === 'none' || c2c === 'check-gdr-phb' || table.cpus.length === 0) return;
  for (let g = 0; g < table.gpus.length; g++) {
    const cpu = localCpuOf(table, g, order);
    if (cpu === null) continue;
    const nets = c2c === 'p2c-merge-local' ? localOf(table.gpuNet[g], order) : table.nets.map((_, i) => i);
    for (const n of nets) {
      const p2c =
        c2c === 'p2c-all-phb'
          ? table.gpuNet[g][n].type === 'PHB' && table.gpuCpu[g][cpu].type === 'C2C'
          : merge(table.gpuCpu[g][cpu].type, table.netCpu[n][cpu].type, order) === 'P2C';
      if (!p2c) continue;
      table.gpuNet[g][n] = atMost(table.gpuNet[g][n], 'P2C', order);
      table.netGpu[n][g] = atMost(table.netGpu[n][g], 'P2C', order);
    }
  }
}

function atMost(p: Path, type: PathType, order: readonly PathType[]): Path {
  return pathRank(p.type, order) <= pathRank(type, order) ? p : { ...p, type };
}

/** PXN: which peer may relay GPU g's traffic to NIC port n, by release; the path becomes PXN through it. */
function relayThroughPeer(table: PathTable, ctx: GdrContext, g: number, n: number): void {
  const peer = ctx.rules.pxn === 'nic-local-gpu' ? nicLocalPeer(table, ctx, g, n) : anyPeer(table, ctx, g, n);
  if (peer === null) return;
  const toPeer = table.gpuGpu[g][peer];
  const fromPeer = table.gpuNet[peer][n];
  table.gpuNet[g][n] = {
    type: 'PXN',
    bw: Math.min(toPeer.bw, fromPeer.bw),
    proxy: peer,
    route: [...toPeer.route, ...fromPeer.route.slice(1)],
  };
}

/** ≥ 2.18: only the GPU the NIC is assigned to, if it is close enough (with GDR, from 2.30) and NVLinked to g. */
function nicLocalPeer(table: PathTable, ctx: GdrContext, g: number, n: number): number | null {
  const peer = localGpuOf(table, n, ctx.rules);
  if (peer === null || peer === g) return null;
  if (ctx.rules.pxnPeerNeedsGdr && checkGdr(table, ctx, peer, n, true).enabled === false) return null;
  return qualifies(table, ctx, peer, g, n) ? peer : null;
}

/**
 * 2.12.12-2.17: any NVLink peer close to the NIC, preferring one whose first NIC it is, else the last found;
 * 2.12.7-2.12.10: the first one found (v2.12.7-1 paths.cc: `addInterStep(…); break;`).
 */
function anyPeer(table: PathTable, ctx: GdrContext, g: number, n: number): number | null {
  let chosen: number | null = null;
  for (let p = 0; p < table.gpus.length; p++) {
    if (p === g || !qualifies(table, ctx, p, g, n)) continue;
    chosen = p;
    if (ctx.rules.pxn === 'first-peer' || localNetOf(table, p, 0, ctx.rules) === n) break;
  }
  return chosen;
}

/** The four PXN conditions (peer close to the NIC, NVLink to g, same host, and faster or g's own path too long). */
function qualifies(table: PathTable, ctx: GdrContext, peer: number, g: number, n: number): boolean {
  const { order, pxnWhenPeerFaster, pxnDirectBeyond, pxnC2cDefault } = ctx.rules;
  const peerPath = table.gpuNet[peer][n];
  const own = table.gpuNet[g][n];
  const pxnC2c = (ctx.env.pxnC2c ?? pxnC2cDefault ?? 0) !== 0;
  const close = pathRank(peerPath.type, order) <= pathRank('PXB', order) || (pxnC2c && peerPath.type === 'P2C');
  const nvlink = pathRank(table.gpuGpu[peer][g].type, order) <= pathRank('NVL', order);
  // 2.27.5 compares with pxnType, the peer's own limit (v2.27.5-1 paths.cc); PXB before, PXN from 2.27.6.
  const beyond = pxnDirectBeyond === 'pxnType' ? (pxnC2c ? 'P2C' : 'PXB') : pxnDirectBeyond;
  const ownTooFar = pathRank(own.type, order) > pathRank(beyond, order);
  return close && nvlink && ((pxnWhenPeerFaster && peerPath.bw > own.bw) || ownTooFar);
}

/** No GPUDirect RDMA for (g, n) on receives: NCCL routes both directions through the GPU's local CPU. */
function divertIfNoGdr(table: PathTable, ctx: GdrContext, g: number, n: number): void {
  if (checkGdr(table, ctx, g, n, false).enabled !== false) return;
  const { order } = ctx.rules;
  const cpu = localCpuOf(table, g, order);
  const toCpu = cpu === null ? null : table.gpuCpu[g][cpu];
  const cpuToNet = cpu === null ? null : table.netCpu[n][cpu];
  const type = toCpu && cpuToNet ? merge(toCpu.type, cpuToNet.type, order) : 'PHB';
  const bw = Math.min(toCpu?.bw ?? table.gpuNet[g][n].bw, cpuToNet?.bw ?? table.gpuNet[g][n].bw);
  const route = toCpu && cpuToNet ? [...toCpu.route, ...[...cpuToNet.route].reverse().slice(1)] : [];
  table.gpuNet[g][n] = { type, bw, route };
  table.netGpu[n][g] = { type, bw, route: [...route].reverse() };
}
