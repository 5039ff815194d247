// What the cluster says, read with get/list only: the GPU nodes, the GPU Operator's ClusterPolicy and
// the Network Operator's NicClusterPolicy (when their CRDs exist), the operators' pods (driver with its
// peermem sidecar, MOFED, validators), and the last log lines of each crash-looping container. A read
// the user's RBAC refuses is kept as kubectl's own error text: what depends on it is then unknown.
import { KubeAccess, KubectlError, kubectlOk } from '../transport';
import { crashLooping, hasGpu, listItems, NodeView, nodeView, PodView, podView } from './objects';
import { NicPolicyView, nicPolicyView, PolicyView, policyView } from './policies';
import { t } from '../l10n';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** Pods of the operators, by the labels their DaemonSets give them. */
export const SELECTORS = {
  /** Both the ClusterPolicy's nvidia-driver-daemonset and NVIDIADriver's daemonsets. */
  driver: 'app.kubernetes.io/component=nvidia-driver',
  /** The Network Operator's MOFED / DOCA driver DaemonSet (manifests/state-ofed-driver). */
  mofed: 'nvidia.com/ofed-driver',
  validator: 'app=nvidia-operator-validator',
} as const;

export const PEERMEM_CONTAINER = 'nvidia-peermem-ctr';
/** Log lines kept of a crash-looping container. */
export const LOG_TAIL_LINES = 20;

export interface ContainerLog {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  /** The kubectl command that printed it, for evidence. */
  readonly command: string;
  readonly lines: readonly string[];
}

export interface ClusterView {
  /** The nodes asked for, or every GPU node. */
  readonly nodes: readonly NodeView[];
  /** null: no ClusterPolicy (the GPU Operator is not installed). */
  readonly clusterPolicy: Read<PolicyView | null>;
  readonly nicClusterPolicy: Read<NicPolicyView | null>;
  readonly driverPods: Read<PodView[]>;
  readonly mofedPods: Read<PodView[]>;
  readonly validatorPods: Read<PodView[]>;
  /** The last lines of every crash-looping operator container on the chosen nodes. */
  readonly logs: readonly ContainerLog[];
}

export interface ReadClusterOptions {
  /** Nodes named by the user; none: every node with a GPU. */
  readonly nodes?: readonly string[];
  /** `-l SELECTOR` for the nodes. */
  readonly selector?: string;
  readonly signal?: AbortSignal;
}

/** Reads the cluster; rejects (KubectlError, kubectl's words) only when the nodes cannot be listed. */
export async function readCluster(access: KubeAccess, options: ReadClusterOptions = {}): Promise<ClusterView> {
  const get = (args: string[]) => kubectlOk(access, args, { signal: options.signal }).then((b) => b.toString('utf8'));
  const [nodes, clusterPolicy, nicClusterPolicy, driverPods, mofedPods, validatorPods] = await Promise.all([
    readNodes(get, options),
    readPolicy(get, 'clusterpolicies.nvidia.com', policyView),
    readPolicy(get, 'nicclusterpolicies.mellanox.com', nicPolicyView),
    readPods(get, SELECTORS.driver),
    readPods(get, SELECTORS.mofed),
    readPods(get, SELECTORS.validator),
  ]);
  const names = new Set(nodes.map((n) => n.name));
  const onNodes = (r: Read<PodView[]>) => (r.ok ? r.value.filter((p) => names.has(p.node)) : []);
  const logs = await readCrashLogs(get, [...onNodes(driverPods), ...onNodes(validatorPods)]);
  return { nodes, clusterPolicy, nicClusterPolicy, driverPods, mofedPods, validatorPods, logs };
}

type Get = (args: string[]) => Promise<string>;

async function readNodes(get: Get, options: ReadClusterOptions): Promise<NodeView[]> {
  const text = await get(['get', 'nodes', '-o', 'json', ...(options.selector ? ['-l', options.selector] : [])]);
  const all = listItems(text, 'kubectl get nodes')
    .map(nodeView)
    .filter((n): n is NodeView => n !== undefined);
  if (!options.nodes || options.nodes.length === 0) return all.filter(hasGpu);
  const missing = options.nodes.filter((name) => !all.some((n) => n.name === name));
  if (missing.length > 0) throw new KubectlError(t('no such node in the cluster: {0}', missing.join(', ')), '', 1);
  return options.nodes.map((name) => all.find((n) => n.name === name) as NodeView);
}

async function readPolicy<T>(get: Get, resource: string, view: (item: unknown) => T | undefined): Promise<Read<T | null>> {
  try {
    const items = listItems(await get(['get', resource, '-o', 'json']), `kubectl get ${resource}`);
    return { ok: true, value: items.map(view).find((v) => v !== undefined) ?? null };
  } catch (e) {
    // No CRD: that operator is not installed (kubectl: `the server doesn't have a resource type "…"`).
    if (e instanceof KubectlError && /doesn't have a resource type/.test(e.message)) return { ok: true, value: null };
    return { ok: false, error: (e as Error).message };
  }
}

async function readPods(get: Get, selector: string): Promise<Read<PodView[]>> {
  try {
    const items = listItems(
      await get(['get', 'pods', '--all-namespaces', '-l', selector, '-o', 'json']),
      `kubectl get pods -l ${selector}`,
    );
    return { ok: true, value: items.map(podView).filter((p): p is PodView => p !== undefined) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** The previous (crashed) instance's last lines of each crash-looping container, eight kubectl at a time. */
async function readCrashLogs(get: Get, pods: readonly PodView[]): Promise<ContainerLog[]> {
  const wanted = pods.flatMap((p) => [...p.initContainers, ...p.containers].filter(crashLooping).map((c) => ({ p, c: c.name })));
  const out: ContainerLog[] = [];
  for (let i = 0; i < wanted.length; i += 8) {
    const batch = await Promise.all(wanted.slice(i, i + 8).map(({ p, c }) => readLog(get, p, c)));
    out.push(...batch.filter((l): l is ContainerLog => l !== undefined));
  }
  return out;
}

async function readLog(get: Get, p: PodView, container: string): Promise<ContainerLog | undefined> {
  const args = ['logs', '-n', p.namespace, p.name, '-c', container, '--previous', `--tail=${LOG_TAIL_LINES}`];
  const text = await get(args).catch(() => undefined);
  if (text === undefined) return undefined;
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return { pod: p.name, namespace: p.namespace, container, command: `kubectl ${args.join(' ')}`, lines };
}

/** The operator's pods on one node. */
export interface NodeOperatorView {
  readonly driverPod?: PodView;
  readonly mofedPod?: PodView;
  readonly validators: readonly PodView[];
  readonly logs: readonly ContainerLog[];
}

export function nodeOperatorView(cluster: ClusterView, node: string): NodeOperatorView {
  const on = (r: Read<PodView[]>) => (r.ok ? r.value.filter((p) => p.node === node) : []);
  const driver = on(cluster.driverPods);
  return {
    // A rolling restart can leave two for a moment: the running one carries the probe.
    driverPod: driver.find((p) => p.phase === 'Running') ?? driver[0],
    mofedPod: on(cluster.mofedPods)[0],
    validators: on(cluster.validatorPods),
    logs: cluster.logs.filter((l) =>
      [...driver, ...on(cluster.validatorPods)].some((p) => p.name === l.pod && p.namespace === l.namespace),
    ),
  };
}
