// A status-bar item that exists only while hosts are being diagnosed.
import * as vscode from 'vscode';

export class WorkIndicator implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private readonly running = new Set<string>();

  begin(label: string): void {
    this.running.add(label);
    this.update();
  }

  end(label: string): void {
    this.running.delete(label);
    this.update();
  }

  private update(): void {
    if (this.running.size === 0) {
      this.item.hide();
      return;
    }
    const names = [...this.running];
    const diagnosing =
      names.length === 1
        ? vscode.l10n.t('GPUDirect RDMA: diagnosing {0}', names[0])
        : vscode.l10n.t('GPUDirect RDMA: diagnosing {0} hosts', names.length);
    this.item.text = `$(sync~spin) ${diagnosing}`;
    this.item.tooltip = names.join('\n');
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
