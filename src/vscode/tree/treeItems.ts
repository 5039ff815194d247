// Renders a HostsNode as a TreeItem: icons by severity/state, tooltips as MarkdownString with
// remote text (evidence, error messages) only inside code blocks and never trusted.
import * as vscode from 'vscode';
import { Finding, missingText } from '../../core/diagnosis';
import { codeBlock, plain } from '../../core/report/diagnosisReport';
import { Commands, ContextValues } from '../../constants';
import { HostEntry, HostModel } from '../hosts/hostModel';
import type { FleetNode, HostsNode, Tone } from './nodes';
import { rawOutputUri } from '../rawOutput';
import { findingContextValue } from '../fixes/contextValue';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { hostContextValue } from './hostContext';
import { HostRow, hostRow } from './hostRow';

/** Whether an SSH connection to a host is open (the Diagnoser's pool). */
export type IsConnected = (host: HostEntry) => boolean;

const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
const None = vscode.TreeItemCollapsibleState.None;

export const TONE_ICON: Record<Tone, vscode.ThemeIcon> = {
  ok: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground')),
  idle: new vscode.ThemeIcon('circle-outline'),
  working: new vscode.ThemeIcon('sync~spin'),
  unknown: new vscode.ThemeIcon('question'),
  done: new vscode.ThemeIcon('history'),
};

const SEVERITY_ICON: Record<Finding['severity'], vscode.ThemeIcon> = {
  error: TONE_ICON.error,
  warning: TONE_ICON.warning,
  info: new vscode.ThemeIcon('info', new vscode.ThemeColor('notificationsInfoIcon.foreground')),
};

const HOST_ICON: Record<HostEntry['origin'], string> = {
  'ssh-config': 'remote',
  added: 'remote',
  local: 'device-desktop',
  demo: 'beaker',
  fleet: 'remote',
};
const UNREACHABLE_ICON = new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('list.errorForeground'));

/** Fleet and group rows are rendered by fleet/fleetItems.ts; their hosts are host rows like any other. */
export function toTreeItem(node: Exclude<HostsNode, FleetNode>, model: HostModel, connected: IsConnected): vscode.TreeItem {
  switch (node.kind) {
    case 'host':
      return hostItem(node, model, connected);
    case 'status':
      return item(node.id, node.label, None, { icon: TONE_ICON[node.tone], tooltip: node.tooltip });
    case 'group':
      return item(node.id, node.label, Collapsed, { description: node.description, icon: new vscode.ThemeIcon(GROUP_ICON[node.group]) });
    case 'finding':
      return findingItem(node.id, node.finding, !isRelayedHostId(node.hostId));
    case 'gpu': {
      const t = item(node.id, node.label, None, {
        description: node.description,
        icon: node.pair.gdr === true ? TONE_ICON.ok : node.pair.gdr === null ? TONE_ICON.unknown : TONE_ICON.warning,
        tooltip: markdown([
          plain(node.pair.reason),
          ...(node.pair.missing.length > 0 ? [plain(missingText(node.pair))] : []),
          plain(node.pair.confirm),
        ]),
      });
      // Prove GPUDirect RDMA runs over SSH: only for a host gdr-doctor reaches itself.
      if (node.hostId.startsWith('ssh:') && !isRelayedHostId(node.hostId)) t.contextValue = ContextValues.gpu;
      return t;
    }
    case 'nic':
      return item(node.id, node.label, node.ports.length > 0 ? Collapsed : None, {
        description: node.description,
        icon: new vscode.ThemeIcon('plug'),
      });
    case 'row':
      return item(node.id, node.label, None, { description: node.description, icon: TONE_ICON[node.tone], tooltip: node.tooltip });
    case 'raw': {
      const t = item(node.id, node.label, None, { description: node.description, icon: new vscode.ThemeIcon('output') });
      t.contextValue = ContextValues.rawOutput;
      t.command = { command: Commands.openRawOutput, title: vscode.l10n.t('Open Raw Output'), arguments: [node] };
      t.resourceUri = rawOutputUri(node.hostId, node.commandId, node.label);
      return t;
    }
  }
}

const GROUP_ICON = {
  findings: 'checklist',
  gpus: 'circuit-board',
  proof: 'dashboard',
  nics: 'plug',
  numa: 'server',
  modules: 'extensions',
  raw: 'output',
  ncclLog: 'pulse',
} as const;

function hostItem(node: HostsNode & { kind: 'host' }, model: HostModel, connected: IsConnected): vscode.TreeItem {
  const { hostId } = node;
  const host = model.get(hostId);
  const label = node.label ?? host?.label ?? hostId;
  const row = hostRow(host, model.status(hostId));
  const t = item(node.id, label, Collapsed, {
    description: row.description,
    icon: hostIcon(row, host),
    tooltip: markdown([`**${plain(label)}**`, '', ...row.details.map(plain)]),
  });
  if (isRelayedHostId(hostId) || !host) t.contextValue = ContextValues.relayedHost;
  else t.contextValue = hostContextValue({ host, status: model.status(hostId), connected: connected(host) });
  return t;
}

/** The verdict's icon once diagnosed; before that, where the host comes from. */
export function hostIcon(row: HostRow, host: HostEntry | undefined): vscode.ThemeIcon {
  if (row.look === 'origin') return new vscode.ThemeIcon(HOST_ICON[host?.origin ?? 'added']);
  if (row.look === 'unreachable') return UNREACHABLE_ICON;
  return TONE_ICON[row.look];
}

/** `fixable`: false for a host reached through a login node (a fix needs SSH to the host itself). */
function findingItem(id: string, f: Finding, fixable: boolean): vscode.TreeItem {
  const parts = [`**${plain(f.title)}**`, '', plain(f.detail)];
  if (f.evidence.length > 0) parts.push('', vscode.l10n.t('Evidence:'), '', ...codeBlock(f.evidence.join('\n')));
  if (f.fixes.length > 0) parts.push('', vscode.l10n.t('Quick fix: {0}', f.fixes.map(plain).join(', ')));
  parts.push('', `_${plain(f.source)}_`);
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
  const description = following > 0 ? vscode.l10n.t('{0} · {1} following', f.id, following) : f.id;
  const t = item(id, f.title, following > 0 ? Collapsed : None, { description, icon: SEVERITY_ICON[f.severity], tooltip: markdown(parts) });
  t.contextValue = findingContextValue(fixable ? f.fixes : []);
  return t;
}

export function markdown(lines: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(lines.join('\n'));
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

export interface ItemOptions {
  readonly description?: string;
  readonly icon?: vscode.ThemeIcon;
  readonly tooltip?: string | vscode.MarkdownString;
}

export function item(id: string, label: string, state: vscode.TreeItemCollapsibleState, o: ItemOptions): vscode.TreeItem {
  const t = new vscode.TreeItem(label, state);
  t.id = id;
  if (o.description) t.description = o.description;
  if (o.icon) t.iconPath = o.icon;
  if (o.tooltip) t.tooltip = o.tooltip;
  return t;
}
