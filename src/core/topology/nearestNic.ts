// For each GPU, the NIC(s) it reaches over the shortest path in `nvidia-smi topo -m`: the NICs
// NCCL would prefer for it, and the ones whose link decides whether GPUDirect RDMA is used.
import type { Topology } from '../parsers/topo';
import { classifyLink } from './linkTypes';

export interface NicLink {
  /** The NIC's column name (`NIC0`, or the RDMA device on older drivers). */
  readonly nic: string;
  /** RDMA device name (`mlx5_0`), or null when the output does not say. */
  readonly device: string | null;
  /** The GPU↔NIC link token as printed. */
  readonly link: string;
}

export interface NearestNic {
  readonly gpu: string;
  /**
   * The link token of the shortest path, as printed (`PIX`). Tied NICs share it, except that
   * distinct unknown tokens also tie (nothing ranks them); then it is the first NIC's.
   */
  readonly link: string;
  /** Its NVML level (PIX 10 … SYS 50); null for a token this tool does not know. */
  readonly nvmlLevel: number | null;
  /** Whether NCCL's default `NCCL_NET_GDR_LEVEL` (PXB) uses GPUDirect RDMA over it; null if unknown. */
  readonly ncclDefaultUsesGdr: boolean | null;
  /** Every NIC at that distance (ties are all kept), in column order. */
  readonly nics: NicLink[];
}

/** Unknown tokens rank behind every known level: nothing says they are near. */
const UNKNOWN_RANK = Number.POSITIVE_INFINITY;

/** One entry per GPU; an empty list when the topology has no NIC columns. */
export function nearestNics(topology: Topology): NearestNic[] {
  if (topology.nics.length === 0) return [];
  return topology.gpus.flatMap((gpu) => {
    const nearest = nearestFor(topology, gpu.name);
    return nearest ? [nearest] : [];
  });
}

function nearestFor(topology: Topology, gpu: string): NearestNic | null {
  let best: { link: string; rank: number; nics: NicLink[] } | null = null;
  for (const nic of topology.nics) {
    const link = topology.links[gpu]?.[nic.name];
    if (link === null || link === undefined) continue;
    const rank = classifyLink(link).nvmlLevel ?? UNKNOWN_RANK;
    const candidate = { nic: nic.name, device: nic.device, link };
    if (best === null || rank < best.rank) best = { link, rank, nics: [candidate] };
    else if (rank === best.rank) best.nics.push(candidate);
  }
  if (best === null) return null;
  const link = classifyLink(best.link);
  return { gpu, link: best.link, nvmlLevel: link.nvmlLevel, ncclDefaultUsesGdr: link.ncclDefaultUsesGdr, nics: best.nics };
}
