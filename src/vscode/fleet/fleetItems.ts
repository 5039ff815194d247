// Renders the fleet rows of the Hosts view: the fleet (its grouping as the description) and each
// group (severity icon, "3 hosts · peermem.not-loaded", the folded host list as tooltip, one context
// value naming the quick fixes the whole group can take).
import * as vscode from 'vscode';
import { foldHostList } from '../../core/parsers/hostlist';
import { ContextValues } from '../../constants';
import { fixContextValue } from '../fixes/contextValue';
import { item, markdown, TONE_ICON } from '../tree/treeItems';
import { FleetModel } from './fleetModel';
import type { FleetNode } from '../tree/nodes';
import { fleetDescription, fleetTone, groupLabel, groupTone } from './fleetNodes';
import { plain } from '../../core/report/diagnosisReport';
import { RELAY_PREFERENCE } from '../../core/transport';
import { dateTime } from '../displayLocale';

const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;

export function fleetTreeItem(node: FleetNode, fleets: FleetModel): vscode.TreeItem {
  if (node.kind === 'fleet') return fleetItem(node.fleet, fleets, node.id);
  const g = node.group;
  const label = groupLabel(g);
  const t = item(node.id, label, Collapsed, {
    icon: TONE_ICON[groupTone(fleets, node.fleet, g)],
    tooltip: markdown([
      `**${plain(label)}**`,
      '',
      plain(foldHostList(g.hosts)),
      ...(node.fixes.length > 0 ? ['', vscode.l10n.t('Quick fix for the whole group: {0}', node.fixes.join(', '))] : []),
    ]),
  });
  t.contextValue = fixContextValue(ContextValues.fleetGroup, node.fixes);
  return t;
}

/** Running: the spinner; diagnosed: its worst group's verdict; never diagnosed: the fleet icon. */
function fleetIcon(fleets: FleetModel, name: string): vscode.ThemeIcon {
  if (fleets.state(name).running) return TONE_ICON.working;
  const tone = fleetTone(fleets, name);
  return tone === undefined ? new vscode.ThemeIcon('server-environment') : TONE_ICON[tone];
}

function fleetItem(name: string, fleets: FleetModel, id: string): vscode.TreeItem {
  const config = fleets.get(name);
  const state = fleets.state(name);
  const description = fleetDescription(state);
  const tool = config?.with ?? vscode.l10n.t('the tool it offers ({0})', RELAY_PREFERENCE);
  const partition = config?.partition ? vscode.l10n.t(' (partition {0})', config.partition) : '';
  const reach =
    config?.via === undefined
      ? vscode.l10n.t('direct SSH to each host')
      : vscode.l10n.t('through {0} with {1}{2}', config.via, tool, partition);
  const when = state.finishedAt ? [vscode.l10n.t('Diagnosed {0}', dateTime(state.finishedAt))] : [];
  const t = item(id, name, Collapsed, {
    description,
    icon: fleetIcon(fleets, name),
    tooltip: markdown([
      `**${plain(name)}**: ${plain(description)}`,
      '',
      vscode.l10n.t('Hosts: {0}', plain(config?.hosts ?? '')),
      '',
      vscode.l10n.t('Reached {0}', plain(reach)),
      ...(when.length > 0 ? ['', ...when] : []),
    ]),
  });
  t.contextValue = ContextValues.fleet;
  return t;
}
