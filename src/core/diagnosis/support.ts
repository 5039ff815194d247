// NCCL's first GPUDirect RDMA condition: both sides must support it (docs/nccl-gdr.md §3). The NIC
// side counts as supported when a peer-memory client is registered or dma-buf works; the GPU side
// fails for parts without GPUDirect RDMA.
import { factOf } from './evidence';
import { RuleContext } from './context';
import { anyPeermemLoaded } from './hostState';

export interface NicSideSupport {
  /** null when the probe could not tell. */
  readonly ok: boolean | null;
  readonly why: string;
}

export function nicSideSupport({ report, host, dmabuf }: RuleContext): NicSideSupport {
  const p = host.peermem;
  if ((p.registered?.length ?? 0) > 0) return { ok: true, why: `peer memory registered (${p.registered?.join(', ')})` };
  if (dmabuf.available === true) return { ok: true, why: 'dma-buf available' };
  const brands = (factOf(report, 'smi-q')?.gpus ?? []).map((g) => g.productBrand ?? '');
  if (brands.length > 0 && brands.every((b) => b === 'GeForce' || b === 'Titan'))
    return { ok: false, why: 'the GPU does not support GPUDirect RDMA' };
  const loaded = anyPeermemLoaded(p);
  if (loaded === false && dmabuf.available === false)
    return { ok: false, why: 'no peer-memory module is loaded and dma-buf is not available' };
  if (loaded === true && p.registered !== null)
    return { ok: false, why: 'the peer-memory module is loaded but not registered (no memory_peers version file)' };
  return { ok: null, why: 'peer-memory registration and dma-buf could not both be checked' };
}
