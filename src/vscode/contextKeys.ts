// Sets the extension's context keys (constants.ts ContextKeys) whenever what they describe changes: the
// host list and its outcomes, open connections, the configured fleets. The host list is read only once
// something else has read it (the view was shown, a command ran): activation reads no SSH config. A
// walkthrough key is set once the user has done its step.
import * as vscode from 'vscode';
import { ContextKeys } from '../constants';
import { ContextKeyValues, hostListKeys } from './contextKeyValues';
import type { FleetModel } from './fleet/fleetModel';
import type { Connections } from './tree/hostsTree';
import type { HostModel } from './hosts/hostModel';
import type { HostsNode } from './tree/nodes';

export class ContextKeySetter implements vscode.Disposable {
  private readonly sent = new Map<string, boolean>();
  private readonly subscriptions: { dispose(): void }[];
  private pending?: NodeJS.Timeout;

  constructor(
    private readonly model: HostModel,
    private readonly fleets: FleetModel,
    private readonly connections: Connections,
    view: vscode.TreeView<HostsNode>,
  ) {
    this.subscriptions = [
      model.onDidChange(() => this.updateHosts()),
      connections.onDidChangeConnections(() => this.updateHosts()),
      fleets.onDidChange(() => this.updateFleets()),
      // The view reads the host list when it shows: the palette's keys follow from then on.
      view.onDidChangeVisibility((e) => e.visible && this.updateHosts()),
      // Selecting a finding (its tooltip holds the evidence) is a step of the walkthrough.
      view.onDidChangeSelection((e) => e.selection.some((n) => n.kind === 'finding') && this.set(ContextKeys.findingSelected, true)),
    ];
    this.updateFleets();
    // A view restored visible reads the list right after activation: so do the keys, not during it.
    if (view.visible) this.pending = setTimeout(() => this.updateHosts(), 0);
  }

  /** Sets a key now (the walkthrough's, when the user did what its step asks). */
  set(key: string, value: boolean): void {
    if (this.sent.get(key) === value) return;
    this.sent.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  /** The host list was read (or changed): recompute what the palette may offer. */
  updateHosts(): void {
    const hosts = this.model
      .hosts()
      .map((host) => ({ host, status: this.model.status(host.id), connected: this.connections.connected(host) }));
    this.setAll(hostListKeys(hosts));
  }

  private updateFleets(): void {
    this.set(ContextKeys.hasFleets, this.fleets.fleets().length > 0);
  }

  private setAll(values: ContextKeyValues): void {
    for (const [key, value] of Object.entries(values)) this.set(key, value);
  }

  dispose(): void {
    clearTimeout(this.pending);
    for (const s of this.subscriptions) s.dispose();
  }
}
