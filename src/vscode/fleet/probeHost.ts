// The fan-out's probeHost in VS Code: the core's direct-SSH probe (sshProbeHost, src/core/fleet/fanout.ts)
// reaching each host as a single diagnose does (sshReach: SSH config file, strict host key default,
// connect timeout, the same prompts), with the probe deadline setting. Each host gets a connection of
// its own that closes when the probe ends, so a 64-host fleet does not keep 64 connections open.
import { ProbeHost, sshProbeHost } from '../../core/fleet/fanout';
import { SshPrompts } from '../../core/ssh/prompts';
import { GdrSettings } from '../config';
import { sshReach } from '../hosts/diagnoser';

export function vscodeProbeHost(settings: GdrSettings, prompts: SshPrompts, log?: { warn(message: string): void }): ProbeHost {
  return sshProbeHost({ ...sshReach(settings, prompts, log), probeDeadlineMs: settings.probeDeadlineMs });
}
