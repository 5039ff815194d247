// Whether the NIC side gives GPUDirect RDMA on a host, as NCCL judges it for one release: a peer-memory
// file the release checks (ncclIbGdrSupport, src/transport/net_ib/gdr.cc), or dma-buf. The same answer
// the GPU↔NIC verdicts rest on (ncclInput.ts), for the pairs NCCL does not pick: the topology panel says
// what every GPU↔NIC pair of the host would get.
import type { ProbeReport } from '../probe/runProbe';
import { ruleContext } from './context';
import { DEFAULT_NCCL, NcclAssumptions } from './ncclAssumptions';
import { ncclModelInput } from './ncclInput';
import { pluginOnlyHost } from './netPlugin';
import { readNcclEnv } from '../topology/nccl/env';

/** true: supported; false: not (no peer memory NCCL recognises, no dma-buf); null: not read, or a network plugin's (EFA). */
export function nicSideGdr(report: ProbeReport, nccl: NcclAssumptions = DEFAULT_NCCL): boolean | null {
  // On a plugin's network (AWS EFA) the plugin reports GPU-memory support, not NCCL's peer-memory files (netPlugin.ts).
  if (pluginOnlyHost(report)) return null;
  const ctx = ruleContext(report, nccl);
  return ncclModelInput(ctx).nicSupport(ctx.rules, readNcclEnv(nccl.env, ctx.rules));
}
