// Activation only wires adapters together: no SSH, no file scans, nothing slow.
import * as vscode from 'vscode';
import { Views } from './constants';
import { createLog } from './vscode/logging';
import { HostsTreeProvider } from './vscode/tree/hostsTree';

export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  context.subscriptions.push(log);
  try {
    const hosts = new HostsTreeProvider();
    context.subscriptions.push(hosts, vscode.window.registerTreeDataProvider(Views.hosts, hosts));
    log.info('gdr-doctor activated');
  } catch (e) {
    // A failed start is shown, never swallowed: the user sees why the sidebar is empty.
    const message = e instanceof Error ? e.message : String(e);
    log.error(`activation failed: ${message}`);
    void vscode.window.showErrorMessage(`GPUDirect RDMA Doctor failed to start: ${message}`);
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
