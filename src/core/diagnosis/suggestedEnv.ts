// The job environment the verdicts suggest: NCCL_IB_HCA naming exactly the ports NCCL gives the GPUs,
// and NCCL_NET_GDR_LEVEL=PHB only where GPUs reach a NIC through a host bridge and nothing nearer.
// A suggestion to measure (nccl-tests), never applied by the tool.
import { HostVerdict } from '../topology/nccl/model';
import type { TableNet } from '../topology/nccl/pathTable';
import { ncclIbHcaValue } from './ibHca';
import { GpuNicPair } from './pairs';
import { t } from '../l10n';

export interface SuggestedEnv {
  readonly kind: 'suggestion';
  /** Variable → value, e.g. `NCCL_IB_HCA` → `=mlx5_0:1,mlx5_2:1`. Empty when nothing is worth setting. */
  readonly env: Record<string, string>;
  /** Why each value, and what was left out. */
  readonly notes: string[];
}

export function suggestEnv(pairs: readonly GpuNicPair[], hv: HostVerdict | null): SuggestedEnv {
  const env: Record<string, string> = {};
  const notes: string[] = [];
  const hca = ncclIbHcaValue(usedPorts(pairs, hv, notes));
  if (hca !== null) {
    env.NCCL_IB_HCA = hca;
    notes.push(
      t(
        'NCCL_IB_HCA: the ports NCCL gives these GPUs ("=" asks for exact names, ":<port>" the port). It only filters: NCCL still walks its own device list and assigns ports to GPUs by topology, whatever the order here.',
      ),
    );
  }
  const level = gdrLevel(pairs, hv, notes);
  if (level) env.NCCL_NET_GDR_LEVEL = level;
  if (Object.keys(env).length === 0) notes.push(t("Nothing to set: no RDMA NIC in the topology, or NCCL's defaults already fit."));
  return { kind: 'suggestion', env, notes };
}

/** The ports the GPUs use, in NCCL's device order (the model keeps only usable ones). */
function usedPorts(pairs: readonly GpuNicPair[], hv: HostVerdict | null, notes: string[]): TableNet[] {
  const used = new Set((hv?.gpus ?? []).flatMap((gv) => gv.uses.map((u) => u.net.name)));
  const list = pairs.length === 0 ? [] : (hv?.nets ?? []).filter((n) => used.has(n.name));
  const layers = new Set(list.map((n) => n.linkLayer).filter((l) => l !== null));
  if (layers.size > 1) {
    const by = (l: string) =>
      list
        .filter((n) => n.linkLayer === l)
        .map((n) => n.device)
        .join(', ');
    notes.push(
      t(
        'These ports mix InfiniBand ({0}) and RoCE ({1}): NCCL cannot connect ports of different link types ("Try selecting NICs of only one link type using NCCL_IB_HCA", src/transport/net_ib/connect.cc); keep one type per job.',
        by('IB'),
        by('RoCE'),
      ),
    );
  }
  return list;
}

/** PHB when some GPUs get no GPUDirect RDMA only because their NIC is behind a host bridge; SYS is never suggested. */
function gdrLevel(pairs: readonly GpuNicPair[], hv: HostVerdict | null, notes: string[]): string | null {
  const far = (hv?.gpus ?? []).filter((gv) => gv.primary?.receive.block === 'distance');
  const sys = far.filter((gv) => gv.primary?.path === 'SYS').map((gv) => gv.gpu.name);
  if (sys.length > 0) {
    notes.push(
      t(
        "{0} reach a NIC only across NUMA nodes (SYS): NCCL_NET_GDR_LEVEL=SYS would force GPUDirect RDMA there, usually slower than staging through host memory; not suggested. A NIC on those GPUs' PCIe switch or NUMA node is the real fix.",
        sys.join(', '),
      ),
    );
  }
  const phb = far.filter((gv) => gv.primary?.path === 'PHB').map((gv) => gv.gpu.name);
  if (phb.length === 0 || pairs.length === 0) return null;
  notes.push(
    t(
      "NCCL_NET_GDR_LEVEL=PHB: {0} reach their NIC through a PCIe host bridge (nvidia-smi PHB or NODE), beyond the threshold; this enables GPUDirect RDMA for them at a cost (traffic crosses the CPU's root complex). Measure with nccl-tests before keeping it.",
      phb.join(', '),
    ),
  );
  return 'PHB';
}
