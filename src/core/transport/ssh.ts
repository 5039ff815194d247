// The probe over SSH: on a connection already open (the extension's pool, a fix session), or on one
// of its own (`diagnose <host>`, the fan-out) that closes when the probe ends. An abort (a deadline, a
// cancel) drops a connection being opened, or stops the remote commands (TERM, then KILL) and closes
// the connection, so a stopped host keeps nothing running on either side.
import { ProbeReport, runProbe } from '../probe/runProbe';
import { sshRunner } from './sshRunner';
import type { SshConnection } from '../ssh/connect';
import { openSsh, SshReachOptions } from '../ssh/openSsh';
import type { SshTarget } from '../ssh/sshConfig';

/** What probing one host gave: its report and, over SSH, the target it was reached as. */
export interface ProbedHost {
  readonly report: ProbeReport;
  readonly target?: SshTarget;
}

export interface SshProbeOptions extends SshReachOptions {
  /** The probe's own client-side deadline (runProbe); default: the probe's. */
  readonly probeDeadlineMs?: number;
}

/** Probes `destination` over `conn`, which stays open. */
export async function probeConnection(
  conn: SshConnection,
  destination: string,
  deadlineMs?: number,
  signal?: AbortSignal,
): Promise<ProbedHost> {
  const report = await runProbe(sshRunner(conn.client, signal), { host: destination, deadlineMs });
  return { report, target: conn.target };
}

/** Probes one SSH destination over a connection of its own; rejects with a ConnectError when it cannot be reached. */
export async function probeOverSsh(destination: string, options: SshProbeOptions, signal?: AbortSignal): Promise<ProbedHost> {
  const conn = await openSsh(destination, options, signal);
  try {
    return await probeConnection(conn, destination, options.probeDeadlineMs, signal);
  } finally {
    conn.close();
  }
}
