// The Hosts view's badge: how many errors it holds (errorTally), shown on the activity bar too, so a
// collapsed sidebar still says something is wrong. No badge while there is none.
import * as vscode from 'vscode';
import type { FleetModel } from '../fleet/fleetModel';
import type { HostModel } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { errorTally, tallyText } from './errorTally';

export function watchViewBadge(view: vscode.TreeView<HostsNode>, model: HostModel, fleets: FleetModel): vscode.Disposable {
  const update = () => {
    const tally = errorTally(model, fleets);
    view.badge = tally.count > 0 ? { value: tally.count, tooltip: tallyText(tally) } : undefined;
  };
  const subscriptions = [model.onDidChange(update), fleets.onDidChange(update)];
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
