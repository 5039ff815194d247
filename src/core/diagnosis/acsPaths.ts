// Why a finding about ACS names the bridges it names: they are the bridges of the GPU↔NIC paths NCCL uses
// now (pciePaths.ts: every NIC at a GPU's best distance, ncclTopoGetLocalNet in src/graph/search.cc, from the
// relaying GPU for PXN, ncclTopoComputePaths in src/graph/paths.cc). Loading the peer-memory module can add
// PXN paths (the demo: 7 paths → 8, GPU1 through GPU0, over the same 14 bridges).
import { t } from '../l10n';
import type { PairPath } from './pciePaths';

export function acsPathsNote(paths: readonly PairPath[]): string {
  const pxn = paths.filter((p) => p.pathGpu !== p.gpu).map((p) => t('{0} through {1}', p.gpu, p.pathGpu));
  return t(
    'These are the bridges of the GPU↔NIC paths NCCL uses now that stay below a PCIe switch ({0}{1}): each GPU, or the NVLink peer that relays for it (PXN), to every NIC at its best distance, over which NCCL spreads its channels (NVIDIA/nccl src/graph/search.cc ncclTopoGetLocalNet). With GPUDirect RDMA on, the NIC reads and writes GPU memory across these bridges, so their ACS matters; turning it on can add PXN paths to this list (src/graph/paths.cc ncclTopoComputePaths).',
    paths.length === 1 ? t('1 path') : t('{0} paths', paths.length),
    pxn.length > 0 ? t('; PXN: {0}', pxn.join(', ')) : '',
  );
}
