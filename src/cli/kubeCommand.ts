// `gdr-doctor diagnose --kube`: a Kubernetes cluster's GPU nodes through the user's own kubectl,
// kubeconfig and context (docs/kubernetes.md §1). What the cluster said comes first, then the nodes as a
// fleet (grouped, outliers first); kubectl's own error text when it cannot list the nodes.
import { DEFAULT_FLEET_CONCURRENCY } from '../core/fleet/fanout';
import { diagnoseKubeCluster } from '../core/fleet/kube';
import { clusterJson, formatClusterSummary } from '../core/kube/summary';
import { KubeAccess, KubectlError } from '../core/transport';
import { countOption, secondsOption } from './fleetArgs';
import type { FleetContext } from './fleetCommand';
import { FLEET_INCOMPLETE, FleetProgress, hostProblemLine, printFleet } from './fleetOutput';
import { whileInterruptible } from './interrupt';
import { t } from '../core/l10n';

/** Options only `--kube` takes. */
export const KUBE_OPTIONS = ['--context', '--kubeconfig', '-l', '--selector', '--debug-image', '--kubectl'];

export function kubeAccess(options: ReadonlyMap<string, string>): KubeAccess {
  return { kubectl: options.get('--kubectl'), kubeconfig: options.get('--kubeconfig'), context: options.get('--context') };
}

export async function runKube(nodes: readonly string[], ctx: FleetContext): Promise<number> {
  const { io, options } = ctx;
  const access = kubeAccess(options);
  let progress: FleetProgress | undefined;
  try {
    const { cluster, results } = await whileInterruptible((signal) =>
      diagnoseKubeCluster({
        access,
        nodes,
        selector: options.get('-l') ?? options.get('--selector'),
        debugImage: options.get('--debug-image'),
        concurrency: countOption(options, '--fanout', '-f') ?? DEFAULT_FLEET_CONCURRENCY,
        hostDeadlineMs: secondsOption(options, '--timeout'),
        overallDeadlineMs: secondsOption(options, '--deadline'),
        signal,
        nccl: ctx.nccl,
        onCluster: (c) => (progress = new FleetProgress(c.nodes.length, io, ctx.stderrIsTty)),
        onResult: (r) => {
          const problem = hostProblemLine(r);
          if (problem) progress?.say(problem);
          progress?.hostDone();
        },
      }),
    );
    progress?.end();
    if (cluster.nodes.length === 0)
      io.stderr(`gdr-doctor: ${t('no GPU node in the cluster (label nvidia.com/gpu.present=true or allocatable nvidia.com/gpu)')}\n`);
    const preface = { text: formatClusterSummary(cluster, access.context), json: { cluster: clusterJson(cluster, access.context) } };
    return printFleet(results, io, { ...ctx.print, each: ctx.print.each || results.length === 1, preface });
  } catch (e) {
    progress?.end();
    if (!(e instanceof KubectlError)) throw e;
    io.stderr(`gdr-doctor: kubectl: ${e.message}\n`);
    return FLEET_INCOMPLETE;
  }
}
