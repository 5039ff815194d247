// One SSH destination reached as the user's ssh would reach it: the destination resolved through
// ssh_config (or `-F`), connected with the user's prompts. Every front end opens its connections here
// (diagnose, fix, the fan-out, a login node, the extension's pool), so a host that cannot be reached
// fails with the same step and words wherever it is reached from.
import { connect, SshConnection } from './connect';
import { parseDestination } from './destination';
import { classifyConnectError, ConnectError } from './errors';
import { SshPrompts } from './prompts';
import { resolveTarget } from './resolveTarget';
import type { SshTarget } from './sshConfig';

export interface SshReachOptions {
  readonly prompts: SshPrompts;
  /** ssh_config file instead of ~/.ssh/config (`-F`). */
  readonly configFile?: string;
  /** Applied to every resolved target and hop (VS Code: the strict host key checking setting). */
  readonly adjustTarget?: (target: SshTarget) => SshTarget;
  /** Connect timeout when ssh_config sets no ConnectTimeout. */
  readonly defaultConnectTimeoutMs?: number;
}

/**
 * Resolves `destination` (through `configFile`) and opens an authenticated connection; aborting drops
 * it. Rejects with a ConnectError naming the step that failed (classifyConnectError).
 */
export async function openSsh(destination: string, options: SshReachOptions, signal?: AbortSignal): Promise<SshConnection> {
  try {
    const adjust = options.adjustTarget ?? ((t: SshTarget) => t);
    const resolve = (d: string) => resolveTarget(parseDestination(d), options.configFile).then(adjust);
    const target = await resolve(destination);
    if (signal?.aborted) throw new ConnectError(destination, 'timeout', 'stopped before connecting');
    const { prompts, defaultConnectTimeoutMs } = options;
    return await connect(target, { prompts, resolveHop: resolve, defaultConnectTimeoutMs, signal });
  } catch (e) {
    throw classifyConnectError(destination, e);
  }
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
