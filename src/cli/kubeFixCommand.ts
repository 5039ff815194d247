// `gdr-doctor fix --kube <node> <enable-rdma|restart-driver-pod>`: the operator-correct fix for a
// Kubernetes node (docs/kubernetes.md §3): the cluster read, the plan shown exactly, applied with the
// user's kubectl and credentials only on a yes, audit-logged, then verified by watching the driver pod
// and re-diagnosing the node.
import { applyOperatorFix, operatorAuditEntry } from '../core/fleet/kubeFix';
import { formatOperatorPlan, isOperatorFixId, OPERATOR_FIX_IDS, planOperatorFix } from '../core/fixes/operator/plan';
import { appendAuditLine, auditLogPath } from '../core/fixes/auditLog';
import { readCluster } from '../core/kube/cluster';
import { KubectlError } from '../core/transport';
import { UsageError } from './args';
import { confirmOnTerminal } from './confirm';
import { secondsOption } from './fleetArgs';
import { CliIo, ExitCode } from './io';
import { kubeAccess } from './kubeCommand';
import { formatProbeReport } from './diagnoseReport';
import { jsonText } from './visible';
import { errorText } from '../core/errorText';
import { t } from '../core/l10n';

const Exit = { failed: 1, unreachable: 3, refused: 4 } as const;

export interface KubeFixFlags {
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly json: boolean;
  readonly canAsk: boolean;
}

export async function runKubeFix(
  positional: readonly string[],
  options: ReadonlyMap<string, string>,
  flags: KubeFixFlags,
  io: CliIo,
): Promise<number> {
  const [node, fixId, ...extra] = positional;
  if (node === undefined || fixId === undefined || extra.length > 0 || !isOperatorFixId(fixId))
    throw new UsageError(t('with --kube: give one node and one of {0}', OPERATOR_FIX_IDS.join(t(' or '))));
  const waitMs = secondsOption(options, '--wait');
  const access = kubeAccess(options);
  const cluster = await readCluster(access, { nodes: [node] }).catch((e: unknown) => e as Error);
  if (cluster instanceof Error) {
    io.stderr(`gdr-doctor: kubectl: ${cluster instanceof KubectlError ? cluster.message : errorText(cluster)}\n`);
    return Exit.unreachable;
  }
  const plan = planOperatorFix(fixId, node, cluster, access);
  if (flags.dryRun || plan.status !== 'ready') {
    io.stdout(flags.json ? jsonText({ plan, result: null }) : formatOperatorPlan(plan));
    return plan.status === 'refused' ? Exit.refused : ExitCode.ok;
  }
  (flags.json ? io.stderr : io.stdout)(formatOperatorPlan(plan));
  if (!flags.yes && !(flags.canAsk && (await confirmOnTerminal(t('Apply this to the cluster? [y/N] '))))) {
    io.stderr(`${t('Not applied: nothing was changed.')}\n`);
    return Exit.failed;
  }
  const result = await applyOperatorFix(plan, { access, waitMs });
  try {
    io.stderr(`gdr-doctor: ${t('recorded in {0}', appendAuditLine(operatorAuditEntry(result, access), auditLogPath()))}\n`);
  } catch (e) {
    io.stderr(`gdr-doctor: ${t('could not append to the audit log: {0}', errorText(e))}\n`);
  }
  if (flags.json) io.stdout(jsonText({ plan, result: { ...result, after: undefined } }));
  else {
    io.stdout(`${t('Result: {0}', result.status)}\n${result.verification.map((l) => `  ${l}\n`).join('')}`);
    if (result.after?.report && result.after.diagnosis) io.stdout(`\n${formatProbeReport(result.after.report, result.after.diagnosis)}\n`);
  }
  return result.status === 'applied' ? ExitCode.ok : Exit.failed;
}
