// The "Clusters" view: kubeconfig contexts, each expanding (one cluster read, get/list only) to what the
// GPU Operator says (ClusterPolicy, NicClusterPolicy) and to the cluster's GPU nodes. A node, once
// diagnosed, expands into the same rows as a host of the Hosts view (hostNodes.ts, treeItems.ts).
import type { FindingRefs } from '../findings/findingRefs';
import * as vscode from 'vscode';
import { ContextValues } from '../../constants';
import { OPERATOR_FIX_IDS } from '../../core/fixes/operator/plan';
import { ClusterView } from '../../core/kube/cluster';
import { formatClusterSummary } from '../../core/kube/summary';
import { childNodes } from '../tree/hostNodes';
import type { HostsNode } from '../tree/nodes';
import { toTreeItem } from '../tree/treeItems';
import { ClusterModel } from './clusterModel';

export type ClusterNode =
  | { readonly kind: 'cluster'; readonly id: string; readonly hostId: ''; readonly context: string }
  | {
      readonly kind: 'clusterInfo';
      readonly id: string;
      readonly hostId: '';
      readonly label: string;
      readonly tooltip?: string;
      readonly error?: boolean;
    }
  | { readonly kind: 'clusterNode'; readonly id: string; readonly hostId: string; readonly context: string; readonly node: string };

type Element = ClusterNode | Exclude<HostsNode, { kind: 'fleet' | 'fleetGroup' }>;

const isClusterNode = (e: Element): e is ClusterNode => e.kind === 'cluster' || e.kind === 'clusterInfo' || e.kind === 'clusterNode';

export class ClustersTreeProvider implements vscode.TreeDataProvider<Element>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: { dispose(): void }[];

  constructor(
    private readonly model: ClusterModel,
    private readonly refs: FindingRefs,
  ) {
    const redraw = () => this.changed.fire(undefined);
    this.subscriptions = [model.onDidChange(redraw), model.hosts.onDidChange(redraw)];
  }

  getTreeItem(e: Element): vscode.TreeItem {
    if (!isClusterNode(e)) return toTreeItem(e, this.model.hosts, () => false, this.refs);
    if (e.kind === 'cluster') {
      const item = new vscode.TreeItem(e.context, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = e.id;
      item.iconPath = new vscode.ThemeIcon('cloud');
      item.contextValue = ContextValues.cluster;
      item.tooltip = vscode.l10n.t('kubeconfig context {0}: its GPU nodes and the GPU Operator', e.context);
      return item;
    }
    if (e.kind === 'clusterInfo') {
      const item = new vscode.TreeItem(e.label, vscode.TreeItemCollapsibleState.None);
      item.id = e.id;
      item.tooltip = e.tooltip;
      item.iconPath = new vscode.ThemeIcon(e.error ? 'error' : 'info');
      return item;
    }
    const host = this.model.hosts.kubeHost(e.context, e.node);
    const item = toTreeItem({ kind: 'host', id: e.id, hostId: host.id }, this.model.hosts, () => false, this.refs);
    const findings = this.model.hosts.status(host.id).lastDiagnosed?.diagnosis.findings ?? [];
    const fixes = OPERATOR_FIX_IDS.filter((f) => findings.some((x) => x.fixes.includes(f)));
    item.contextValue = ContextValues.clusterNode + fixes.map((f) => `;fix=${f}`).join('');
    item.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    return item;
  }

  async getChildren(e?: Element): Promise<Element[]> {
    if (!e) return this.roots();
    if (!isClusterNode(e)) return childNodes(e, this.model.hosts) as Element[];
    if (e.kind === 'clusterNode') return childNodes({ kind: 'host', id: e.id, hostId: e.hostId }, this.model.hosts) as Element[];
    if (e.kind !== 'cluster') return [];
    const state = this.model.state(e.context).kind === 'unread' ? await this.model.read(e.context) : this.model.state(e.context);
    if (state.kind === 'failed') return [info(`${e.id}/error`, `kubectl: ${state.message.split('\n')[0]}`, state.message, true)];
    if (state.kind !== 'read') return [];
    return [...operatorRows(e.id, state.cluster, e.context), ...state.cluster.nodes.map((n) => this.nodeRow(e.context, n.name))];
  }

  private async roots(): Promise<Element[]> {
    try {
      const contexts = await this.model.contexts();
      return contexts.map((context) => ({ kind: 'cluster', id: `cluster:${context}`, hostId: '', context }));
    } catch (e) {
      return [info('clusters/error', `kubectl: ${(e as Error).message.split('\n')[0]}`, (e as Error).message, true)];
    }
  }

  private nodeRow(context: string, node: string): ClusterNode {
    const host = this.model.hosts.kubeHost(context, node);
    return { kind: 'clusterNode', id: host.id, hostId: host.id, context, node };
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}

function info(id: string, label: string, tooltip?: string, error?: boolean): ClusterNode {
  return { kind: 'clusterInfo', id, hostId: '', label, tooltip, error };
}

/** The operators' state in a few rows: the summary's lines (ClusterPolicy, NicClusterPolicy, each node's driver pod). */
function operatorRows(scope: string, cluster: ClusterView, context: string): ClusterNode[] {
  const lines = formatClusterSummary(cluster, context).trimEnd().split('\n').slice(1);
  return lines
    .filter((l) => !/^\s{4}/.test(l))
    .map((l, i) => info(`${scope}/operator/${i}`, l.trim(), formatClusterSummary(cluster, context)));
}
