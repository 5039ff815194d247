// Activation only wires adapters together: no SSH, no file scans, nothing slow. The host list
// (ssh_config) is read when the view first asks for it, and nothing connects until Diagnose.
import * as vscode from 'vscode';
import { RAW_OUTPUT_SCHEME, Views } from './constants';
import { listConfigHosts } from './core/ssh/configHosts';
import { localResolveEnv } from './core/ssh/nodeConfigFs';
import { registerCommands } from './vscode/commands';
import { readSettings } from './vscode/config';
import { Ctx } from './vscode/context';
import { directMembers } from './vscode/fleet/fleetMembers';
import { FleetModel } from './vscode/fleet/fleetModel';
import { Diagnoser } from './vscode/hosts/diagnoser';
import { HostModel } from './vscode/hosts/hostModel';
import { registerTopoEditor } from './vscode/editor';
import { createLog } from './vscode/logging';
import { RawOutputProvider } from './vscode/rawOutput';
import { watchSettings } from './vscode/settingsWatcher';
import { inputBoxPrompts } from './vscode/ssh/inputBoxPrompts';
import { HostsTreeProvider } from './vscode/tree/hostsTree';
import { WorkIndicator } from './vscode/workIndicator';
import { notifyError } from './vscode/notify';
import { errorText } from './core/errorText';

export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  context.subscriptions.push(log);
  try {
    context.subscriptions.push(...createContext(context, log));
    log.info('gdr-doctor activated');
  } catch (e) {
    // A failed start is shown, never swallowed: the user sees why the sidebar is empty.
    const message = errorText(e);
    log.error(`activation failed: ${message}`);
    void notifyError(`GPUDirect RDMA Doctor failed to start: ${message}`);
  }
}

function createContext(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const model = new HostModel({
    configHosts: () => listConfigHosts(localResolveEnv(readSettings().sshConfigFile)),
    addedHosts: () => readSettings().hosts,
    fleetHosts: () => directMembers(readSettings().fleets),
  });
  const fleets = new FleetModel(() => readSettings().fleets);
  const diagnoser = new Diagnoser({ model, settings: readSettings, prompts: inputBoxPrompts(), demoDir: extension.asAbsolutePath('media/demo'), log });
  const tree = new HostsTreeProvider(model, fleets);
  const view = vscode.window.createTreeView(Views.hosts, { treeDataProvider: tree, canSelectMany: true, showCollapseAll: true });
  const work = new WorkIndicator();
  const raw = new RawOutputProvider(model);
  const ctx: Ctx = { extension, model, fleets, diagnoser, log, view, work };
  return [
    tree, view, work, raw, diagnoser,
    vscode.workspace.registerTextDocumentContentProvider(RAW_OUTPUT_SCHEME, raw),
    watchSettings(model, fleets, log),
    ...registerCommands(ctx),
    ...registerTopoEditor(log),
  ];
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
