// Diagnose: one cancellable progress notification for the whole batch, hosts probed a few at a time
// (setting), each outcome in the tree; hosts that could not be diagnosed also in one notification, with
// Retry / Open SSH Config / Show Log (failureNotice: the same rule as a fleet's).
import * as vscode from 'vscode';
import { Ctx, targetHosts } from '../context';
import { readSettings } from '../config';
import { HostEntry } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { runLimited } from '../runLimited';
import { withNotificationProgress } from '../notify';
import { failureNotice, HostFailure } from '../hosts/failureNotice';
import { showFailureNotice } from '../hosts/failureActions';

export async function diagnoseCommand(ctx: Ctx, clicked?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const hosts = await targetHosts(ctx, clicked, selected, { many: true, title: vscode.l10n.t('Diagnose which hosts?') });
  await diagnoseHosts(ctx, hosts);
}

export async function diagnoseHosts(ctx: Ctx, hosts: readonly HostEntry[]): Promise<void> {
  if (hosts.length === 0) return;
  const title = hosts.length === 1 ? vscode.l10n.t('Diagnosing {0}', hosts[0].label) : vscode.l10n.t('Diagnosing {0} hosts', hosts.length);
  const failures = await withNotificationProgress(title, true, async (progress, token) => {
    const abort = new AbortController();
    const cancel = token.onCancellationRequested(() => abort.abort());
    try {
      return await runLimited(hosts, readSettings().maxConcurrentHosts, async (host): Promise<HostFailure | undefined> => {
        ctx.work.begin(host.label);
        try {
          const outcome = await ctx.diagnoser.run(host, abort.signal);
          if (hosts.length > 1) progress.report({ increment: 100 / hosts.length, message: vscode.l10n.t('{0} done', host.label) });
          return outcome?.kind === 'failed' ? { host: host.label, message: outcome.message } : undefined;
        } finally {
          ctx.work.end(host.label);
        }
      });
    } finally {
      cancel.dispose();
    }
  });
  const notice = failureNotice(hosts.length, failures.filter((f): f is HostFailure => f !== undefined));
  if (!notice) return;
  void showFailureNotice(notice, {
    log: ctx.log,
    ssh: hosts.some((h) => h.kind === 'ssh'),
    retry: (labels) => diagnoseHosts(ctx, hosts.filter((h) => labels.includes(h.label))),
  });
}
