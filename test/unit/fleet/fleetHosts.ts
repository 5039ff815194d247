// Fleet results for the fleet tests, each host probed from real saved outputs (the diagnosis tests'
// presets, through the offline runner) and diagnosed; unreachable hosts carry what the SSH code says for ssh2's and node:net's errors.
import { diagnose } from '../../../src/core/diagnosis';
import { statusOfProbe } from '../../../src/core/fleet/status';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { classifyConnectError } from '../../../src/core/ssh/errors';
import { HostFiles, hostReport } from '../diagnosis/hostReport';

export async function probed(host: string, files: HostFiles): Promise<FleetHostResult> {
  const report = { ...(await hostReport(files)), host };
  const diagnosis = diagnose(report);
  return { host, status: statusOfProbe(report, diagnosis), path: 'direct', report, diagnosis, durationMs: report.durationMs };
}

/** Several hosts from one set of outputs (probed once, renamed: the same bytes give the same report). */
export async function probedAs(hosts: readonly string[], files: HostFiles): Promise<FleetHostResult[]> {
  const one = await probed(hosts[0], files);
  return hosts.map((host) => ({ ...one, host, report: one.report && { ...one.report, host } }));
}

/** A host that could not be reached, its error classified as the SSH code does it (ssh2's / node:net's error shape). */
export function unreachable(host: string, cause: { code?: string; level?: string; message?: string }): FleetHostResult {
  const err = classifyConnectError(host, Object.assign(new Error(cause.message ?? cause.code ?? 'error'), cause));
  return { host, status: 'unreachable', path: 'direct', error: { step: err.step, message: err.message }, durationMs: 12 };
}
