// What every rule receives: the report, the shared readings of it (hostState, dma-buf), and the NCCL
// release and environment the verdicts are for.
import { ProbeReport } from '../probe/runProbe';
import { NcclRules, ncclRules } from '../topology/nccl/rules';
import { DmabufStatus, dmabufStatus } from './dmabuf';
import { HostState, readHostState } from './hostState';
import { DEFAULT_NCCL, NcclAssumptions } from './ncclAssumptions';

export interface RuleContext {
  readonly report: ProbeReport;
  readonly host: HostState;
  readonly dmabuf: DmabufStatus;
  readonly nccl: NcclAssumptions;
  readonly rules: NcclRules;
}

export function ruleContext(report: ProbeReport, nccl: NcclAssumptions = DEFAULT_NCCL): RuleContext {
  const host = readHostState(report);
  return { report, host, dmabuf: dmabufStatus(report, host), nccl, rules: ncclRules(nccl.version) };
}
