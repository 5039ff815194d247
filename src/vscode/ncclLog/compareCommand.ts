// Compare NCCL Log with Host: links the NCCL log of the active editor to a host of the Hosts view
// (the one clicked, or picked: hosts the log names come first), diagnosing the host first if needed,
// and shows the comparison under the host ("NCCL log"). The log host compared is the one the host's
// names match, the log's only host, or the user's pick.
import * as vscode from 'vscode';
import { Languages } from '../../constants';
import { logHostsMatching } from '../../core/ncclLog/compare';
import { COMPARE_TEXT } from '../../core/ncclLog/compareText';
import type { NcclLogSummary } from '../../core/ncclLog/types';
import { diagnoseHosts } from '../commands/diagnose';
import { Ctx } from '../context';
import { HostEntry } from '../hosts/hostModel';
import { notifyInfo } from '../notify';
import type { HostsNode } from '../tree/nodes';
import { activeLogUri } from './analyzeCommand';
import { DocumentAnalysis, NcclLogDocuments } from './documents';
import { comparisonOf, hostNames } from './links';

export async function compareNcclLogCommand(ctx: Ctx, clicked?: HostsNode): Promise<void> {
  const log = logToCompare(ctx.ncclLogs.documents);
  const summary = log?.analysis.summary;
  if (!log || !summary) {
    void notifyInfo(COMPARE_TEXT.compareOpen);
    return;
  }
  if (summary.hosts.length === 0) {
    void notifyInfo(COMPARE_TEXT.noLogHost);
    return;
  }
  const host = clicked ? ctx.model.get(clicked.hostId) : await pickHost(ctx, summary);
  if (!host) return;
  if (!ctx.model.status(host.id).lastDiagnosed) await diagnoseHosts(ctx, [host]);
  const status = ctx.model.status(host.id);
  if (!status.lastDiagnosed) return; // diagnoseHosts said why
  const logHost = await pickLogHost(summary, hostNames(host, status), host.label);
  if (logHost === undefined) return;
  const file = NcclLogDocuments.nameOf(log.uri);
  ctx.model.setNcclLog(host.id, { file, uri: log.uri.toString(), logHost, summary });
  const comparison = comparisonOf(host, ctx.model.status(host.id));
  ctx.log.info(`compared ${file} (log host ${logHost}) with ${host.label}: ${comparison?.findings.map((f) => f.id).join(', ') ?? 'no comparison'}`);
  await ctx.view.reveal({ kind: 'host', id: host.id, hostId: host.id }, { expand: true, focus: false, select: true });
}

/** The active editor's NCCL log, else the only NCCL log open. */
function logToCompare(documents: NcclLogDocuments): DocumentAnalysis | undefined {
  const uri = activeLogUri();
  const active = uri ? documents.get(uri) : undefined;
  if (active) return active;
  const open = vscode.workspace.textDocuments.filter((d) => d.languageId === Languages.ncclLog).map((d) => documents.get(d.uri));
  return open.length === 1 ? open[0] : undefined;
}

async function pickHost(ctx: Ctx, summary: NcclLogSummary): Promise<HostEntry | undefined> {
  const items = ctx.model.hosts().map((host) => {
    const status = ctx.model.status(host.id);
    const named = logHostsMatching(summary, hostNames(host, status)).length > 0;
    const description = [named ? vscode.l10n.t('named in the log') : undefined, status.lastDiagnosed ? vscode.l10n.t('diagnosed') : vscode.l10n.t('not diagnosed yet')].filter((d) => d !== undefined).join(' · ');
    return { label: host.label, description, host, named };
  }).sort((a, b) => Number(b.named) - Number(a.named));
  if (items.length === 0) {
    void notifyInfo(vscode.l10n.t('No host to compare with: add one, or open the demo host.'));
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title: COMPARE_TEXT.pickHost }))?.host;
}

async function pickLogHost(summary: NcclLogSummary, names: readonly string[], label: string): Promise<string | undefined> {
  const matching = logHostsMatching(summary, names);
  if (matching.length === 1) return matching[0];
  if (summary.hosts.length === 1) return summary.hosts[0].name;
  const items = summary.hosts.map((h) => ({ label: h.name, description: vscode.l10n.t('{0} GPUs, {1} network connections', h.gpus.length, h.netConnections.total) }));
  return (await vscode.window.showQuickPick(items, { title: COMPARE_TEXT.pickLogHost(label) }))?.label;
}
