// The fan-out's probeHost in VS Code: each host resolved through the user's SSH config and settings
// (strict host key default, connect timeout) and answered through the same prompts as a single
// diagnose, on a connection of its own that closes when the probe ends, so a 64-host fleet does not
// keep 64 connections open. Aborting (cancel, deadline) drops the connect or stops the remote commands.
import type { ProbeHost } from '../../core/fleet/fanout';
import { runProbe } from '../../core/probe/runProbe';
import { sshRunner } from '../../core/probe/sshRunner';
import { connect } from '../../core/ssh/connect';
import { parseDestination } from '../../core/ssh/destination';
import { ConnectError } from '../../core/ssh/errors';
import { SshPrompts } from '../../core/ssh/prompts';
import { resolveTarget } from '../../core/ssh/resolveTarget';
import { GdrSettings } from '../config';
import { withStrictDefault } from '../hosts/diagnoser';

export function vscodeProbeHost(settings: GdrSettings, prompts: SshPrompts): ProbeHost {
  const resolve = (d: string) => resolveTarget(parseDestination(d), settings.sshConfigFile).then((t) => withStrictDefault(t, settings.strictHostKeyChecking));
  return async (host, signal) => {
    const target = await resolve(host);
    if (signal.aborted) throw new ConnectError(host, 'timeout', 'stopped before connecting');
    const conn = await connect(target, { prompts, resolveHop: resolve, defaultConnectTimeoutMs: settings.connectTimeoutMs, signal });
    try {
      const report = await runProbe(sshRunner(conn.client, signal), { host, deadlineMs: settings.probeDeadlineMs });
      return { report, target: conn.target };
    } finally {
      conn.close();
    }
  };
}
