// Which of NCCL's GPUDirect RDMA rules hold for a given release. Each switch names the release
// where the rule changed, as read in NVIDIA/nccl's tags (src/graph/paths.cc, src/graph/topo.h,
// src/include/graph.h, src/transport/net_ib*): docs/nccl-gdr.md tells the history in words.
import { NcclVersion, atLeast } from './version';
import { PathType } from './pathType';

/** How NCCL picks the GPU that relays a GPU's sends to a NIC over NVLink (ncclTopoComputePaths, "PXN"). */
export type PxnRule =
  /** < 2.12: no PXN. */
  | 'none'
  /** 2.12.7–2.12.10: the first NVLink peer within PXB of the NIC, in device order. */
  | 'first-peer'
  /** 2.12.12–2.17: any NVLink peer within PXB of the NIC, preferring one whose own first NIC it is, else the last found. */
  | 'any-peer'
  /** ≥ 2.18: only the GPU that NCCL assigns the NIC to (ncclTopoGetLocalGpu). */
  | 'nic-local-gpu';

/** How a GPU on a C2C (Grace) CPU reaches a NIC on that CPU's PCIe. */
export type C2cRule =
  /** < 2.26: no C2C link type; the path is PHB, beyond the default. */
  | 'none'
  /** 2.26: NCCL_NET_GDR_C2C (default 0) turns a PHB distance into C2C in ncclTopoCheckGdr. */
  | 'check-gdr-phb'
  /** 2.27.3: every PHB path of a GPU whose local CPU link is C2C becomes P2C. */
  | 'p2c-all-phb'
  /** 2.27.5–2.28: P2C where GPU→CPU is C2C and NIC→that CPU is PHB (mergePathType), for every NIC. */
  | 'p2c-merge'
  /** ≥ 2.29: as p2c-merge, for the GPU's local NICs only. */
  | 'p2c-merge-local';

export interface NcclRules {
  readonly version: NcclVersion;
  /** The path enum, nearest first (its index is the number NCCL prints in "distance a > b"). */
  readonly order: readonly PathType[];
  readonly pxn: PxnRule;
  /** ≥ 2.14: a peer with more bandwidth to the NIC qualifies for PXN even when the GPU's own path is short. */
  readonly pxnWhenPeerFaster: boolean;
  /**
   * The GPU's own path must be beyond this for PXN (unless the peer is faster): PXB; in 2.27.5 `pxnType` (PXB, or P2C
   * with NCCL_PXN_C2C); PXN from 2.27.6.
   */
  readonly pxnDirectBeyond: PathType | 'pxnType';
  /** ≥ 2.30: the relaying GPU must itself pass ncclTopoCheckGdr (read) for that NIC. */
  readonly pxnPeerNeedsGdr: boolean;
  /** NCCL_PXN_C2C: null before 2.27 (no such parameter); its default otherwise (0 in 2.27, 1 from 2.28). */
  readonly pxnC2cDefault: 0 | 1 | null;
  readonly c2c: C2cRule;
  /** NCCL_NET_GDR_C2C: null before 2.26; its default otherwise (0 in 2.26, 1 from 2.27). */
  readonly gdrC2cDefault: 0 | 1 | null;
  /** ≥ 2.29: NCCL_NET_GDR_C2C raises the default GDR threshold to P2C; 2.26–2.28 map the distance to C2C instead. */
  readonly c2cThreshold: boolean;
  /** ≥ 2.19: the GDR-read restriction (no NVLink peer) applies only below compute capability 8.0. */
  readonly gdrReadOnlyPreAmpere: boolean;
  /** Files whose presence counts as peer memory (src/transport/net_ib: ncclIbGdrSupport). */
  readonly peermemFiles: readonly string[];
  /** ≥ 2.13: NET/IB can register GPU memory through dma-buf (NCCL_PTR_DMABUF, NCCL_DMABUF_ENABLE; v2.13.4-1 src/init.cc). */
  readonly dmabuf: boolean;
  /** ≥ 2.10: without NCCL_TOPO_FILE, NCCL loads /var/run/nvidia-topologyd/virtualTopology.xml (v2.10.3-1 src/graph/topo.cc). */
  readonly virtualTopology: boolean;
  /**
   * ncclTopoGetLocalNet starts at `dev % localGpuCount` from 2.30.7, at the raw device number in 2.19–2.30.4; before
   * 2.19 NCCL spread NICs by masks (docs/nccl-gdr.md §8), approximated by the newest rule.
   */
  readonly netDevModulo: boolean;
  /** ≥ 2.30.7: a GPU's PCI link is its current generation and width from NVML; before, the lower of its and its port's maximum (xml.cc). */
  readonly gpuLinkCurrent: boolean;
  /** ≥ 2.13: "NET/<net> : GPU Direct RDMA Enabled|Disabled for HCA" (topo.cc); before, only net_ib's "Disabled for HCA … (no module)". */
  readonly hcaGdrLine: boolean;
  /** < 2.30: "GPU Direct RDMA Disabled|Enabled for GPU … (distance a > b)" is an INFO line (paths.cc); from 2.30 TRACE only. */
  readonly perGpuGdrInfo: boolean;
}

