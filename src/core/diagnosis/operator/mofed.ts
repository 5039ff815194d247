// The MOFED side of a GPU Operator node (docs/kubernetes.md §2): the Network Operator's MOFED pod not
// ready, and ClusterPolicy's driver.rdma.useHostMofed against what the host has. With useHostMofed the
// driver pod expects MLNX_OFED on the host; without it, the driver pod's init waits for the Network
// Operator's MOFED (GPU Operator "GPUDirect RDMA" prerequisites; NVIDIA/gpu-operator#448, #588).
import type { RuleContext } from '../context';
import { note, quote } from '../evidence';
import { Finding, SOURCES } from '../finding';
import { containerLine, PodView } from '../../kube/objects';
import { OperatorInput, podsRead } from './input';
import { t } from '../../l10n';

const podCommand = (p: PodView) => `kubectl get pod -n ${p.namespace} ${p.name}`;

/** `operator.mofed-not-ready`: the node's MOFED pod is not ready, or none runs where the operator waits for one. */
export function mofedNotReadyFindings(input: OperatorInput): Finding[] {
  const policy = input.policy.ok ? input.policy.value : null;
  const waitsForMofed = policy?.rdmaEnabled === true && !policy.useHostMofed;
  const mofed = input.pods.mofedPod;
  const nic = input.nicPolicy.ok ? input.nicPolicy.value : null;
  if (mofed) {
    const notReady = mofed.containers.filter((c) => !c.ready);
    if (mofed.phase === 'Running' && notReady.length === 0) return [];
    return [
      finding(
        waitsForMofed ? 'error' : 'warning',
        t(
          'The MOFED pod {0} is not ready (phase {1}). The driver pod waits for MOFED before it loads nvidia-peermem, so GPUDirect RDMA stays off on this node until MOFED is up; its log (kubectl logs -n {2} {0}) says why.',
          mofed.name,
          mofed.phase,
          mofed.namespace,
        ),
        [`${podCommand(mofed)}: phase ${mofed.phase}`, ...notReady.map((c) => `${podCommand(mofed)}: ${containerLine(c)}`)],
      ),
    ];
  }
  if (!waitsForMofed || !nic?.ofedDriver || !podsRead(input, 'mofed')) return [];
  return [
    finding(
      'error',
      t(
        "NicClusterPolicy {0} installs MOFED in a container and ClusterPolicy {1} waits for it (useHostMofed off), but no MOFED pod runs on {2}: the driver pod waits for MOFED and nvidia-peermem is not loaded. Check the MOFED DaemonSet's node selector and events.",
        nic.name,
        policy?.name ?? '?',
        input.node,
      ),
      [`kubectl get pods -A -l nvidia.com/ofed-driver: ${t('(none on {0})', input.node)}`],
    ),
  ];
}

function finding(severity: Finding['severity'], detail: string, evidence: string[]): Finding {
  return {
    id: 'operator.mofed-not-ready',
    severity,
    title: t('MOFED is not ready on this node'),
    detail: `${detail} ${t('Source: NVIDIA Network Operator documentation; NVIDIA/gpu-operator#448.')}`,
    evidence,
    fixes: [],
    source: SOURCES.operatorMofed,
  };
}

/** `operator.host-mofed`: useHostMofed set without OFED on the host, or host OFED unused while nothing else provides MOFED. */
export function hostMofedFindings(ctx: RuleContext, input: OperatorInput): Finding[] {
  const policy = input.policy.ok ? input.policy.value : null;
  if (!policy?.rdmaEnabled || ctx.host.ofedPresent === null) return [];
  const cp = `kubectl get clusterpolicies.nvidia.com ${policy.name}: spec.driver.rdma = ${policy.rdmaText}`;
  const ofed = ctx.host.ofedPresent
    ? quote(ctx.report, 'ofed', (l) => l.trim() !== '').slice(0, 1)
    : [note(ctx.report, 'ofed', 'not installed')];
  if (policy.useHostMofed && !ctx.host.ofedPresent) {
    return [
      hostMofed(
        'error',
        t(
          'ClusterPolicy {0} says useHostMofed (MOFED installed on the host), but the host has no MLNX_OFED/DOCA-OFED (ofed_info): the driver pod cannot build nvidia-peermem against it. Install MOFED on the host, or let the Network Operator provide it and set useHostMofed to false.',
          policy.name,
        ),
        [cp, ...ofed],
      ),
    ];
  }
  const mofedElsewhere = input.pods.mofedPod !== undefined || (input.nicPolicy.ok && input.nicPolicy.value?.ofedDriver === true);
  if (policy.useHostMofed || !ctx.host.ofedPresent || mofedElsewhere || !podsRead(input, 'mofed')) return [];
  return [
    hostMofed(
      'warning',
      t(
        'The host has MLNX_OFED/DOCA-OFED, but ClusterPolicy {0} has useHostMofed off and no Network Operator MOFED runs here: the driver pod waits for a MOFED container that never comes. Set driver.rdma.useHostMofed to true.',
        policy.name,
      ),
      [cp, ...ofed],
    ),
  ];
}

function hostMofed(severity: Finding['severity'], detail: string, evidence: string[]): Finding {
  return {
    id: 'operator.host-mofed',
    severity,
    title: t("useHostMofed does not match the host's MOFED"),
    detail: `${detail} ${t('Source: GPU Operator documentation, "GPUDirect RDMA" (useHostMofed); NVIDIA/gpu-operator#588.')}`,
    evidence,
    fixes: [],
    source: SOURCES.operatorMofed,
  };
}
