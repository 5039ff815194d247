// What every rule receives: the report, the shared readings of it (hostState, dma-buf), and the NCCL
// release and environment the verdicts are for.
import { ProbeReport } from '../probe/runProbe';
import { NcclRules, ncclRules } from '../topology/nccl/rules';
import { DmabufStatus, dmabufForNccl, dmabufStatus } from './dmabuf';
import { HostState, readHostState } from './hostState';
import { DEFAULT_NCCL, NcclAssumptions } from './ncclAssumptions';

export interface RuleContext {
  readonly report: ProbeReport;
  readonly host: HostState;
  /** dma-buf as the job's NCCL sees it (dmabufForNccl): off for NCCL < 2.13 and with NCCL_DMABUF_ENABLE=0. */
  readonly dmabuf: DmabufStatus;
  readonly nccl: NcclAssumptions;
  readonly rules: NcclRules;
}

export function ruleContext(report: ProbeReport, nccl: NcclAssumptions = DEFAULT_NCCL): RuleContext {
  const host = readHostState(report);
  const rules = ncclRules(nccl.version);
  return { report, host, dmabuf: dmabufForNccl(dmabufStatus(report, host), rules, nccl.env), nccl, rules };
}
