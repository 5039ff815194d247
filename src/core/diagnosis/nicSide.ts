// Whether the NIC side gives GPUDirect RDMA on a host, as NCCL judges it for one release: a peer-memory
// file the release checks (ncclIbGdrSupport, src/transport/net_ib/gdr.cc), or dma-buf. The same answer
// the GPU↔NIC verdicts rest on (ncclInput.ts), for the pairs NCCL does not pick: the topology panel says
// what every GPU↔NIC pair of the host would get.
import type { ProbeReport } from '../probe/runProbe';
import { ruleContext } from './context';
import { DEFAULT_NCCL, NcclAssumptions } from './ncclAssumptions';
import { ncclModelInput } from './ncclInput';

/** true: supported; false: not (no peer memory NCCL recognises, no dma-buf); null: not read. */
export function nicSideGdr(report: ProbeReport, nccl: NcclAssumptions = DEFAULT_NCCL): boolean | null {
  const ctx = ruleContext(report, nccl);
  return ncclModelInput(ctx, nccl.env.NCCL_DMABUF_ENABLE !== '0').nicSupport(ctx.rules);
}
