// The "Hosts" view: reads the host model and redraws when it changes. Elements carry their kind
// (hostNodes.ts); rendering is in treeItems.ts.
import * as vscode from 'vscode';
import { HostModel } from '../hosts/hostModel';
import { childNodes, HostsNode, rootNodes } from './hostNodes';
import { toTreeItem } from './treeItems';

export class HostsTreeProvider implements vscode.TreeDataProvider<HostsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<HostsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: { dispose(): void };

  constructor(private readonly model: HostModel) {
    this.subscription = model.onDidChange(() => this.changed.fire(undefined));
  }

  getTreeItem(node: HostsNode): vscode.TreeItem {
    return toTreeItem(node, this.model);
  }

  /** Needed by TreeView.reveal, which the commands use for host rows only. */
  getParent(node: HostsNode): HostsNode | undefined {
    return node.kind === 'host' ? undefined : { kind: 'host', id: node.hostId, hostId: node.hostId };
  }

  getChildren(node?: HostsNode): HostsNode[] {
    return node ? childNodes(node, this.model) : rootNodes(this.model);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
