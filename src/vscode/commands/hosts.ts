// Host list commands: Add Host (stored in settings), Reload Host List, Remove Host, Open Demo Host,
// Diagnose This Machine, Disconnect. Adding a host does not connect; it is shown, with "Diagnose Now".
import * as vscode from 'vscode';
import { ContextKeys, ViewContainers } from '../../constants';
import { readSettings, writeAddedHosts } from '../config';
import { Ctx, targetHosts } from '../context';
import { DEMO_HOST, LOCAL_HOST, sshHostId } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { checkDestination } from '../ssh/destinationInput';
import { diagnoseHosts } from './diagnose';
import { notifyInfo } from '../notify';
import { forgetHostPasswords } from '../fixes/sudoSecrets';

export async function addHostCommand(ctx: Ctx): Promise<void> {
  const destination = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Host'),
    prompt: vscode.l10n.t(
      'An SSH destination, written as for ssh: host, user@host, user@host:port, [IPv6]:port or ssh://user@host:port. It is resolved through your SSH config.',
    ),
    placeHolder: 'user@gpu-node-01:22',
    ignoreFocusOut: true,
    validateInput: destinationValidation,
  });
  if (destination === undefined) return;
  const value = destination.trim();
  const hosts = readSettings().hosts;
  if (!hosts.includes(value)) await writeAddedHosts([...hosts, value]);
  ctx.model.invalidate();
  ctx.log.info(`added host ${value}`);
  ctx.keys.set(ContextKeys.hostAdded, true);
  const host = ctx.model.get(sshHostId(value));
  if (!host) return;
  await reveal(ctx, host.id);
  // Adding connects nowhere; the user says when.
  const diagnoseNow = vscode.l10n.t('Diagnose Now');
  void notifyInfo(vscode.l10n.t('Added {0}. Nothing has connected to it yet.', value), diagnoseNow).then(async (choice) => {
    if (choice === diagnoseNow) await diagnoseHosts(ctx, [host]);
  });
}

/** As the destination is typed: what is wrong, or how it is read (user, host, port). */
function destinationValidation(typed: string): vscode.InputBoxValidationMessage | string | undefined {
  const check = checkDestination(typed);
  if (!check.ok) return check.message;
  return check.message === undefined ? undefined : { message: check.message, severity: vscode.InputBoxValidationSeverity.Info };
}

/** Reads the SSH config and settings again (the title bar's Reload Host List): nothing is diagnosed. */
export async function reloadHostsCommand(ctx: Ctx): Promise<void> {
  ctx.model.invalidate();
  ctx.fleets.invalidate();
  ctx.log.info('host list reloaded from the SSH config and settings');
}

export async function removeHostCommand(ctx: Ctx, clicked?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const hosts = await targetHosts(ctx, clicked, selected, {
    many: true,
    title: vscode.l10n.t('Remove which hosts?'),
    filter: (h) => h.origin !== 'ssh-config',
  });
  const fromConfig = hosts.filter((h) => h.origin === 'ssh-config');
  if (fromConfig.length > 0) {
    void notifyInfo(
      vscode.l10n.t(
        '{0} come(s) from your SSH config: remove the Host entry there, or point gdrDoctor.sshConfigFile at another file.',
        fromConfig.map((h) => h.label).join(', '),
      ),
    );
  }
  const removable = hosts.filter((h) => h.origin !== 'ssh-config');
  if (removable.length === 0) return;
  for (const h of removable) ctx.diagnoser.disconnect(h);
  // A demo opened again starts from its recordings.
  if (removable.some((h) => h.id === DEMO_HOST.id)) ctx.demo.reset();
  const added = removable.filter((h) => h.origin === 'added').map((h) => h.destination);
  if (added.length > 0) await writeAddedHosts(readSettings().hosts.filter((d) => !added.includes(d)));
  for (const h of removable) ctx.model.forget(h.id);
  // Their remembered sudo passwords go with them (sudoSecrets.ts).
  const forgotten = await forgetHostPasswords(
    ctx.extension.secrets,
    removable.map((h) => h.id),
  );
  if (forgotten > 0) ctx.log.info(`forgot ${forgotten} remembered sudo password(s) of ${removable.map((h) => h.label).join(', ')}`);
}

/** The demo needs no network: it is diagnosed as soon as it opens (real hosts connect only on Diagnose). */
export async function openDemoHostCommand(ctx: Ctx): Promise<void> {
  ctx.model.openDemo();
  await reveal(ctx, DEMO_HOST.id);
  await diagnoseHosts(ctx, [DEMO_HOST]);
}

/** Undoes the demo's simulated quick fixes: its recordings are replayed as they are, and diagnosed again. */
export async function resetDemoHostCommand(ctx: Ctx): Promise<void> {
  ctx.demo.reset();
  ctx.log.info(`${DEMO_HOST.label}: reset to its recordings`);
  if (!ctx.model.demoListed) return;
  await diagnoseHosts(ctx, [DEMO_HOST]);
  void notifyInfo(
    vscode.l10n.t('{0} is reset: its recordings are replayed as they are, nvidia_peermem not loaded again.', DEMO_HOST.label),
  );
}

export async function diagnoseThisMachineCommand(ctx: Ctx): Promise<void> {
  ctx.model.showLocal();
  await reveal(ctx, LOCAL_HOST.id);
  await diagnoseHosts(ctx, [LOCAL_HOST]);
}

export async function disconnectCommand(ctx: Ctx, clicked?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const hosts = await targetHosts(ctx, clicked, selected, {
    many: true,
    title: vscode.l10n.t('Disconnect which hosts?'),
    filter: (h) => ctx.diagnoser.connected(h),
  });
  for (const h of hosts) {
    if (ctx.diagnoser.disconnect(h)) ctx.log.info(`${h.label}: disconnected on request`);
  }
}

async function reveal(ctx: Ctx, hostId: string): Promise<void> {
  await vscode.commands.executeCommand(`workbench.view.extension.${ViewContainers.main}`);
  await ctx.view
    .reveal({ kind: 'host', id: hostId, hostId }, { select: true, focus: false, expand: true })
    .then(undefined, () => undefined);
}
