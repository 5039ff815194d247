// The "Hosts" view: reads the host and fleet models and redraws when either changes. Elements carry their kind
// (hostNodes.ts); rendering is in treeItems.ts.
import * as vscode from 'vscode';
import { fleetTreeItem } from '../fleet/fleetItems';
import { fleetChildren, fleetRoots } from '../fleet/fleetNodes';
import { FleetModel } from '../fleet/fleetModel';
import { HostModel } from '../hosts/hostModel';
import { childNodes, rootNodes } from './hostNodes';
import type { HostsNode } from './nodes';
import { IsConnected, toTreeItem } from './treeItems';
import type { FindingRefs } from '../findings/findingRefs';

/** The SSH connections the rows show (Disconnect only where one is open): the Diagnoser. */
export interface Connections {
  readonly connected: IsConnected;
  onDidChangeConnections(listener: () => void): { dispose(): void };
}

export class HostsTreeProvider implements vscode.TreeDataProvider<HostsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<HostsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: { dispose(): void }[];

  constructor(
    private readonly model: HostModel,
    private readonly fleets: FleetModel,
    private readonly connections: Connections,
    private readonly refs: FindingRefs,
  ) {
    const redraw = () => this.changed.fire(undefined);
    this.subscriptions = [model.onDidChange(redraw), fleets.onDidChange(redraw), connections.onDidChangeConnections(redraw)];
  }

  getTreeItem(node: HostsNode): vscode.TreeItem {
    return node.kind === 'fleet' || node.kind === 'fleetGroup'
      ? fleetTreeItem(node, this.fleets)
      : toTreeItem(node, this.model, (h) => this.connections.connected(h), this.refs);
  }

  /** Needed by TreeView.reveal, which the commands use for root rows (hosts, fleets) only. */
  getParent(node: HostsNode): HostsNode | undefined {
    return node.kind === 'host' || node.kind === 'fleet' || node.hostId === ''
      ? undefined
      : { kind: 'host', id: node.hostId, hostId: node.hostId };
  }

  /** Fleets first: one line sums up many hosts. */
  getChildren(node?: HostsNode): HostsNode[] {
    if (!node) return [...fleetRoots(this.fleets), ...rootNodes(this.model)];
    return node.kind === 'fleet' || node.kind === 'fleetGroup' ? fleetChildren(node, this.fleets) : childNodes(node, this.model);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}
