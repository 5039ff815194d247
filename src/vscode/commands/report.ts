// Copy Report (Markdown to the clipboard), Export Report (JSON or Markdown file), Open Raw
// Output. The documents come from the core (core/report); this file only moves them around.
import * as vscode from 'vscode';
import { diagnosisJson, formatMarkdownReport } from '../../core/report/diagnosisReport';
import { withProof } from '../../core/report/proofMarkdown';
import { Ctx, targetHosts } from '../context';
import { DiagnosedOutcome, HostEntry } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import type { ProofReport } from '../../core/prove';
import { rawOutputTitle, rawOutputUri, showRawOutput } from '../rawOutput';
import { commandTitle } from '../../core/probe/commandTitle';
import { commandStatus } from '../../core/probe/commandStatus';
import { PLAIN_TEXT, TOPO_LANGUAGE_ID } from '../editor/topoLanguage';
import { notifyInfo } from '../notify';

interface Found { host: HostEntry; last: DiagnosedOutcome; proof?: ProofReport }

async function diagnosedHost(ctx: Ctx, clicked: HostsNode | undefined, title: string): Promise<Found | undefined> {
  const [host] = await targetHosts(ctx, clicked, undefined, { many: false, title, filter: (h) => ctx.model.status(h.id).lastDiagnosed !== undefined });
  if (!host) return undefined;
  const last = ctx.model.status(host.id).lastDiagnosed;
  if (!last) {
    void notifyInfo(vscode.l10n.t('{0} has not been diagnosed yet: run Diagnose first.', host.label));
    return undefined;
  }
  return { host, last, proof: ctx.model.status(host.id).proof };
}

/** The report as Markdown, the host's last GPUDirect RDMA proof after the diagnosis. */
function markdownOf({ last, proof }: Found): string {
  return withProof(formatMarkdownReport(last.report, last.diagnosis), proof);
}

export async function copyReportCommand(ctx: Ctx, clicked?: HostsNode): Promise<void> {
  const found = await diagnosedHost(ctx, clicked, vscode.l10n.t('Copy the report of which host?'));
  if (!found) return;
  await vscode.env.clipboard.writeText(markdownOf(found));
  void notifyInfo(vscode.l10n.t('Report of {0} copied as Markdown.', found.host.label));
}

export async function exportReportCommand(ctx: Ctx, clicked?: HostsNode): Promise<void> {
  const found = await diagnosedHost(ctx, clicked, vscode.l10n.t('Export the report of which host?'));
  if (!found) return;
  const { host, last, proof } = found;
  const base = `gdr-doctor-${host.label.replace(/[^\w.-]+/g, '_')}`;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const uri = await vscode.window.showSaveDialog({
    title: vscode.l10n.t('Export the report of {0}', host.label),
    defaultUri: folder ? vscode.Uri.joinPath(folder, `${base}.md`) : undefined,
    filters: { Markdown: ['md'], JSON: ['json'] },
  });
  if (!uri) return;
  const text = uri.path.endsWith('.json')
    ? `${JSON.stringify({ ...diagnosisJson(last.report, last.diagnosis, last.target), proof: proof ?? null }, null, 2)}\n`
    : markdownOf(found);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  ctx.log.info(`${host.label}: report exported to ${uri.toString()}`);
  void notifyInfo(vscode.l10n.t('Report of {0} exported to {1}', host.label, uri.fsPath));
}

export async function openRawOutputCommand(ctx: Ctx, node?: HostsNode): Promise<void> {
  let hostId: string;
  let commandId: string;
  if (node?.kind === 'raw') {
    ({ hostId, commandId } = node);
  } else {
    const found = await diagnosedHost(ctx, node, vscode.l10n.t('Raw outputs of which host?'));
    if (!found) return;
    const pick = await vscode.window.showQuickPick(found.last.report.commands.map((c) => ({ label: commandTitle(c), description: commandStatus(c), id: c.id })), { title: vscode.l10n.t('Open the output of which command on {0}?', found.host.label) });
    if (!pick) return;
    hostId = found.host.id;
    commandId = pick.id;
  }
  const command = ctx.model.status(hostId).lastDiagnosed?.report.commands.find((c) => c.id === commandId) ?? { id: commandId, command: commandId };
  const hostLabel = ctx.model.get(hostId)?.label ?? hostId;
  await showRawOutput(rawOutputUri(hostId, commandId, rawOutputTitle(command, hostLabel)), commandId === 'topo' ? TOPO_LANGUAGE_ID : PLAIN_TEXT);
}
