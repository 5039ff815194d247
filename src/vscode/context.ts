// One object every command receives: the host model, the diagnoser, the view, the log, the topology
// panel and plan documents. Built once in activate(); everything it owns is disposed with the extension.
import * as vscode from 'vscode';
import type { ReadOnlyTexts } from './ncclTests/texts';
import { DemoHost } from '../core/transport';
import { PlanDocuments } from './fixes/planDocument';
import { FleetModel } from './fleet/fleetModel';
import { Diagnoser } from './hosts/diagnoser';
import { HostEntry, HostModel } from './hosts/hostModel';
import type { NcclLogEditor } from './ncclLog';
import { TopologyPanels } from './topology/topologyPanel';
import type { HostsNode } from './tree/nodes';
import { WorkIndicator } from './workIndicator';
import { notifyInfo, notifyWithLog } from './notify';
import type { ContextKeySetter } from './contextKeys';
import { originText } from './tree/hostRow';
import type { Watcher } from './watch/watcher';

export interface Ctx {
  readonly extension: vscode.ExtensionContext;
  readonly model: HostModel;
  readonly fleets: FleetModel;
  readonly diagnoser: Diagnoser;
  /** The demo host's recordings and the state its simulated quick fixes changed. */
  readonly demo: DemoHost;
  readonly log: vscode.LogOutputChannel;
  readonly view: vscode.TreeView<HostsNode>;
  readonly work: WorkIndicator;
  /** The topology panel, closed with the extension. */
  readonly topology: TopologyPanels;
  /** Long fix plans opened as read-only documents. */
  readonly plans: PlanDocuments;
  /** Open NCCL logs, analysed, and Analyze NCCL Log's summaries. */
  readonly ncclLogs: NcclLogEditor;
  /** Context keys: the palette's, and the walkthrough's steps. */
  readonly keys: ContextKeySetter;
  /** Watch: hosts and fleets diagnosed again on a timer, and what changed. */
  readonly watcher: Watcher;
  /** Read-only documents of nccl-tests summaries and proofs with NCCL. */
  readonly ncclTests: ReadOnlyTexts;
}

/** Logs an error and shows it with a "Show Log" action. */
export async function showError(ctx: Ctx, message: string): Promise<void> {
  ctx.log.error(message);
  await notifyWithLog('error', message, ctx.log);
}

/**
 * The hosts a command acts on: the clicked node plus the multi-selection (VS Code passes both),
 * or, from the palette, a pick among listed hosts.
 */
export async function targetHosts(
  ctx: Ctx,
  clicked: HostsNode | undefined,
  selected: readonly HostsNode[] | undefined,
  pick: { many: boolean; title: string; filter?: (h: HostEntry) => boolean },
): Promise<HostEntry[]> {
  const nodes = selected && selected.length > 0 ? selected : clicked ? [clicked] : [];
  const ids = [...new Set(nodes.map((n) => n.hostId))];
  if (ids.length > 0) return ids.map((id) => ctx.model.get(id)).filter((h): h is HostEntry => h !== undefined);
  const hosts = ctx.model.hosts().filter(pick.filter ?? (() => true));
  if (hosts.length === 0) {
    void notifyInfo(vscode.l10n.t('No host to choose from: add one, or open the demo host.'));
    return [];
  }
  const items = hosts.map((h) => ({ label: h.label, description: originText(h.origin), host: h }));
  if (pick.many) return ((await vscode.window.showQuickPick(items, { title: pick.title, canPickMany: true })) ?? []).map((i) => i.host);
  const one = await vscode.window.showQuickPick(items, { title: pick.title });
  return one ? [one.host] : [];
}
