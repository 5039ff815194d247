// The job environment the GPU↔NIC verdicts suggest (DOMAIN.md §2): NCCL_IB_HCA with exact names and
// active ports in GPU order, and NCCL_NET_GDR_LEVEL only where GPUs have no NIC within the default.
// A suggestion to measure (nccl-tests), never applied by the tool.
import { GpuNicPair } from './pairs';

export interface SuggestedEnv {
  readonly kind: 'suggestion';
  /** Variable → value, e.g. `NCCL_IB_HCA` → `=mlx5_2:1,mlx5_0:1`. Empty when nothing is worth setting. */
  readonly env: Record<string, string>;
  /** Why each value, and what was left out. */
  readonly notes: string[];
}

export function suggestEnv(pairs: readonly GpuNicPair[]): SuggestedEnv {
  const env: Record<string, string> = {};
  const notes: string[] = [];
  const hca = ibHcaList(pairs, notes);
  if (hca.length > 0) {
    env.NCCL_IB_HCA = `=${hca.join(',')}`;
    notes.push('NCCL_IB_HCA: the nearest RDMA device(s) of each GPU, in GPU order; "=" asks for exact names, ":<port>" an active port from ibv_devinfo.');
  }
  const level = gdrLevel(pairs, notes);
  if (level) env.NCCL_NET_GDR_LEVEL = level;
  if (Object.keys(env).length === 0) notes.push('Nothing to set: no RDMA NIC in the topology, or NCCL\'s defaults already fit.');
  return { kind: 'suggestion', env, notes };
}

function ibHcaList(pairs: readonly GpuNicPair[], notes: string[]): string[] {
  const seen = new Set<string>();
  const list: string[] = [];
  for (const nic of pairs.flatMap((p) => p.nics)) {
    if (nic.device === null || seen.has(nic.device)) continue;
    seen.add(nic.device);
    if (nic.portActive === false) {
      notes.push(`${nic.device} left out of NCCL_IB_HCA: ibv_devinfo shows no active port.`);
      continue;
    }
    list.push(nic.port === null ? nic.device : `${nic.device}:${nic.port}`);
  }
  return list;
}

/** PHB when some GPUs reach their nearest NIC only through a host bridge (PHB/NODE); SYS is never suggested. */
function gdrLevel(pairs: readonly GpuNicPair[], notes: string[]): string | null {
  const far = pairs.filter((p) => p.ncclPath === 'PHB' || p.ncclPath === 'SYS');
  const sys = far.filter((p) => p.ncclPath === 'SYS').map((p) => p.gpu);
  if (sys.length > 0) {
    notes.push(`${sys.join(', ')} reach a NIC only across the CPU sockets (SYS): NCCL_NET_GDR_LEVEL=SYS would force GPUDirect RDMA there, usually slower than staging through host memory; not suggested. A NIC on those GPUs' PCIe switch (or PXN through an NVLink peer) is the real fix.`);
  }
  const phb = far.filter((p) => p.ncclPath === 'PHB').map((p) => p.gpu);
  if (phb.length === 0) return null;
  notes.push(`NCCL_NET_GDR_LEVEL=PHB: ${phb.join(', ')} reach their nearest NIC through a PCIe host bridge (PHB/NODE), beyond the default PXB; this enables GPUDirect RDMA for them at a cost (traffic crosses the CPU's root complex). Measure with nccl-tests before keeping it.`);
  return 'PHB';
}
