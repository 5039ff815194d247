// The Clusters view's state: the kubeconfig's contexts (`kubectl config get-contexts -o name`, as the
// Kubernetes extension lists them), each one's cluster as last read (core/kube: get/list only) and its
// GPU nodes, whose diagnoses live in the HostModel like any host's. Nothing runs kubectl until the view
// asks for a context's children or the user runs a command.
import { ClusterView, readCluster } from '../../core/kube/cluster';
import { kubectlOk } from '../../core/transport';
import { HostModel } from '../hosts/hostModel';
import { accessFor, KubeSettings } from './kubeSettings';

export type ContextState =
  | { readonly kind: 'unread' }
  | { readonly kind: 'read'; readonly cluster: ClusterView }
  | { readonly kind: 'failed'; readonly message: string };

export class ClusterModel {
  private contextList: Promise<string[]> | undefined;
  private readonly states = new Map<string, ContextState>();
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly hosts: HostModel,
    readonly settings: () => KubeSettings,
  ) {}

  /** The contexts to list: the configured one, else every context of the kubeconfig (kubectl's error is thrown). */
  contexts(): Promise<string[]> {
    const s = this.settings();
    if (s.context) return Promise.resolve([s.context]);
    this.contextList ??= kubectlOk(accessFor(s), ['config', 'get-contexts', '-o', 'name']).then((b) =>
      b
        .toString('utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    );
    return this.contextList;
  }

  state(context: string): ContextState {
    return this.states.get(context) ?? { kind: 'unread' };
  }

  /** Reads the context's cluster (nodes, policies, the operators' pods) and keeps it. */
  async read(context: string): Promise<ContextState> {
    const state: ContextState = await readCluster(accessFor(this.settings(), context)).then(
      (cluster) => ({ kind: 'read' as const, cluster }),
      (e: Error) => ({ kind: 'failed' as const, message: e.message }),
    );
    this.states.set(context, state);
    if (state.kind === 'read') for (const n of state.cluster.nodes) this.hosts.kubeHost(context, n.name);
    this.fire();
    return state;
  }

  /** Forget every context and cluster read (settings changed, Refresh). */
  reset(): void {
    this.contextList = undefined;
    this.states.clear();
    this.fire();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  fire(): void {
    for (const l of [...this.listeners]) l();
  }
}
