// What the cluster's API said, as the CLI prints it above the nodes and as `--json` carries it
// (`cluster`): the two policies, and per GPU node the pod that carries the probe and the operators' pods.
import { ClusterView, nodeOperatorView, PEERMEM_CONTAINER } from './cluster';
import { containerLine, PodView } from './objects';
import { t } from '../l10n';

export function clusterJson(cluster: ClusterView, context?: string) {
  return {
    context: context ?? null,
    clusterPolicy: cluster.clusterPolicy.ok ? cluster.clusterPolicy.value : { error: cluster.clusterPolicy.error },
    nicClusterPolicy: cluster.nicClusterPolicy.ok ? cluster.nicClusterPolicy.value : { error: cluster.nicClusterPolicy.error },
    nodes: cluster.nodes.map((n) => {
      const pods = nodeOperatorView(cluster, n.name);
      return {
        name: n.name,
        gpus: n.allocatableGpus,
        driverPod: pods.driverPod ?? null,
        mofedPod: pods.mofedPod ?? null,
        validators: pods.validators,
        logs: pods.logs,
      };
    }),
  };
}

export function formatClusterSummary(cluster: ClusterView, context?: string): string {
  const lines = [context ? t('Cluster (context {0}):', context) : t('Cluster (current context):')];
  const cp = cluster.clusterPolicy;
  if (!cp.ok) lines.push(`  ClusterPolicy: ${t('not readable: {0}', cp.error)}`);
  else if (!cp.value) lines.push(`  ClusterPolicy: ${t('none (the GPU Operator is not installed)')}`);
  else {
    const state = t('state {0}', cp.value.state ?? '?');
    const moduleType = cp.value.kernelModuleType ?? t('(not set)');
    lines.push(`  ClusterPolicy ${cp.value.name}: ${state}, driver.rdma ${cp.value.rdmaText}, kernelModuleType ${moduleType}`);
  }
  const nic = cluster.nicClusterPolicy;
  if (!nic.ok) lines.push(`  NicClusterPolicy: ${t('not readable: {0}', nic.error)}`);
  else if (nic.value)
    lines.push(
      `  NicClusterPolicy ${nic.value.name}: ${t('state {0}', nic.value.state ?? '?')}, ofedDriver ${nic.value.ofedDriver ? t('set') : t('not set')}`,
    );
  lines.push(`  ${t('GPU nodes: {0}', cluster.nodes.length)}`);
  for (const n of cluster.nodes) {
    const pods = nodeOperatorView(cluster, n.name);
    lines.push(`    ${n.name}: ${pods.driverPod ? driverText(pods.driverPod) : t('no driver pod')}`);
  }
  return `${lines.join('\n')}\n`;
}

function driverText(p: PodView): string {
  const sidecar = p.containers.find((c) => c.name === PEERMEM_CONTAINER);
  return `${p.namespace}/${p.name} (${p.phase})${sidecar ? `; ${containerLine(sidecar)}` : ''}`;
}
