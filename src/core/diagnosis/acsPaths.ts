// Why a finding about ACS names the bridges it names: they are the bridges of the GPU↔NIC paths NCCL uses
// now, and those follow NCCL's own choices. With GPUDirect RDMA off, NCCL routes a GPU's traffic through
// the CPU when that is as good (no switch on the way, no bridge whose ACS matters); with it on, each GPU
// takes the NIC behind its own switch, or a peer GPU's over NVLink (PXN: ncclTopoComputePaths,
// src/graph/paths.cc), so loading the peer-memory module can add bridges to the list (the demo: 6 → 14).
import { t } from '../l10n';
import type { PairPath } from './pciePaths';

export function acsPathsNote(paths: readonly PairPath[]): string {
  const pxn = paths.filter((p) => p.pathGpu !== p.gpu).map((p) => t('{0} through {1}', p.gpu, p.pathGpu));
  return t(
    "These are the bridges of the GPU↔NIC paths NCCL uses now that stay below a PCIe switch ({0}{1}). They follow NCCL's choices: with GPUDirect RDMA off it sends most GPUs' traffic through the CPU, past no switch; with it on, each GPU uses the NIC behind its own switch or a peer GPU's over NVLink (PXN), so turning GPUDirect RDMA on adds bridges to this list (NVIDIA/nccl src/graph/paths.cc ncclTopoComputePaths).",
    paths.length === 1 ? t('1 path') : t('{0} paths', paths.length),
    pxn.length > 0 ? t('; PXN: {0}', pxn.join(', ')) : '',
  );
}
