// The fleet part of the Hosts tree as data: one node per fleet, its groups (hosts with identical
// findings, outliers first, as groupFleet orders them), and each group's hosts as host nodes, which
// expand exactly like any host (tree/hostNodes.ts reads their outcome from the host model).
// No VS Code import: fleetItems.ts renders these.
import { FleetGroup, fleetSummaryLine } from '../../core/fleet/grouping';
import { FixId, isFixId } from '../../core/fixes';
import type { HostsNode, Tone } from '../tree/nodes';
import { memberHostId } from './fleetMembers';
import { FleetModel, FleetState } from './fleetModel';
import { t } from '../../core/l10n';

export function fleetNodeId(fleet: string): string {
  return `fleet:${fleet}`;
}

export function fleetRoots(fleets: FleetModel): HostsNode[] {
  return fleets.fleets().map((f) => ({ kind: 'fleet', id: fleetNodeId(f.name), hostId: '', fleet: f.name }));
}

export function fleetChildren(node: HostsNode, fleets: FleetModel): HostsNode[] {
  if (node.kind === 'fleetGroup') {
    const config = fleets.get(node.fleet);
    if (!config) return [];
    return node.group.hosts.map((h) => ({ kind: 'host', id: `${node.id}/${h}`, hostId: memberHostId(config, h), label: h }));
  }
  if (node.kind !== 'fleet') return [];
  const state = fleets.state(node.fleet);
  const groups = (state.groups ?? []).map((group): HostsNode => ({ kind: 'fleetGroup', id: `${node.id}/${group.key}`, hostId: '', fleet: node.fleet, group, fixes: groupFixes(fleets, node.fleet, group) }));
  if (groups.length > 0 && !state.running) return groups;
  const row = (label: string, tone: Tone, tooltip: string): HostsNode => ({ kind: 'row', id: `${node.id}/status`, hostId: '', label, description: '', tone, tooltip });
  if (state.running) return [row(t('Diagnosing… {0}', progressText(state)), 'working', t('Each host is probed over its own connection; the groups appear when every host has ended.')), ...groups];
  return [row(t('Not diagnosed yet'), 'idle', t('Nothing connects until you run Diagnose Fleet.'))];
}

/** The fleet node's description: the grouping once diagnosed, e.g. "60 hosts healthy · 3 hosts peermem.not-loaded · 1 unreachable". */
export function fleetDescription(state: FleetState): string {
  if (state.running) return t('diagnosing {0}', progressText(state));
  if (!state.groups) return t('not diagnosed');
  return fleetSummaryLine([...state.groups]);
}

function progressText(state: FleetState): string {
  return state.running ? t('{0}/{1} hosts', state.running.done, state.running.total) : '';
}

/**
 * Fixes offered by the group's own findings (every host of a group has the same findings, so one
 * host's say). Behind a login node too: the fix reaches each host through it (groupFix.ts).
 */
export function groupFixes(fleets: FleetModel, fleet: string, group: FleetGroup): FixId[] {
  if (group.hosts.length === 0) return [];
  const findings = fleets.result(fleet, group.hosts[0])?.diagnosis?.findings ?? [];
  const offered = findings.filter((f) => group.findingIds.includes(f.id)).flatMap((f) => f.fixes).filter(isFixId);
  return [...new Set(offered)];
}

/** The group's row: `3 hosts · peermem.not-loaded`, `1 host · unreachable (timeout)`. */
export function groupLabel(group: FleetGroup): string {
  return group.hosts.length === 1 ? t('1 host · {0}', group.label) : t('{0} hosts · {1}', group.hosts.length, group.label);
}

/** ok: healthy; error/warning: the worst finding; error: never reached; idle: cancelled. */
export function groupTone(fleets: FleetModel, fleet: string, group: FleetGroup): Tone {
  if (group.status === 'ok') return 'ok';
  if (group.status === 'cancelled') return 'idle';
  if (group.status !== 'findings') return 'error';
  const findings = fleets.result(fleet, group.hosts[0])?.diagnosis?.findings ?? [];
  return findings.some((f) => f.severity === 'error') ? 'error' : 'warning';
}

/** The fleet's own icon: the worst of its groups (an unreachable host counts as an error), none before a diagnose. */
export function fleetTone(fleets: FleetModel, fleet: string): Tone | undefined {
  const groups = fleets.state(fleet).groups ?? [];
  if (groups.length === 0) return undefined;
  const tones = groups.map((g) => groupTone(fleets, fleet, g));
  return (['error', 'warning', 'ok'] as const).find((t) => tones.includes(t)) ?? 'idle';
}
