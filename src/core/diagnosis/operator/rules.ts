// Findings that know the GPU Operator and the Network Operator, for a node reached through kubectl
// (docs/kubernetes.md §2). Each rule reads the cluster's side (ClusterPolicy, NicClusterPolicy, the
// operators' pods and logs) beside the host's (the probe), and stays silent where either is unknown.
import type { RuleContext } from '../context';
import { quote } from '../evidence';
import { Finding, SOURCES } from '../finding';
import { rdmaDevicesKnown } from '../rdma';
import { containerLine, crashLooping, PodView } from '../../kube/objects';
import { PEERMEM_CONTAINER } from '../../kube/cluster';
import { logEvidence, OperatorInput } from './input';
import { t } from '../../l10n';

const podCommand = (p: PodView) => `kubectl get pod -n ${p.namespace} ${p.name}`;

/**
 * `operator.rdma-disabled`: ClusterPolicy `driver.rdma.enabled` is off (GPUDirectRDMASpec.IsEnabled: off unless set),
 * so the operator runs no nvidia-peermem-ctr, while the node has RDMA devices and no dma-buf path: GPUDirect RDMA
 * cannot work (GPU Operator "GPUDirect RDMA and GPUDirect Storage": one of DMA-BUF or nvidia-peermem is required).
 */
export function rdmaDisabledFindings(ctx: RuleContext, input: OperatorInput): Finding[] {
  const policy = input.policy.ok ? input.policy.value : null;
  if (!policy || policy.rdmaEnabled || rdmaDevicesKnown(ctx.report) !== true) return [];
  if (ctx.dmabuf.available === true || ctx.host.peermem.newLoaded === true) return [];
  const proprietary = policy.kernelModuleType === 'proprietary' || ctx.dmabuf.missing.length > 0;
  return [
    {
      id: 'operator.rdma-disabled',
      severity: ctx.dmabuf.available === false ? 'error' : 'warning',
      title: t('GPUDirect RDMA is not enabled in the ClusterPolicy'),
      detail:
        t(
          'ClusterPolicy {0} has driver.rdma.enabled off, so the GPU Operator loads no nvidia-peermem on this node, and dma-buf is not available here ({1}): NCCL stages every transfer through host memory. Enable it in the ClusterPolicy (fix enable-rdma: kubectl patch); the operator then adds the nvidia-peermem-ctr sidecar to the driver pods. Source: GPU Operator documentation, "GPUDirect RDMA and GPUDirect Storage".',
          policy.name,
          ctx.dmabuf.missing.join('; ') || t('not every prerequisite could be checked'),
        ) +
        (proprietary
          ? ` ${t('With the open kernel modules (driver.kernelModuleType: open, or auto on a recent branch) dma-buf would also do.')}`
          : ''),
      evidence: [
        `kubectl get clusterpolicies.nvidia.com ${policy.name}: spec.driver.rdma = ${policy.rdmaText}`,
        ...quote(ctx.report, 'ibv', (l) => /^hca_id:/.test(l.trim())).slice(0, 2),
        ...ctx.dmabuf.evidence.slice(0, 2),
      ],
      fixes: ['enable-rdma'],
      source: SOURCES.operatorRdma,
    },
  ];
}

/**
 * `operator.peermem-crashloop`: the driver pod's nvidia-peermem-ctr keeps failing; its log says why. After a MOFED
 * upgrade the module built against the old ib_core no longer loads ("Invalid argument"; the kernel: "disagrees about
 * version of symbol ib_register_peer_memory_client"): NVIDIA/gpu-operator#2868; restarting the driver pod rebuilds it.
 */
export function peermemCrashFindings(input: OperatorInput): Finding[] {
  const pod = input.pods.driverPod;
  const sidecar = pod?.containers.find((c) => c.name === PEERMEM_CONTAINER);
  if (!pod || !sidecar || !crashLooping(sidecar)) return [];
  const log = logEvidence(input.pods.logs, pod.name, PEERMEM_CONTAINER);
  const invalid = log.some((l) => /Invalid argument|disagrees about version/.test(l));
  return [
    {
      id: 'operator.peermem-crashloop',
      severity: 'error',
      title: t('The nvidia-peermem sidecar of the driver pod is crash-looping'),
      detail:
        (invalid
          ? t(
              'nvidia-peermem-ctr in {0} cannot load nvidia_peermem ("Invalid argument"): the module was built against another ib_core, as after a MOFED/DOCA-OFED upgrade. Deleting the driver pod makes the DaemonSet start a new one, which rebuilds the driver against the MOFED now running (fix restart-driver-pod; drain GPU workloads first).',
              pod.name,
            )
          : t(
              'nvidia-peermem-ctr in {0} keeps failing (its log is quoted). Until it runs, nvidia_peermem is not loaded and NCCL uses no GPUDirect RDMA through it.',
              pod.name,
            )) + ` ${t('Source: NVIDIA/gpu-operator#2868, #2844; GPU Operator release notes, Known Issues.')}`,
      evidence: [`${podCommand(pod)}: ${containerLine(sidecar)}`, ...log],
      fixes: ['restart-driver-pod'],
      source: SOURCES.operatorPeermem,
    },
  ];
}
