// ncclTopoCheckGdr (src/graph/paths.cc): whether NCCL uses GPUDirect RDMA between one GPU and one NIC
// port, for reads (sends: the NIC reads GPU memory) or writes (receives), in the release `rules` describe.
import { NcclEnv } from './env';
import { localCpuOf } from './local';
import { PathTable } from './pathTable';
import { PathType, pathRank } from './pathType';
import { NcclRules } from './rules';

export interface GdrContext {
  readonly rules: NcclRules;
  readonly env: NcclEnv;
  /** NIC-side support per net: peer memory (the release's files) or dma-buf; null when unknown. */
  readonly netSupport: readonly (boolean | null)[];
}

/** Why GPUDirect RDMA is off (or could not be decided) for a pair. */
export type GdrBlock =
  | 'nic-support' // net->net.gdrSupport == 0
  | 'gpu-support' // gpu->gpu.gdrSupport == 0
  | 'read-disabled' // NCCL_NET_GDR_READ=0
  | 'read-no-nvlink' // NCCL_NET_GDR_READ auto, no NVLink peer (before 2.19: any GPU; from 2.19: below 8.0)
  | 'distance'; // path beyond the threshold

export interface GdrDecision {
  /** null: a fact it depends on is unknown (see `unknown`). */
  readonly enabled: boolean | null;
  readonly block: GdrBlock | null;
  /** The facts assumed because the probe could not read them. */
  readonly unknown: readonly ('nic-support' | 'gpu-support' | 'compute-capability' | 'path' | 'topo-file')[];
  /** The distance compared (the relaying GPU's, for PXN), and the threshold. */
  readonly distance: PathType;
  readonly threshold: PathType;
  /** The GPU whose distance was judged: the relaying one for PXN. */
  readonly judgedGpu: number;
  /** NCCL_NET_GDR_C2C turned a P2C (2.27-2.28) or PHB (2.26) distance into C2C. */
  readonly viaC2c: boolean;
}

/** NCCL_NET_GDR_C2C as NCCL reads it: the user's value, else the release's default, 0 where it has none. */
export function gdrC2cOn(ctx: GdrContext): boolean {
  return (ctx.env.gdrC2c ?? ctx.rules.gdrC2cDefault ?? 0) !== 0;
}

export function gdrThreshold(ctx: GdrContext): PathType {
  if (ctx.env.gdrLevel !== null) return ctx.env.gdrLevel;
  return ctx.rules.c2cThreshold && gdrC2cOn(ctx) ? 'P2C' : 'PXB';
}

export function checkGdr(table: PathTable, ctx: GdrContext, gpu: number, net: number, read: boolean): GdrDecision {
  const order = ctx.rules.order;
  const unknown: GdrDecision['unknown'][number][] = [];
  const base = { unknown, distance: table.gpuNet[gpu][net].type, threshold: gdrThreshold(ctx), judgedGpu: gpu, viaC2c: false };
  const off = (block: GdrBlock): GdrDecision => ({ ...base, enabled: false, block });
  const nicOk = ctx.netSupport[net];
  if (nicOk === false) return off('nic-support');
  if (nicOk === null) unknown.push('nic-support');
  const gpuOk = table.gpus[gpu].gdrSupport;
  if (gpuOk === false) return off('gpu-support');
  if (gpuOk === null) unknown.push('gpu-support');
  if (read) {
    const readBlock = readAllowed(table, ctx, gpu);
    if (readBlock === 'read-disabled' || readBlock === 'read-no-nvlink') return off(readBlock);
    if (readBlock === 'unknown') unknown.push('compute-capability');
  }
  const proxy = table.gpuNet[gpu][net].type === 'PXN' ? (table.gpuNet[gpu][net].proxy ?? gpu) : gpu;
  let distance = table.gpuNet[proxy][net].type;
  let viaC2c = false;
  if (mapsToC2c(table, ctx, proxy, distance)) {
    distance = 'C2C';
    viaC2c = true;
  }
  const judged = { ...base, distance, judgedGpu: proxy, viaC2c };
  if (distance === 'DIS') return { ...judged, enabled: null, block: null, unknown: [...unknown, 'path'] };
  if (pathRank(distance, order) > pathRank(judged.threshold, order)) return { ...judged, enabled: false, block: 'distance' };
  return { ...judged, enabled: unknown.length > 0 ? null : true, block: null };
}

/** The GDR-read rule: NCCL_NET_GDR_READ=0 disables; auto (< 0) disables without an NVLink peer (single GPU excepted). */
function readAllowed(table: PathTable, ctx: GdrContext, gpu: number): 'ok' | 'read-disabled' | 'read-no-nvlink' | 'unknown' {
  const param = ctx.env.gdrRead ?? -2;
  if (param === 0) return 'read-disabled';
  if (param > 0) return 'ok';
  const cc = table.gpus[gpu].cc;
  if (ctx.rules.gdrReadOnlyPreAmpere && cc !== null && cc >= 80) return 'ok';
  const nvlink = table.gpus.length === 1 || table.gpuGpu[gpu].some((p, i) => i !== gpu && p.type === 'NVL');
  if (nvlink) return 'ok';
  return ctx.rules.gdrReadOnlyPreAmpere && cc === null ? 'unknown' : 'read-no-nvlink';
}

/** 2.26: a PHB distance from a GPU whose CPU link is C2C; 2.27-2.28: a P2C distance (NCCL_NET_GDR_C2C on). */
function mapsToC2c(table: PathTable, ctx: GdrContext, gpu: number, distance: PathType): boolean {
  if (!gdrC2cOn(ctx) || ctx.rules.c2cThreshold) return false;
  if (ctx.rules.c2c === 'check-gdr-phb') {
    const cpu = localCpuOf(table, gpu, ctx.rules.order);
    return distance === 'PHB' && cpu !== null && table.gpuCpu[gpu][cpu].type === 'C2C';
  }
  return ctx.rules.c2c !== 'none' && distance === 'P2C';
}
