// NCCL logs linked to hosts of the Hosts view, and their comparisons: made from the link and the
// host's last diagnosis, again whenever either changes (a new diagnosis, other NCCL settings), never
// stored stale. No VS Code import: the tree, the editor and the commands read it alike.
import { readNcclAssumptions, DEFAULT_NCCL } from '../../core/diagnosis';
import { compareNcclLogWithHost, logHostsMatching } from '../../core/ncclLog/compare';
import type { NcclHostComparison } from '../../core/ncclLog/compareTypes';
import type { NcclLogSummary } from '../../core/ncclLog/types';
import { DiagnosedOutcome, HostEntry, HostModel, HostStatus, NcclLogLink } from '../hosts/hostModel';

const made = new WeakMap<DiagnosedOutcome, { link: NcclLogLink; comparison: NcclHostComparison }>();

/** The comparison of the host's linked log with its last diagnosis; null without either. */
export function comparisonOf(host: HostEntry, status: HostStatus): NcclHostComparison | null {
  const { ncclLog: link, lastDiagnosed: last } = status;
  if (!link || !last) return null;
  const cached = made.get(last);
  if (cached?.link === link) return cached.comparison;
  // The NCCL release and settings the host was diagnosed for: the user's, where the log does not say.
  const env = Object.entries(last.diagnosis.nccl.env).map(([k, v]) => `${k}=${v}`);
  const user = readNcclAssumptions(last.diagnosis.nccl.assumed, env);
  const comparison = compareNcclLogWithHost({
    summary: link.summary,
    logHost: link.logHost,
    host: host.label,
    report: last.report,
    nccl: typeof user === 'string' ? DEFAULT_NCCL : user,
  });
  made.set(last, { link, comparison });
  return comparison;
}

/** The names a host goes by: its label, SSH destination and the HostName it resolved to. */
export function hostNames(host: HostEntry, status: HostStatus): string[] {
  return [host.label, host.destination, status.lastDiagnosed?.target?.hostname].filter((n): n is string => n !== undefined);
}

/**
 * Links a log to the diagnosed hosts whose names it prints (one log host per host), unless a host
 * already has another log linked. Returns the hosts linked.
 */
export function linkMatchingHosts(model: HostModel, log: { file: string; uri: string; summary: NcclLogSummary }): HostEntry[] {
  const linked: HostEntry[] = [];
  for (const host of model.hosts()) {
    const status = model.status(host.id);
    if (!status.lastDiagnosed || (status.ncclLog && status.ncclLog.uri !== log.uri)) continue;
    const matching = logHostsMatching(log.summary, hostNames(host, status));
    if (matching.length !== 1) continue;
    if (status.ncclLog?.summary === log.summary && status.ncclLog.logHost === matching[0]) continue;
    model.setNcclLog(host.id, { ...log, logHost: matching[0] });
    linked.push(host);
  }
  return linked;
}

/** The hosts a log is linked to, with their comparisons. */
export function comparisonsOfLog(model: HostModel, uri: string): { host: HostEntry; comparison: NcclHostComparison }[] {
  return model.hosts().flatMap((host) => {
    const status = model.status(host.id);
    const comparison = status.ncclLog?.uri === uri ? comparisonOf(host, status) : null;
    return comparison ? [{ host, comparison }] : [];
  });
}
