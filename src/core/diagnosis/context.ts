// What every rule receives: the report, and the shared readings of it (hostState, dma-buf).
import { ProbeReport } from '../probe/runProbe';
import { DmabufStatus, dmabufStatus } from './dmabuf';
import { HostState, readHostState } from './hostState';

export interface RuleContext {
  readonly report: ProbeReport;
  readonly host: HostState;
  readonly dmabuf: DmabufStatus;
}

export function ruleContext(report: ProbeReport): RuleContext {
  const host = readHostState(report);
  return { report, host, dmabuf: dmabufStatus(report, host) };
}
