// Activation only wires adapters together: no SSH, no file scans, nothing slow. The host list
// (ssh_config) is read when the view first asks for it, and nothing connects until Diagnose.
import * as vscode from 'vscode';
import { RAW_OUTPUT_SCHEME, Views } from './constants';
import { DemoHost } from './core/transport';
import { listConfigHosts } from './core/ssh/configHosts';
import { localResolveEnv } from './core/ssh/nodeConfigFs';
import { registerCommands } from './vscode/commands';
import { readSettings } from './vscode/config';
import { directMembers } from './vscode/fleet/fleetMembers';
import { FleetModel } from './vscode/fleet/fleetModel';
import { Diagnoser } from './vscode/hosts/diagnoser';
import { HostModel } from './vscode/hosts/hostModel';
import { trackDemoOpen } from './vscode/hosts/demoContext';
import { registerTopoEditor } from './vscode/editor';
import { registerNcclLogEditor } from './vscode/ncclLog';
import { registerNcclTestsEditor } from './vscode/ncclTests';
import { PlanDocuments } from './vscode/fixes/planDocument';
import { createLog } from './vscode/logging';
import { RawOutputProvider } from './vscode/rawOutput';
import { watchSettings } from './vscode/settingsWatcher';
import { inputBoxPrompts } from './vscode/ssh/inputBoxPrompts';
import { TopologyPanels } from './vscode/topology/topologyPanel';
import { HostsTreeProvider } from './vscode/tree/hostsTree';
import { WorkIndicator } from './vscode/workIndicator';
import { notifyError } from './vscode/notify';
import { errorText } from './core/errorText';
import { ContextKeySetter } from './vscode/contextKeys';
import { watchViewBadge } from './vscode/glance/viewBadge';
import { SelectedHostStatus } from './vscode/glance/selectedHostStatus';
import { useBundle } from './core/l10n';
import { useDisplayLocale } from './vscode/displayLocale';
import { createWatcher } from './vscode/watch/watchCommands';
import type { Watcher } from './vscode/watch/watcher';
import type { Ctx } from './vscode/context';

export function activate(context: vscode.ExtensionContext): void {
  // Core's words (findings, hovers) follow VS Code's display language: the same bundle as vscode.l10n.
  useBundle(vscode.l10n.bundle);
  useDisplayLocale(vscode.env.language);
  const log = createLog();
  context.subscriptions.push(log);
  try {
    createContext(context, log);
    log.info('gdr-doctor activated');
  } catch (e) {
    // A failed start is shown, never swallowed: the user sees why the sidebar is empty. What was
    // created before the failure is already in context.subscriptions, so it is disposed all the same.
    const message = errorText(e);
    log.error(`activation failed: ${message}`);
    void notifyError(vscode.l10n.t('GPUDirect RDMA Doctor failed to start: {0}', message));
  }
}

/** Builds the command context; each disposable joins the extension's subscriptions as soon as it exists. */
function createContext(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const own = <T extends vscode.Disposable>(d: T): T => {
    extension.subscriptions.push(d);
    return d;
  };
  const model = new HostModel({
    configHosts: () => listConfigHosts(localResolveEnv(readSettings().sshConfigFile)),
    addedHosts: () => readSettings().hosts,
    fleetHosts: () => directMembers(readSettings().fleets),
  });
  const fleets = new FleetModel(() => readSettings().fleets);
  const demo = new DemoHost(extension.asAbsolutePath('media/demo'));
  const diagnoser = own(new Diagnoser({ model, settings: readSettings, prompts: inputBoxPrompts(), demo, log }));
  const tree = own(new HostsTreeProvider(model, fleets, diagnoser));
  const view = own(vscode.window.createTreeView(Views.hosts, { treeDataProvider: tree, canSelectMany: true, showCollapseAll: true }));
  const keys = own(new ContextKeySetter(model, fleets, diagnoser, view));
  own(watchViewBadge(view, model, fleets));
  own(new SelectedHostStatus(view, model));
  const work = own(new WorkIndicator());
  const raw = own(new RawOutputProvider(model));
  own(vscode.workspace.registerTextDocumentContentProvider(RAW_OUTPUT_SCHEME, raw));
  const topology = own(new TopologyPanels(extension, log));
  const plans = own(new PlanDocuments());
  own(watchSettings(model, fleets, log));
  own(trackDemoOpen(model));
  const ncclLogs = registerNcclLogEditor(model, log, own);
  const ncclTests = registerNcclTestsEditor(own);
  // The watcher diagnoses through the same context the commands get, so it is made from it.
  const late: { watcher?: Watcher } = {};
  const ctx: Ctx = {
    ...{ extension, model, fleets, diagnoser, demo, log, view, work, topology, plans, keys, ncclLogs, ncclTests },
    get watcher(): Watcher {
      if (!late.watcher) throw new Error('the watcher is not made yet');
      return late.watcher;
    },
  };
  late.watcher = own(createWatcher(ctx));
  registerCommands(ctx, own);
  registerTopoEditor(log, own);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
