// The rest of what the operators say about a node (docs/kubernetes.md §2): validators failing, no driver
// pod where the ClusterPolicy manages drivers, the kernel module type beside dma-buf, and what could not be
// read at all (RBAC), so a verdict that rests on it reads as unknown, never as fine.
import type { RuleContext } from '../context';
import { Finding, SOURCES } from '../finding';
import { containerLine, crashLooping } from '../../kube/objects';
import { logEvidence, OperatorInput, podsRead } from './input';
import { t } from '../../l10n';

/** `operator.validator-failing`: an init container of the operator's validator keeps failing (assets/state-operator-validation). */
export function validatorFindings(input: OperatorInput): Finding[] {
  return input.pods.validators.flatMap((p) => {
    const failing = [...p.initContainers, ...p.containers].filter(
      (c) => crashLooping(c) || (c.state === 'terminated' && c.reason !== 'Completed'),
    );
    if (failing.length === 0) return [];
    return [
      {
        id: 'operator.validator-failing',
        severity: 'warning' as const,
        title: t("The GPU Operator's validation fails on this node"),
        detail: t(
          'The operator validator {0} fails at {1}: the operator treats the node as not ready (the device plugin waits for the validations). Its log is quoted; kubectl logs -n {2} {0} -c {1} --previous shows all of it. Source: GPU Operator, assets/state-operator-validation.',
          p.name,
          failing.map((c) => c.name).join(', '),
          p.namespace,
        ),
        evidence: [
          ...failing.map((c) => `kubectl get pod -n ${p.namespace} ${p.name}: ${containerLine(c)}`),
          ...failing.flatMap((c) => logEvidence(input.pods.logs, p.name, c.name, 3)),
        ],
        fixes: [],
        source: SOURCES.operatorValidator,
      },
    ];
  });
}

/** `operator.no-driver-pod`: the ClusterPolicy manages drivers, but none of its driver pods runs on this GPU node. */
export function noDriverPodFindings(input: OperatorInput): Finding[] {
  const policy = input.policy.ok ? input.policy.value : null;
  if (!policy || input.pods.driverPod || !podsRead(input, 'driver')) return [];
  return [
    {
      id: 'operator.no-driver-pod',
      severity: 'info',
      title: t('No GPU Operator driver pod on this node'),
      detail: t(
        'ClusterPolicy {0} exists, but no driver pod (label app.kubernetes.io/component=nvidia-driver) runs on {1}: the node uses a driver installed on the host (nvidia.com/gpu.deploy.driver=false, or a precompiled image elsewhere), or the pod was not scheduled. The node was reached with a debug pod.',
        policy.name,
        input.node,
      ),
      evidence: [`kubectl get pods -A -l app.kubernetes.io/component=nvidia-driver: ${t('(none on {0})', input.node)}`],
      fixes: [],
      source: SOURCES.operatorRdma,
    },
  ];
}

/**
 * `operator.kernel-module-type`: RDMA through nvidia-peermem is enabled while dma-buf works on this node (open kernel
 * modules): NVIDIA recommends DMA-BUF, which needs no peermem sidecar (GPU Operator "GPUDirect RDMA", kernelModuleType).
 */
export function moduleTypeFindings(ctx: RuleContext, input: OperatorInput): Finding[] {
  const policy = input.policy.ok ? input.policy.value : null;
  if (!policy?.rdmaEnabled || ctx.dmabuf.available !== true) return [];
  return [
    {
      id: 'operator.kernel-module-type',
      severity: 'info',
      title: t('dma-buf works here: the nvidia-peermem sidecar is optional'),
      detail: t(
        'ClusterPolicy {0} enables GPUDirect RDMA through nvidia-peermem (driver.rdma.enabled), and this node runs the open kernel modules with what dma-buf needs: NVIDIA recommends DMA-BUF, which needs no peer-memory module and no MOFED dependency. Source: GPU Operator documentation, "GPUDirect RDMA and GPUDirect Storage"; driver.kernelModuleType.',
        policy.name,
      ),
      evidence: [
        `kubectl get clusterpolicies.nvidia.com ${policy.name}: kernelModuleType ${policy.kernelModuleType ?? '(not set)'}`,
        ...ctx.dmabuf.evidence.slice(0, 2),
      ],
      fixes: [],
      source: SOURCES.operatorModules,
    },
  ];
}

/** `operator.unread`: a policy or the operators' pods could not be read (kubectl's words): the operator rules could not run. */
export function unreadFindings(input: OperatorInput, errors: readonly { what: string; error: string }[]): Finding[] {
  if (errors.length === 0) return [];
  return [
    {
      id: 'operator.unread',
      severity: 'info',
      title: t("Part of the operators' state could not be read"),
      detail: t(
        "kubectl could not read {0} (see the evidence: kubectl's own words, often RBAC): what the operators say about {1} is unknown there, and no finding rests on it. docs/kubernetes.md lists the permissions gdr-doctor needs.",
        errors.map((e) => e.what).join(', '),
        input.node,
      ),
      evidence: errors.map((e) => `kubectl get ${e.what}: ${e.error.split('\n')[0]}`),
      fixes: [],
      source: SOURCES.operatorRdma,
    },
  ];
}