export const MEMORY_PEERS_NV_MEM = '/sys/kernel/mm/memory_peers/nv_mem/version';
export const MEMORY_PEERS_NV_MEM_NC = '/sys/kernel/mm/memory_peers/nv_mem_nc/version';
export const SYS_MODULE_NVIDIA_PEERMEM = '/sys/module/nvidia_peermem/version';

export function ncclRules(v: NcclVersion): NcclRules {
  return {
    version: v,
    order: pathOrder(v),
    pxn: !atLeast(v, 2, 12) ? 'none' : atLeast(v, 2, 18) ? 'nic-local-gpu' : atLeast(v, 2, 12, 12) ? 'any-peer' : 'first-peer',
    pxnWhenPeerFaster: atLeast(v, 2, 14),
    pxnDirectBeyond: atLeast(v, 2, 27, 6) ? 'PXN' : atLeast(v, 2, 27, 5) ? 'pxnType' : 'PXB',
    pxnPeerNeedsGdr: atLeast(v, 2, 30),
    pxnC2cDefault: !atLeast(v, 2, 27) ? null : atLeast(v, 2, 28) ? 1 : 0,
    c2c: c2cRule(v),
    gdrC2cDefault: !atLeast(v, 2, 26) ? null : atLeast(v, 2, 27) ? 1 : 0,
    c2cThreshold: atLeast(v, 2, 29),
    gdrReadOnlyPreAmpere: atLeast(v, 2, 19),
    dmabuf: atLeast(v, 2, 13),
    virtualTopology: atLeast(v, 2, 10),
    netDevModulo: atLeast(v, 2, 30, 7) || !atLeast(v, 2, 19),
    gpuLinkCurrent: atLeast(v, 2, 30, 7),
    hcaGdrLine: atLeast(v, 2, 13),
    perGpuGdrInfo: !atLeast(v, 2, 30),
    peermemFiles: [
      MEMORY_PEERS_NV_MEM,
      ...(atLeast(v, 2, 22) ? [MEMORY_PEERS_NV_MEM_NC] : []),
      ...(atLeast(v, 2, 23) ? [SYS_MODULE_NVIDIA_PEERMEM] : []),
    ],
  };
}

function c2cRule(v: NcclVersion): C2cRule {
  if (!atLeast(v, 2, 26)) return 'none';
  if (!atLeast(v, 2, 27)) return 'check-gdr-phb';
  if (!atLeast(v, 2, 27, 5)) return 'p2c-all-phb';
  return atLeast(v, 2, 29) ? 'p2c-merge-local' : 'p2c-merge';
}

/** src/include/graph.h (src/graph/topo.h before 2.8): the PATH_* values of each era. */
function pathOrder(v: NcclVersion): PathType[] {
  if (!atLeast(v, 2, 8)) return ['LOC', 'NVL', 'PIX', 'PXB', 'PHB', 'SYS', 'NET'];
  if (!atLeast(v, 2, 12)) return ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PHB', 'SYS', 'NET'];
  if (!atLeast(v, 2, 26)) return ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET', 'DIS'];
  if (!atLeast(v, 2, 27)) return ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET', 'DIS'];
  if (!atLeast(v, 2, 27, 5)) return ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'P2C', 'PHB', 'SYS', 'NET', 'DIS'];
  return ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET', 'DIS'];
}
