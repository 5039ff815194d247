// Diagnose / Refresh: one cancellable progress notification for the whole batch, hosts probed a
// few at a time (setting), each outcome in the tree; failures also as one notification.
import { Ctx, showError, targetHosts } from '../context';
import { readSettings } from '../config';
import { HostEntry } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { runLimited } from '../runLimited';
import { withNotificationProgress } from '../notify';

export async function diagnoseCommand(ctx: Ctx, clicked?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const hosts = await targetHosts(ctx, clicked, selected, { many: true, title: 'Diagnose which hosts?' });
  await diagnoseHosts(ctx, hosts);
}

export async function diagnoseHosts(ctx: Ctx, hosts: readonly HostEntry[]): Promise<void> {
  if (hosts.length === 0) return;
  const title = hosts.length === 1 ? `Diagnosing ${hosts[0].label}` : `Diagnosing ${hosts.length} hosts`;
  const failures = await withNotificationProgress(title, true, async (progress, token) => {
    const abort = new AbortController();
    const cancel = token.onCancellationRequested(() => abort.abort());
    try {
      return await runLimited(hosts, readSettings().maxConcurrentHosts, async (host) => {
        ctx.work.begin(host.label);
        try {
          const outcome = await ctx.diagnoser.run(host, abort.signal);
          if (hosts.length > 1) progress.report({ increment: 100 / hosts.length, message: `${host.label} done` });
          return outcome?.kind === 'failed' ? `${outcome.message}` : undefined;
        } finally {
          ctx.work.end(host.label);
        }
      });
    } finally {
      cancel.dispose();
    }
  });
  const failed = failures.filter((f): f is string => f !== undefined);
  if (failed.length > 0) await showError(ctx, failed.length === 1 ? `Diagnose failed: ${failed[0]}` : `Diagnose failed for ${failed.length} hosts: ${failed.join(' · ')}`);
}
