// The unit of a diagnosis: one thing an expert would tell a host's owner about GPUDirect RDMA,
// with the output line(s) that show it, the quick fix(es) that apply and the document that states
// the rule. Findings are plain JSON: the CLI prints them, the extension shows them.

export type Severity = 'error' | 'warning' | 'info';

/** Quick fixes src/core/fixes/ can perform (docs/peer-memory.md §5, docs/platform.md §3). */
export type FixId = 'load-peermem' | 'persist-peermem' | 'disable-acs' | 'persist-acs' | 'export-timer';

export interface Finding {
  /** Stable id (`peermem.not-loaded`); several findings may share one (one per failed command). */
  readonly id: string;
  /** By impact on GPUDirect RDMA: error = it cannot work, warning = degraded or fragile, info = worth knowing. */
  readonly severity: Severity;
  readonly title: string;
  /** What it means, why, and what to do, in plain words. */
  readonly detail: string;
  /** `<command>: <line as printed>`; a parenthesised text where the evidence is an absence. */
  readonly evidence: string[];
  readonly fixes: FixId[];
  /** The document or code that states the rule. */
  readonly source: string;
  /** The id of the finding this one follows from (a knock-on: knockOn.ts); it is then listed under it. */
  readonly causedBy?: string;
  /** Knock-on findings that follow from this one, in rule order. */
  readonly children?: Finding[];
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Errors first, then warnings, then info; the rules' own order within a severity. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i)
    .map((x) => x.f);
}

/** The primary sources the rules cite; docs/ summarises what each says and where. */
export const SOURCES = {
  driverReadme: 'NVIDIA driver README, "GPUDirect RDMA Peer Memory Client"; GPUDirect RDMA User Manual',
  ncclGdr: 'NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr and src/transport/net_ib/gdr.cc',
  ncclEnv: 'NCCL documentation, Environment Variables (NCCL_NET_GDR_LEVEL, NCCL_IB_HCA)',
  ncclTroubleshooting: 'NCCL documentation, Troubleshooting: GPU Direct RDMA, PCI Access Control Services, IOMMU',
  peermemSymbol:
    'NVIDIA/gpu-operator#2868; Mellanox/nv_peer_memory#79, #84 (ib_register_peer_memory_client is exported only by MLNX_OFED/DOCA-OFED ib_core)',
  peermemRegistration: 'NVIDIA/nccl#1939, #897; NCCL src/transport/net_ib/gdr.cc (memory_peers version files)',
  modulesLoad: 'modules-load.d(5); NCCL Troubleshooting ("must be loaded on each node boot")',
  dmabuf: 'NVIDIA cloud-native-docs gpu-operator-rdma.rst (dma-buf vs nvidia-peermem); NCCL Troubleshooting (NCCL_DMABUF_ENABLE)',
  gpuOperator: 'NVIDIA/gpu-operator: driver container at /run/nvidia/driver owns nvidia-peermem (driver.rdma.enabled)',
  cudaGdr: 'CUDA "GPUDirect RDMA" developer guide (supported GPUs, PCIe topology, BAR1)',
  nvidiaSmiTopo: 'nvidia-smi topo -m legend; NVML nvmlGpuTopologyLevel_t',
  rdmaCore: 'rdma-core ibv_devinfo (libibverbs/examples/devinfo.c)',
  probe: 'gdr-doctor probe (src/core/probe/commands.ts)',
} as const;
