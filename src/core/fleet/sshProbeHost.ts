// One host over direct SSH, as `diagnose <host>` and the fleet fan-out reach it: the destination
// resolved as the user's ssh would, connected with the user's prompts, probed in one exec. An abort
// (a deadline, a cancel) drops a connection being opened, or stops the remote commands (TERM, then
// KILL) and closes the connection, so a stopped host keeps nothing running on either side.
import { runProbe } from '../probe/runProbe';
import { sshRunner } from '../probe/sshRunner';
import { connect, SshConnection } from '../ssh/connect';
import { parseDestination } from '../ssh/destination';
import { ConnectError } from '../ssh/errors';
import { SshPrompts } from '../ssh/prompts';
import { resolveTarget } from '../ssh/resolveTarget';
import type { SshTarget } from '../ssh/sshConfig';
import type { ProbedHost, ProbeHost } from './fanout';

export interface SshReachOptions {
  readonly prompts: SshPrompts;
  /** ssh_config file instead of ~/.ssh/config (`-F`). */
  readonly configFile?: string;
  /** Applied to every resolved target and hop (VS Code: the strict host key checking setting). */
  readonly adjustTarget?: (target: SshTarget) => SshTarget;
  /** Connect timeout when ssh_config sets no ConnectTimeout. */
  readonly defaultConnectTimeoutMs?: number;
}

export interface SshProbeOptions extends SshReachOptions {
  /** The probe's own client-side deadline (runProbe); default: the probe's. */
  readonly probeDeadlineMs?: number;
}

/** Resolves `destination` (through `configFile`) and opens an authenticated connection; aborting drops it. */
export async function openSsh(destination: string, options: SshReachOptions, signal?: AbortSignal): Promise<SshConnection> {
  const adjust = options.adjustTarget ?? ((t: SshTarget) => t);
  const resolve = (d: string) => resolveTarget(parseDestination(d), options.configFile).then(adjust);
  const target = await resolve(destination);
  if (signal?.aborted) throw new ConnectError(destination, 'timeout', 'stopped before connecting');
  return connect(target, { prompts: options.prompts, resolveHop: resolve, defaultConnectTimeoutMs: options.defaultConnectTimeoutMs, signal });
}

/**
 * Reaches `destination` through `jump` (as `ssh -J jump destination`), unless the user's ssh_config
 * already says how to reach it (a ProxyJump or a ProxyCommand): a fleet's node behind its login
 * node. The node's name is resolved by the login node, as pdsh and srun there resolve it.
 */
export function throughJump(reach: SshReachOptions, destination: string, jump: string): SshReachOptions {
  const node = parseDestination(destination).host;
  const adjust = reach.adjustTarget ?? ((t: SshTarget) => t);
  return {
    ...reach,
    adjustTarget: (t) => {
      const adjusted = adjust(t);
      const direct = adjusted.proxyJump === null && adjusted.proxyCommand === null;
      return adjusted.host === node && direct ? { ...adjusted, proxyJump: jump } : adjusted;
    },
  };
}

/** Probes one SSH destination; rejects with a ConnectError when it cannot be reached. */
export async function probeOverSsh(destination: string, options: SshProbeOptions, signal?: AbortSignal): Promise<ProbedHost> {
  const conn = await openSsh(destination, options, signal);
  try {
    const report = await runProbe(sshRunner(conn.client, signal), { host: destination, deadlineMs: options.probeDeadlineMs });
    return { report, target: conn.target };
  } finally {
    conn.close();
  }
}

/** The fan-out's probeHost for direct SSH. */
export function sshProbeHost(options: SshProbeOptions): ProbeHost {
  return (host, signal) => probeOverSsh(host, options, signal);
}
