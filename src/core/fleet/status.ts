// A probed host's fleet status from what arrived: the same rule for every fleet path, so a host
// reached through Slurm and the same host reached directly land in the same group.
import type { Diagnosis } from '../diagnosis';
import type { ProbeReport } from '../probe/runProbe';
import type { FleetHostStatus } from './types';

/** timed-out when the deadline cut the probe; findings when any error or warning; else ok. */
export function statusOfProbe(report: ProbeReport, diagnosis: Diagnosis): FleetHostStatus {
  if (report.timedOut) return 'timed-out';
  return diagnosis.findings.some((f) => f.severity !== 'info') ? 'findings' : 'ok';
}
