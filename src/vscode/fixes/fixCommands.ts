// The quick-fix commands: one inline action per fix id on a finding that offers it, and the palette
// command "Apply Quick Fix…" (pick a host, then a fix; fixes the host's findings offer come first).
// SSH hosts and the demo host (simulated there); this machine is diagnosed, not fixed, from here.
import * as vscode from 'vscode';
import { FIX_IDS, FixId } from '../../core/fixes';
import { Ctx, targetHosts } from '../context';
import { HostEntry } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { applyQuickFix } from './applyFix';
import { takesQuickFixes } from '../tree/hostContext';
import { notifyInfo } from '../notify';
import { forgetAllSudoPasswords } from './sudoSecrets';

/** What each fix does, in words (called when shown: the words follow the display language). */
function fixDescription(id: FixId): string {
  const words: Record<FixId, () => string> = {
    'load-peermem': () => vscode.l10n.t('load the peer-memory module now (modprobe)'),
    'persist-peermem': () => vscode.l10n.t('load the peer-memory module at every boot (modules-load.d)'),
    'disable-acs': () => vscode.l10n.t('turn off ACS on the bridges between GPUs and NICs now (setpci; bare metal only)'),
    'persist-acs': () => vscode.l10n.t('turn off ACS on those bridges at every boot (a oneshot systemd unit)'),
    'export-timer': () => vscode.l10n.t("export the host's GPUDirect RDMA health for node_exporter every 5 minutes (a systemd timer)"),
  };
  return words[id]();
}

/** Forget Remembered Passwords: every sudo password kept in SecretStorage (sudoSecrets.ts), whatever host. */
export async function forgetSudoPasswordsCommand(ctx: Ctx): Promise<void> {
  const forgotten = await forgetAllSudoPasswords(ctx.extension.secrets);
  ctx.log.info(`forgot ${forgotten} remembered sudo password(s)`);
  void notifyInfo(
    forgotten === 0
      ? vscode.l10n.t('No sudo password is remembered.')
      : forgotten === 1
        ? vscode.l10n.t('Forgot 1 remembered sudo password.')
        : vscode.l10n.t('Forgot {0} remembered sudo passwords.', forgotten),
  );
}

/** The inline action of one fix id on a finding. */
export function fixFromFinding(fixId: FixId): (ctx: Ctx, node?: HostsNode) => Promise<void> {
  return async (ctx, node) => {
    const host = node ? ctx.model.get(node.hostId) : undefined;
    if (!host) return applyQuickFixCommand(ctx);
    await applyQuickFix(ctx, host, fixId);
  };
}

export async function applyQuickFixCommand(ctx: Ctx, node?: HostsNode): Promise<void> {
  const [host] = await targetHosts(ctx, node, undefined, {
    many: false,
    title: vscode.l10n.t('Apply a quick fix on which host?'),
    filter: takesQuickFixes,
  });
  if (!host) return;
  const fixId = await pickFix(ctx, host);
  if (fixId) await applyQuickFix(ctx, host, fixId);
}

async function pickFix(ctx: Ctx, host: HostEntry): Promise<FixId | undefined> {
  const last = ctx.model.status(host.id).lastDiagnosed;
  const offeredBy = (id: FixId) => last?.diagnosis.findings.filter((f) => f.fixes.includes(id)).map((f) => f.id) ?? [];
  const items = FIX_IDS.map((id) => ({
    label: id,
    description: fixDescription(id),
    detail: offeredBy(id).length > 0 ? vscode.l10n.t('Offered by {0}', offeredBy(id).join(', ')) : undefined,
    id,
  }));
  items.sort((a, b) => Number(b.detail !== undefined) - Number(a.detail !== undefined));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Which quick fix on {0}? The plan is shown before anything runs.', host.label),
  });
  return picked?.id;
}
