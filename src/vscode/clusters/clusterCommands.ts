// The Clusters view's commands: refresh, diagnose a context's GPU nodes or one node (through kubectl:
// core/fleet/kube.ts), and an operator fix for a node (docs/kubernetes.md §3): the exact kubectl command
// shown in a modal first, applied with the user's kubectl only on "Apply", audit-logged, verified by
// the re-diagnosis it brings back. Never a modprobe on such a node.
import * as vscode from 'vscode';
import type { OperatorFixId } from '../../core/diagnosis';
import { appendAuditLine, auditLogPath } from '../../core/fixes/auditLog';
import { OPERATOR_FIX_IDS, planOperatorFix } from '../../core/fixes/operator/plan';
import { diagnoseKubeCluster } from '../../core/fleet/kube';
import { applyOperatorFix, operatorAuditEntry } from '../../core/fleet/kubeFix';
import type { FleetHostResult } from '../../core/fleet/types';
import { readSettings } from '../config';
import type { Ctx } from '../context';
import { notifyInfo, notifyError } from '../notify';
import type { ClusterNode } from './clustersTree';
import { accessFor } from './kubeSettings';

type Target = Extract<ClusterNode, { kind: 'cluster' | 'clusterNode' }>;

const isTarget = (n: unknown): n is Target =>
  typeof n === 'object' && n !== null && ((n as Target).kind === 'cluster' || (n as Target).kind === 'clusterNode');

export async function refreshClustersCommand(ctx: Ctx): Promise<void> {
  ctx.clusters.reset();
}

export async function diagnoseClusterCommand(ctx: Ctx, node?: unknown): Promise<void> {
  if (!isTarget(node)) return;
  await diagnoseNodes(ctx, node.context, node.kind === 'clusterNode' ? [node.node] : undefined);
}

async function diagnoseNodes(ctx: Ctx, context: string, nodes?: string[]): Promise<void> {
  const settings = ctx.clusters.settings();
  const state = ctx.clusters.state(context);
  const names = nodes ?? (state.kind === 'read' ? state.cluster.nodes.map((n) => n.name) : []);
  const ids = names.map((n) => ctx.model.kubeHost(context, n).id);
  for (const id of ids) ctx.model.setWorking(id, true);
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Diagnosing {0} through kubectl…', context),
        cancellable: true,
      },
      async (_p, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        const { results } = await diagnoseKubeCluster({
          access: accessFor(settings, context),
          nodes,
          debugImage: settings.debugImage,
          concurrency: readSettings().maxConcurrentHosts,
          signal: abort.signal,
          nccl: readSettings().nccl,
        });
        for (const r of results) record(ctx, context, r);
      },
    );
  } catch (e) {
    for (const id of ids)
      ctx.model.setOutcome(id, { kind: 'failed', step: 'kubectl', message: (e as Error).message, finishedAt: new Date() });
    void notifyError(vscode.l10n.t('kubectl: {0}', (e as Error).message));
  }
}

function record(ctx: Ctx, context: string, r: FleetHostResult): void {
  const id = ctx.model.kubeHost(context, r.host).id;
  if (r.report && r.diagnosis)
    ctx.model.setOutcome(id, { kind: 'diagnosed', report: r.report, diagnosis: r.diagnosis, finishedAt: new Date() });
  else
    ctx.model.setOutcome(id, {
      kind: 'failed',
      step: r.error?.step ?? r.status,
      message: r.error?.message ?? r.status,
      finishedAt: new Date(),
    });
}

export async function fixClusterNodeCommand(ctx: Ctx, node?: unknown): Promise<void> {
  if (!isTarget(node) || node.kind !== 'clusterNode') return;
  const host = ctx.model.kubeHost(node.context, node.node);
  const findings = ctx.model.status(host.id).lastDiagnosed?.diagnosis.findings ?? [];
  const offered = OPERATOR_FIX_IDS.filter((f) => findings.some((x) => x.fixes.includes(f)));
  const fixId: OperatorFixId | undefined =
    offered.length <= 1
      ? offered[0]
      : ((await vscode.window.showQuickPick(offered, { title: vscode.l10n.t('Which operator fix?') })) as OperatorFixId | undefined);
  if (!fixId) return;
  const access = accessFor(ctx.clusters.settings(), node.context);
  const state = await ctx.clusters.read(node.context);
  if (state.kind !== 'read') return void notifyError(vscode.l10n.t('kubectl: {0}', state.kind === 'failed' ? state.message : ''));
  const plan = planOperatorFix(fixId, node.node, state.cluster, access);
  if (plan.status !== 'ready') return void notifyInfo(vscode.l10n.t('{0} on {1}: {2}', fixId, node.node, plan.reason));
  const apply = vscode.l10n.t('Apply');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('Operator fix {0} on {1}', fixId, node.node),
    {
      modal: true,
      detail: [
        vscode.l10n.t('Runs (with your kubectl and credentials):'),
        plan.commandLine,
        '',
        vscode.l10n.t('Expected: {0}', plan.effect),
        vscode.l10n.t('Verified: {0}', plan.verification),
      ].join('\n'),
    },
    apply,
  );
  if (answer !== apply) return;
  ctx.model.setWorking(host.id, true);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Applying {0} on {1}…', fixId, node.node) },
    () => applyOperatorFix(plan, { access, nccl: readSettings().nccl }),
  );
  try {
    appendAuditLine(operatorAuditEntry(result, access), auditLogPath());
  } catch (e) {
    ctx.log.error(`audit log: ${(e as Error).message}`);
  }
  if (result.after) record(ctx, node.context, result.after);
  else ctx.model.setWorking(host.id, false);
  void ctx.clusters.read(node.context);
  const text = vscode.l10n.t('{0} on {1}: {2}. {3}', fixId, node.node, result.status, result.verification.join(' '));
  void (result.status === 'applied' ? notifyInfo(text) : notifyError(text));
}
