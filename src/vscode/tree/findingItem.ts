// A finding's row: its few words, its severity's icon, a click that opens its details; the hover leads
// with the title and state, then what it means, the evidence and links to act (details, the quick fix,
// the raw outputs), the source last. The links are trusted command links limited to three commands of
// ours, whose arguments are keys of the FindingRefs registry: no text of a host is ever part of a link.
import * as vscode from 'vscode';
import type { Finding } from '../../core/diagnosis';
import { evidenceLocation } from '../../core/diagnosis/evidenceLocation';
import { commandTitle } from '../../core/probe/commandTitle';
import { codeBlock, plain } from '../../core/report/diagnosisReport';
import { Commands } from '../../constants';
import { findingContextValue } from '../fixes/contextValue';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { FindingRefs } from '../findings/findingRefs';
import type { HostModel } from '../hosts/hostModel';
import type { HostsNode } from './nodes';
import { SEVERITY_ICON, item } from './itemParts';

/** The only commands a finding's hover may run. */
export const HOVER_COMMANDS = [Commands.showFinding, Commands.applyFindingFix, Commands.openRawOutputAt];

export function findingItem(node: HostsNode & { kind: 'finding' }, model: HostModel, refs: FindingRefs): vscode.TreeItem {
  const f = node.finding;
  const key = refs.key(node.ref);
  // A fix needs SSH to the host itself: none for a host reached through a login node.
  const fixes = isRelayedHostId(node.hostId) ? [] : f.fixes;
  const following = f.children?.length ?? 0;
  const description = [node.description, following > 0 ? vscode.l10n.t('{0} following', following) : '']
    .filter((d) => d !== '')
    .join(' · ');
  const state = following > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
  const t = item(node.id, node.label, state, {
    description,
    icon: SEVERITY_ICON[f.severity],
    tooltip: findingTooltip(f, key, fixes, node, model),
  });
  t.contextValue = findingContextValue(fixes);
  t.command = { command: Commands.showFinding, title: vscode.l10n.t('Show Finding Details'), arguments: [key] };
  // Screen readers (and the e2e tests) read the severity and the id the row no longer shows.
  t.accessibilityInformation = { label: `${node.label}, ${severityWord(f.severity)}, ${f.id}` };
  return t;
}

export function severityWord(s: Finding['severity']): string {
  return s === 'error' ? vscode.l10n.t('error') : s === 'warning' ? vscode.l10n.t('warning') : vscode.l10n.t('info');
}

/** A command link; its text is ours (escaped all the same), its arguments our own ids. */
export function commandLink(text: string, command: string, args: readonly (string | number)[]): string {
  return `[${plain(text)}](command:${command}?${encodeURIComponent(JSON.stringify(args))})`;
}

function findingTooltip(f: Finding, key: string, fixes: readonly string[], node: HostsNode, model: HostModel): vscode.MarkdownString {
  const parts = [`**${plain(f.title)}**`, '', `${severityWord(f.severity)} · \`${f.id}\``, '', plain(f.detail)];
  if (f.evidence.length > 0) parts.push('', vscode.l10n.t('Evidence:'), '', ...codeBlock(f.evidence.join('\n')));
  const following = f.children?.length ?? 0;
  if (following > 0)
    parts.push(
      '',
      following === 1
        ? vscode.l10n.t(
            '1 more finding follows from this one (listed under it): nothing they show can change the answer until it is solved.',
          )
        : vscode.l10n.t(
            '{0} more findings follow from this one (listed under it): nothing they show can change the answer until it is solved.',
            following,
          ),
    );
  const links = [
    commandLink(vscode.l10n.t('Show details'), Commands.showFinding, [key]),
    ...fixes.map((id) => commandLink(vscode.l10n.t('Apply fix: {0}', id), Commands.applyFindingFix, [key, id])),
    ...rawOutputLinks(f, key, node, model),
  ];
  parts.push('', links.join(' · '), '', '---', `_${plain(f.source)}_`);
  const md = new vscode.MarkdownString(parts.join('\n'));
  md.isTrusted = { enabledCommands: HOVER_COMMANDS };
  md.supportHtml = false;
  return md;
}

/** One link per raw output the evidence quotes (its first line), titled with the command as we name it. */
function rawOutputLinks(f: Finding, key: string, node: HostsNode, model: HostModel): string[] {
  const report = node.kind === 'finding' && node.ref.source === 'diagnosis' ? model.status(node.hostId).lastDiagnosed?.report : undefined;
  if (!report) return [];
  const seen = new Set<string>();
  const links: string[] = [];
  f.evidence.forEach((e, index) => {
    const at = evidenceLocation(report, e);
    const c = at ? report.commands.find((x) => x.id === at.commandId) : undefined;
    if (!at || !c || seen.has(at.commandId) || seen.size >= 3) return;
    seen.add(at.commandId);
    links.push(commandLink(vscode.l10n.t('Raw output: {0}', commandTitle(c)), Commands.openRawOutputAt, [key, index]));
  });
  return links;
}
