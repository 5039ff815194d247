// Renders a HostsNode as a TreeItem: icons by severity/state, tooltips as MarkdownString with
// remote text (evidence, error messages) only inside code blocks and never trusted.
import * as vscode from 'vscode';
import { plain } from '../../core/report/diagnosisReport';
import { Commands, ContextValues } from '../../constants';
import { HostEntry, HostModel } from '../hosts/hostModel';
import type { FleetNode, HostsNode } from './nodes';
import { rawOutputUri } from '../rawOutput';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { hostContextValue } from './hostContext';
import { HostRow, hostRow } from './hostRow';
import { findingItem } from './findingItem';
import { TONE_ICON, item, markdown } from './itemParts';
import type { FindingRefs } from '../findings/findingRefs';
import { GdrState, gdrState } from '../../protocol/topology';
import { DEMO_HOST_SHORT_NAME } from '../../core/transport';

/** Whether an SSH connection to a host is open (the Diagnoser's pool). */
export type IsConnected = (host: HostEntry) => boolean;

const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
const None = vscode.TreeItemCollapsibleState.None;

const HOST_ICON: Record<HostEntry['origin'], string> = {
  'ssh-config': 'remote',
  added: 'remote',
  local: 'device-desktop',
  demo: 'beaker',
  fleet: 'remote',
};
const UNREACHABLE_ICON = new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('list.errorForeground'));

/** Fleet and group rows are rendered by fleet/fleetItems.ts; their hosts are host rows like any other. */
export function toTreeItem(
  node: Exclude<HostsNode, FleetNode>,
  model: HostModel,
  connected: IsConnected,
  refs: FindingRefs,
): vscode.TreeItem {
  switch (node.kind) {
    case 'host':
      return hostItem(node, model, connected);
    case 'status':
      return item(node.id, node.label, None, { icon: TONE_ICON[node.tone], tooltip: node.tooltip });
    case 'group':
      return item(node.id, node.label, Collapsed, { description: node.description, icon: new vscode.ThemeIcon(GROUP_ICON[node.group]) });
    case 'finding':
      return findingItem(node, model, refs);
    case 'gpu': {
      const t = item(node.id, node.label, None, {
        description: node.description,
        icon: GDR_ICON[gdrState(node.pair.gdr)],
        tooltip: gpuTooltip(node),
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

const GDR_ICON: Record<GdrState, vscode.ThemeIcon> = { on: TONE_ICON.ok, off: TONE_ICON.warning, unknown: TONE_ICON.unknown };

/** The verdict and what to do first; the GPU's facts; NCCL's reasoning last, in smaller type. */
function gpuTooltip(node: HostsNode & { kind: 'gpu' }): vscode.MarkdownString {
  const { verdict, todo, facts, why } = node.tooltip;
  return markdown([
    `**${plain(verdict)}**`,
    ...(todo ? ['', plain(todo)] : []),
    '',
    ...facts.map((f) => `- ${plain(f)}`),
    '',
    '---',
    `_${plain(vscode.l10n.t('Why: {0}', why.join(' ')))}_`,
  ]);
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
  // The demo's name alone: its row says "replayed" after the verdict, which must not be cut.
  const label = node.label ?? (host?.kind === 'demo' ? DEMO_HOST_SHORT_NAME : (host?.label ?? hostId));
  const row = hostRow(host, model.status(hostId));
  const replayed = host?.kind === 'demo' && row.look !== 'origin' ? vscode.l10n.t(' · replayed') : '';
  const t = item(node.id, label, Collapsed, {
    description: `${row.description}${replayed}`,
    icon: hostIcon(row, host),
    tooltip: markdown([`**${plain(host?.label ?? label)}**`, '', ...row.details.map(plain)]),
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
