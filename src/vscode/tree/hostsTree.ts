// The "Hosts" view. Empty for now: VS Code then shows the view's `viewsWelcome` content.
// Hosts, findings and quick fixes arrive with the VS Code experience issue.
import * as vscode from 'vscode';

export type HostsTreeItem = never;

export class HostsTreeProvider implements vscode.TreeDataProvider<HostsTreeItem> {
  private readonly changed = new vscode.EventEmitter<HostsTreeItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  getTreeItem(element: HostsTreeItem): vscode.TreeItem {
    return element;
  }

  getChildren(): HostsTreeItem[] {
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
