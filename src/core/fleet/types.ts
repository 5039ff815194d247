// The shapes every way of diagnosing many hosts shares (direct fan-out, through a login node with
// Slurm, pdsh or clush): one result per host, whatever happened to it, so a fleet summary, the CLI's
// JSON and the VS Code Fleet node read the same thing. Pure data: no I/O, no vscode.
import type { Diagnosis } from '../diagnosis';
import type { ProbeReport } from '../probe/runProbe';
import type { ConnectStep } from '../ssh/errors';
import type { SshTarget } from '../ssh/sshConfig';
import type { RelayTool } from '../transport';

/**
 * ok: the probe finished and no finding is an error or warning; findings: it finished (or mostly) with
 * at least one error/warning finding; unreachable: never got to run (connect step failed, the login
 * node's tool could not reach the node); timed-out: its deadline (per host or overall) ended it;
 * cancelled: the user stopped it.
 */
export type FleetHostStatus = 'ok' | 'findings' | 'unreachable' | 'timed-out' | 'cancelled';

/** How the host was reached: directly, or through a login node's tool. */
export type FleetPath = 'direct' | RelayTool;

export interface FleetHostResult {
  /** The host as the user named it (one element of an expanded host list), or the node name Slurm gave. */
  readonly host: string;
  readonly status: FleetHostStatus;
  readonly path: FleetPath;
  /** Whatever arrived, also for timed-out/cancelled hosts when part of the probe came back. */
  readonly report?: ProbeReport;
  /** diagnose(report), plus fleet findings (fleet.topology-differs and the other fleet.*-differs) once the fleet was compared. */
  readonly diagnosis?: Diagnosis;
  /** Direct SSH only: the resolved target. */
  readonly target?: SshTarget;
  /** unreachable/timed-out/cancelled: where it stopped and what was said (host, step, text). */
  readonly error?: { readonly step: ConnectStep | 'relay' | 'deadline' | 'cancelled'; readonly message: string };
  readonly durationMs: number;
  /**
   * Where the command outputs were kept out of memory (a relay at scale, relay/spill.ts): `report` then holds
   * only what the summary needs (no outputs, the comparisons' facts) and this reads the whole report back.
   */
  readonly fullReport?: () => Promise<ProbeReport>;
}
