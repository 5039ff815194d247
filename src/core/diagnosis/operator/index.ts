// A Kubernetes node's diagnosis: the host's findings (the probe, as over SSH) with the operators'
// beside them (docs/kubernetes.md §2). Where a GPU Operator driver pod runs, the host's own module
// fixes are withheld as on any operator-managed host: the operator owns the modules (docs/kubernetes.md §3).
import type { ProbeReport } from '../../probe/runProbe';
import { ruleContext } from '../context';
import { Finding, sortFindings } from '../finding';
import type { Diagnosis, NcclAssumptions } from '../index';
import { OperatorInput } from './input';
import { hostMofedFindings, mofedNotReadyFindings } from './mofed';
import { peermemCrashFindings, rdmaDisabledFindings } from './rules';
import { moduleTypeFindings, noDriverPodFindings, unreadFindings, validatorFindings } from './state';
import { t } from '../../l10n';

export type { OperatorInput, Readable } from './input';

const HOST_FIXES = new Set(['load-peermem', 'persist-peermem']);

export function operatorFindings(report: ProbeReport, input: OperatorInput, nccl?: NcclAssumptions): Finding[] {
  const ctx = ruleContext(report, nccl);
  const unread = [
    ...(input.policy.ok ? [] : [{ what: 'clusterpolicies.nvidia.com', error: input.policy.error }]),
    ...(input.nicPolicy.ok ? [] : [{ what: 'nicclusterpolicies.mellanox.com', error: input.nicPolicy.error }]),
    ...input.unreadPods.map((u) => ({ what: `pods (${u.what})`, error: u.error })),
  ];
  return [
    ...rdmaDisabledFindings(ctx, input),
    ...peermemCrashFindings(input),
    ...mofedNotReadyFindings(input),
    ...hostMofedFindings(ctx, input),
    ...validatorFindings(input),
    ...noDriverPodFindings(input),
    ...moduleTypeFindings(ctx, input),
    ...unreadFindings(input, unread),
  ];
}

/** The host's diagnosis with the operators' findings added (errors first again). */
export function withOperator(diagnosis: Diagnosis, report: ProbeReport, input: OperatorInput, nccl?: NcclAssumptions): Diagnosis {
  const managed = input.pods.driverPod !== undefined;
  const host = managed ? diagnosis.findings.map(withoutHostFixes) : diagnosis.findings;
  return { ...diagnosis, findings: sortFindings([...host, ...operatorFindings(report, input, nccl)]) };
}

function withoutHostFixes(f: Finding): Finding {
  const fixes = f.fixes.filter((x) => !HOST_FIXES.has(x));
  if (fixes.length === f.fixes.length) return f;
  return { ...f, fixes, detail: `${f.detail} ${t('(Quick fix withheld: the GPU Operator owns the driver on this node.)')}` };
}
