// Watch and Stop Watching, on a host (or several selected), a fleet, or from the palette (a pick).
import * as vscode from 'vscode';
import { expandHostList } from '../../core/parsers/hostlist';
import { Ctx, targetHosts } from '../context';
import { diagnoseFleet } from '../fleet/fleetDiagnose';
import { targetFleet } from '../fleet/fleetCommands';
import { memberHostId } from '../fleet/fleetMembers';
import type { FleetConfig } from '../fleet/fleetSettings';
import type { HostsNode } from '../tree/nodes';
import { notifyInfo } from '../notify';
import { Watcher, watchIntervalMinutes } from './watcher';

/** The Watcher, diagnosing hosts through the Diagnoser and fleets as Diagnose Fleet does. */
export function createWatcher(ctx: Ctx): Watcher {
  return new Watcher({
    model: ctx.model,
    diagnoseHost: (host, signal) => ctx.diagnoser.run(host, signal),
    diagnoseFleet: async (fleet) => {
      await diagnoseFleet(ctx, fleet);
      return fleetMemberIds(ctx, fleet);
    },
    log: ctx.log,
  });
}

function fleetMemberIds(ctx: Ctx, fleet: FleetConfig): string[] {
  const results = ctx.fleets.state(fleet.name).results;
  if (results) return results.map((r) => memberHostId(fleet, r.host));
  try {
    return expandHostList(fleet.hosts).map((h) => memberHostId(fleet, h));
  } catch {
    return [];
  }
}

export async function watchCommand(ctx: Ctx, node?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const every = watchIntervalMinutes();
  if (node?.kind === 'fleet') {
    const fleet = await targetFleet(ctx, node, vscode.l10n.t('Watch which fleet?'));
    if (!fleet) return;
    ctx.watcher.watchFleet(fleet, fleetMemberIds(ctx, fleet));
    void notifyInfo(
      vscode.l10n.t('Watching fleet {0}: diagnosed again every {1} min (gdrDoctor.watch.intervalMinutes).', fleet.name, every),
    );
    return;
  }
  const hosts = await targetHosts(ctx, node, selected, { many: true, title: vscode.l10n.t('Watch which hosts?') });
  for (const host of hosts) ctx.watcher.watchHost(host);
}

export async function stopWatchingCommand(ctx: Ctx, node?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  if (node?.kind === 'fleet') {
    ctx.watcher.stop(`fleet:${node.fleet}`);
    return;
  }
  const hosts = await targetHosts(ctx, node, selected, {
    many: true,
    title: vscode.l10n.t('Stop watching which hosts?'),
    filter: (h) => ctx.model.status(h.id).watch !== undefined,
  });
  for (const host of hosts) ctx.watcher.stop(`host:${host.id}`);
}
