// An operator fix applied and verified (docs/kubernetes.md §3): the planned kubectl argv run once with
// the user's credentials, then the node watched until its driver pod runs with the peermem sidecar
// Running (bounded: `waitMs`), then the node re-diagnosed through its new driver pod and nvidia_peermem
// checked live in its lsmod. The plan and result go to the audit log the caller keeps.
import * as os from 'node:os';
import { factOf } from '../diagnosis/evidence';
import { findModule } from '../parsers/lsmod';
import type { OperatorPlan } from '../fixes/operator/plan';
import { nodeOperatorView, PEERMEM_CONTAINER, readCluster } from '../kube/cluster';
import { KubeAccess, kubectlErrorText, runKubectl } from '../transport';
import { diagnoseKubeCluster } from './kube';
import type { FleetHostResult } from './types';
import type { NcclAssumptions } from '../diagnosis';
import { t } from '../l10n';

export interface OperatorFixResult {
  readonly plan: OperatorPlan;
  /** applied: ran and verified; not-verified: ran, the node did not come back as expected in time; failed: kubectl failed. */
  readonly status: 'applied' | 'not-verified' | 'failed';
  readonly step: { readonly command: string; readonly exitCode: number | null; readonly stdout: string; readonly stderr: string };
  readonly verification: string[];
  /** The node re-diagnosed after the fix, when it got that far. */
  readonly after?: FleetHostResult;
}

export interface ApplyOperatorFixOptions {
  readonly access: KubeAccess;
  /** How long to wait for the driver pod and its sidecar; default 180 s. */
  readonly waitMs?: number;
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
  readonly nccl?: NcclAssumptions;
}

export async function applyOperatorFix(plan: OperatorPlan, options: ApplyOperatorFixOptions): Promise<OperatorFixResult> {
  const run = await runKubectl(options.access, plan.args, { signal: options.signal }).catch((e: Error) => ({
    code: null,
    stdout: Buffer.alloc(0),
    stderr: e.message,
    timedOut: false,
  }));
  const step = { command: plan.commandLine, exitCode: run.code, stdout: run.stdout.toString('utf8'), stderr: run.stderr };
  if (run.code !== 0) return { plan, status: 'failed', step, verification: [kubectlErrorText(run.stderr, run.code)] };
  const ready = await waitForSidecar(plan, options);
  if (!ready.ok) return { plan, status: 'not-verified', step, verification: ready.lines };
  const { results } = await diagnoseKubeCluster({ access: options.access, nodes: [plan.node], signal: options.signal, nccl: options.nccl });
  const after = results[0];
  const lsmod = after?.report ? factOf(after.report, 'lsmod') : undefined;
  const live = lsmod ? findModule(lsmod, 'nvidia_peermem') !== undefined : undefined;
  const lines = [
    ...ready.lines,
    live ? t('{0}: nvidia_peermem is live (lsmod)', plan.node) : t('{0}: nvidia_peermem is not in lsmod after the fix', plan.node),
  ];
  return { plan, status: live ? 'applied' : 'not-verified', step, verification: lines, after };
}

/** Polls the node's operator pods until a driver pod (not the one deleted) runs with its peermem sidecar Running. */
async function waitForSidecar(plan: OperatorPlan, options: ApplyOperatorFixOptions): Promise<{ ok: boolean; lines: string[] }> {
  const until = Date.now() + (options.waitMs ?? 180_000);
  let last = '';
  for (;;) {
    const cluster = await readCluster(options.access, { nodes: [plan.node], signal: options.signal }).catch((e: Error) => e);
    if (cluster instanceof Error) last = cluster.message;
    else {
      const pod = nodeOperatorView(cluster, plan.node).driverPod;
      const sidecar = pod?.containers.find((c) => c.name === PEERMEM_CONTAINER);
      const fresh = plan.fixId !== 'restart-driver-pod' || pod?.name !== plan.driverPod;
      if (pod && fresh && pod.phase === 'Running' && sidecar?.state === 'running' && sidecar.ready)
        return { ok: true, lines: [t('{0}: driver pod {1} Running, {2} Running', plan.node, pod.name, PEERMEM_CONTAINER)] };
      last = pod
        ? t(
            'driver pod {0}: {1}, {2} {3}',
            pod.name,
            pod.phase,
            PEERMEM_CONTAINER,
            sidecar ? `${sidecar.state}${sidecar.reason ? ` ${sidecar.reason}` : ''}` : t('absent'),
          )
        : t('no driver pod yet');
    }
    if (Date.now() >= until || options.signal?.aborted)
      return {
        ok: false,
        lines: [t('{0}: not ready within {1} s; last seen: {2}', plan.node, Math.round((options.waitMs ?? 180_000) / 1000), last)],
      };
    await new Promise((r) => setTimeout(r, options.pollMs ?? 2000));
  }
}

/** The audit log's line for an operator fix (never a credential: kubectl held those). */
export function operatorAuditEntry(result: OperatorFixResult, access: KubeAccess, now: Date = new Date()) {
  return {
    time: now.toISOString(),
    host: result.plan.node,
    user: os.userInfo().username,
    fix: result.plan.fixId,
    via: 'kubectl',
    context: access.context ?? null,
    kubeconfig: access.kubeconfig ?? null,
    status: result.status,
    commands: [result.step],
    verification: result.verification,
  };
}
