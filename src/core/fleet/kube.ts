// A Kubernetes cluster's GPU nodes diagnosed as a fleet (docs/kubernetes.md §1): the cluster read first
// (get/list only: core/kube), then one bounded fan-out (fanout.ts: -f N, per-node and overall
// deadlines, cancel stopping every kubectl) probing each node through its GPU Operator driver pod, or a
// node debug pod where the user named an image for one; the operators' findings added to each node's.
import type { NcclAssumptions } from '../diagnosis';
import { withOperator } from '../diagnosis/operator';
import { ClusterView, nodeOperatorView, readCluster, ReadClusterOptions } from '../kube/cluster';
import { ConnectError } from '../ssh/errors';
import { KubeAccess, KubeRoute, probeHost } from '../transport';
import { fanOut } from './fanout';
import type { FleetHostResult } from './types';
import { t } from '../l10n';
import type { OperatorInput } from '../diagnosis/operator';

export interface KubeFleetOptions extends ReadClusterOptions {
  readonly access: KubeAccess;
  /** The image for `kubectl debug node/…` where no driver pod runs; none: such nodes are not probed. */
  readonly debugImage?: string;
  readonly concurrency?: number;
  readonly hostDeadlineMs?: number;
  readonly overallDeadlineMs?: number;
  readonly nccl?: NcclAssumptions;
  readonly onResult?: (result: FleetHostResult, index: number) => void;
  /** Told once the cluster was read, before any node is probed. */
  readonly onCluster?: (cluster: ClusterView) => void;
}

export interface KubeFleet {
  readonly cluster: ClusterView;
  readonly results: FleetHostResult[];
}

/** Rejects (KubectlError: kubectl's own words) only when the nodes cannot be listed. */
export async function diagnoseKubeCluster(options: KubeFleetOptions): Promise<KubeFleet> {
  const cluster = await readCluster(options.access, options);
  options.onCluster?.(cluster);
  const inputs = new Map(cluster.nodes.map((n) => [n.name, operatorInput(cluster, n.name)]));
  const results = await fanOut({
    hosts: cluster.nodes.map((n) => n.name),
    probeHost: (node, signal) => {
      const route = routeFor(inputs.get(node) as OperatorInput, options.debugImage);
      if (!route) return Promise.reject(new ConnectError(node, 'kubectl', noRouteText(node)));
      return probeHost({ kind: 'kube', node, access: options.access, route }, { deadlineMs: options.hostDeadlineMs, signal });
    },
    concurrency: options.concurrency,
    hostDeadlineMs: options.hostDeadlineMs,
    overallDeadlineMs: options.overallDeadlineMs,
    signal: options.signal,
    path: 'kube',
    nccl: options.nccl,
    onResult: options.onResult,
  });
  return { cluster, results: results.map((r) => withOperatorResult(r, inputs.get(r.host), options.nccl)) };
}

function withOperatorResult(r: FleetHostResult, input: OperatorInput | undefined, nccl?: NcclAssumptions): FleetHostResult {
  if (!input || !r.report || !r.diagnosis) return r;
  return { ...r, diagnosis: withOperator(r.diagnosis, r.report, input, nccl) };
}

/** The driver pod where its driver container runs; else a debug pod if the user named an image. */
export function routeFor(input: OperatorInput, debugImage: string | undefined): KubeRoute | undefined {
  const pod = input.pods.driverPod;
  const ctr = pod?.containers.find((c) => c.name === 'nvidia-driver-ctr');
  if (pod && pod.phase === 'Running' && ctr?.state === 'running') return { via: 'driver-pod', namespace: pod.namespace, pod: pod.name };
  return debugImage ? { via: 'debug-pod', image: debugImage } : undefined;
}

function noRouteText(node: string): string {
  return t(
    'no running GPU Operator driver pod on {0} to exec into; to reach it with a node debug pod (kubectl debug node/{0} --profile=sysadmin, deleted afterwards) name its image: --debug-image IMAGE',
    node,
  );
}

export function operatorInput(cluster: ClusterView, node: string): OperatorInput {
  const unread = (what: 'driver' | 'mofed' | 'validator', r: ClusterView['driverPods']) => (r.ok ? [] : [{ what, error: r.error }]);
  return {
    node,
    policy: cluster.clusterPolicy,
    nicPolicy: cluster.nicClusterPolicy,
    pods: nodeOperatorView(cluster, node),
    unreadPods: [
      ...unread('driver', cluster.driverPods),
      ...unread('mofed', cluster.mofedPods),
      ...unread('validator', cluster.validatorPods),
    ],
  };
}
