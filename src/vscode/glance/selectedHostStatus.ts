// A status-bar item for the host selected in the Hosts view: its verdict in a few words
// ("demo-dgx-a100: peermem not loaded"), kept while other views have the focus, updated when the host is
// diagnosed again, gone when the host is. Clicking it shows the Hosts view.
import * as vscode from 'vscode';
import { Views } from '../../constants';
import type { HostModel } from '../hosts/hostModel';
import { hostRow, HostRow } from '../tree/hostRow';
import type { HostsNode } from '../tree/nodes';
import { plainText } from '../plainText';

const CODICON: Record<HostRow['look'], string> = {
  ok: 'pass', warning: 'warning', error: 'error', unreachable: 'debug-disconnect', origin: 'remote',
  working: 'sync~spin', done: 'history', idle: 'circle-outline', unknown: 'question',
};

export class SelectedHostStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('gdrDoctor.selectedHost', vscode.StatusBarAlignment.Left, 9);
  private readonly subscriptions: { dispose(): void }[];
  private hostId?: string;
  /** The label the tree shows (a fleet's relayed host is not in the host list). */
  private label?: string;

  constructor(view: vscode.TreeView<HostsNode>, private readonly model: HostModel) {
    this.item.name = vscode.l10n.t('GPUDirect RDMA: selected host');
    this.item.command = `${Views.hosts}.focus`;
    this.subscriptions = [
      view.onDidChangeSelection((e) => this.select(e.selection)),
      model.onDidChange(() => this.update()),
    ];
  }

  private select(selection: readonly HostsNode[]): void {
    const node = selection.find((n) => n.hostId !== '');
    // Selecting a fleet or a group keeps the host shown last: the item names a host, never a fleet.
    if (!node) return;
    this.hostId = node.hostId;
    this.label = node.kind === 'host' ? node.label : undefined;
    this.update();
  }

  private update(): void {
    const host = this.hostId === undefined ? undefined : this.model.get(this.hostId);
    if (this.hostId === undefined || (!host && this.label === undefined)) {
      this.item.hide();
      return;
    }
    const row = hostRow(host, this.model.status(this.hostId));
    const label = host?.label ?? this.label ?? this.hostId;
    // A host's name may hold `$(…)`: shown as written, not as an icon.
    this.item.text = `$(${CODICON[row.look]}) ${plainText(`${label}: ${row.description}`)}`;
    this.item.tooltip = [`GPUDirect RDMA — ${label}`, ...row.details].join('\n');
    this.item.backgroundColor = row.look === 'error' || row.look === 'unreachable' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
