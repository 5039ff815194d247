// Fixes that fit the GPU Operator (docs/kubernetes.md §3): what the cluster's admin would run, through
// their own kubectl, never modprobe or /etc/modules-load.d on the node. Each plan is the exact kubectl
// argv (names from the cluster are argv elements, never parts of a shell string; the line shown quotes
// them), what it should change, and how that is verified.
import type { OperatorFixId } from '../../diagnosis';
import type { ClusterView } from '../../kube/cluster';
import { nodeOperatorView, PEERMEM_CONTAINER } from '../../kube/cluster';
import { shQuote } from '../../shellText';
import { KubeAccess, kubectlArgv } from '../../transport';
import { t } from '../../l10n';

export const OPERATOR_FIX_IDS: readonly OperatorFixId[] = ['enable-rdma', 'restart-driver-pod'];

export const isOperatorFixId = (id: string): id is OperatorFixId => (OPERATOR_FIX_IDS as readonly string[]).includes(id);

/** The merge patch that turns GPUDirect RDMA on in a ClusterPolicy (spec.driver.rdma.enabled). */
export const ENABLE_RDMA_PATCH = '{"spec":{"driver":{"rdma":{"enabled":true}}}}';

export interface OperatorPlan {
  readonly fixId: OperatorFixId;
  readonly node: string;
  /** ready: can run; nothing-to-do: already so; refused: cannot apply here (the reason says why). */
  readonly status: 'ready' | 'nothing-to-do' | 'refused';
  readonly reason: string;
  /** kubectl's arguments after the global flags; [] unless ready. */
  readonly args: readonly string[];
  /** The whole command as a shell would need it typed (display only: it is run as an argv). */
  readonly commandLine: string;
  readonly effect: string;
  readonly verification: string;
  /** The driver pod before the fix (restart-driver-pod: verified gone). */
  readonly driverPod?: string;
}

export function planOperatorFix(fixId: OperatorFixId, node: string, cluster: ClusterView, access: KubeAccess): OperatorPlan {
  const pods = nodeOperatorView(cluster, node);
  const verification = t(
    'gdr-doctor waits until the driver pod on {0} runs with {1} Running, then re-diagnoses {0} and checks that nvidia_peermem is live (lsmod).',
    node,
    PEERMEM_CONTAINER,
  );
  const base = { fixId, node, verification, driverPod: pods.driverPod?.name };
  const planned = (args: string[], effect: string): OperatorPlan => ({
    ...base,
    status: 'ready',
    reason: '',
    args,
    commandLine: kubectlArgv(access, args).map(quoteIfNeeded).join(' '),
    effect,
  });
  const not = (status: 'nothing-to-do' | 'refused', reason: string): OperatorPlan => ({
    ...base,
    status,
    reason,
    args: [],
    commandLine: '',
    effect: '',
  });
  if (!cluster.nodes.some((n) => n.name === node)) return not('refused', t('{0} is not a node of this cluster', node));
  if (fixId === 'enable-rdma') {
    const cp = cluster.clusterPolicy;
    if (!cp.ok) return not('refused', t('the ClusterPolicy could not be read: {0}', cp.error));
    if (!cp.value) return not('refused', t('there is no ClusterPolicy: the GPU Operator is not installed'));
    if (cp.value.rdmaEnabled) return not('nothing-to-do', t('ClusterPolicy {0} already has driver.rdma.enabled', cp.value.name));
    return planned(
      ['patch', `clusterpolicy/${cp.value.name}`, '--type', 'merge', '-p', ENABLE_RDMA_PATCH],
      t(
        "ClusterPolicy {0} gets driver.rdma.enabled=true. The GPU Operator then updates the driver DaemonSet: each GPU node's driver pod is replaced by one with the {1} sidecar, which loads nvidia_peermem once MOFED is ready. This touches every GPU node of the cluster.",
        cp.value.name,
        PEERMEM_CONTAINER,
      ),
    );
  }
  const pod = pods.driverPod;
  if (!pod) return not('refused', t('no GPU Operator driver pod runs on {0}', node));
  return planned(
    ['delete', 'pod', '-n', pod.namespace, pod.name],
    t(
      'The driver pod {0} on {1} is deleted; its DaemonSet starts a new one, which rebuilds the driver against the MOFED now running and loads nvidia_peermem in its {2} sidecar. GPU workloads on {1} lose the driver meanwhile: drain them first.',
      pod.name,
      node,
      PEERMEM_CONTAINER,
    ),
  );
}

/** Quoted only where a shell would need it, so the line reads as the admin would type it. */
function quoteIfNeeded(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : shQuote(arg);
}

export function formatOperatorPlan(plan: OperatorPlan): string {
  const head = t('Fix {0} on {1}', plan.fixId, plan.node);
  if (plan.status !== 'ready') return `${head}: ${plan.status === 'refused' ? t('refused') : t('nothing to do')}: ${plan.reason}\n`;
  return [
    head,
    `  ${t('Runs (with your kubectl and credentials):')}`,
    `    ${plan.commandLine}`,
    `  ${t('Expected: {0}', plan.effect)}`,
    `  ${t('Verified: {0}', plan.verification)}`,
    '',
  ].join('\n');
}
