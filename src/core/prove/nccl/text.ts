// A proof with NCCL as text (the CLI, the extension's log and report) and in the audit log: the verdict
// first, then the bus bandwidth table, what the NICs allow per node and the rule, GPUDirect RDMA per
// node as NCCL's log shows it against the prediction, and the findings that explain what is wrong.
import { appendAuditLine, auditLogPath } from '../../fixes/auditLog';
import { summarizeNcclTests } from '../../ncclTests/summaryText';
import { VERDICT_TEXT } from '../../ncclTests/verdictText';
import type { NcclProofReport } from './types';
import { t } from '../../l10n';

function heading(r: NcclProofReport): string {
  const how =
    r.options.launcher === 'slurm'
      ? t('srun through {0}', r.via ?? '?')
      : r.via
        ? t('mpirun on {0}', r.via)
        : t('mpirun on {0}', r.nodes[0]);
  return t('NCCL proof: {0} on {1} ({2} per node, {3})', `${r.options.op}_perf`, r.nodes.join(', '), r.gpusPerNode ?? '?', how);
}

function gdrLines(r: NcclProofReport): string[] {
  const gdr = r.verdict?.gdr;
  if (!gdr) return [];
  const lines = gdr.comparisons.flatMap((c) =>
    c.gpus.map(
      (g) =>
        `  ${c.host} ${g.gpu}: ${t('predicted {0}; NCCL: {1}', g.predicted, g.observed)}${g.gdrAgrees === false ? ` ${t('(differs)')}` : ''}`,
    ),
  );
  for (const host of gdr.notInLog) lines.push(`  ${t("{0}: not in NCCL's log (no line names it)", host)}`);
  return lines;
}

function ceilingLines(r: NcclProofReport): string[] {
  const c = r.verdict?.bandwidth.ceiling;
  if (!c) return [];
  const nodes = c.nodes.map((n) => {
    const ports = n.ports.map((p) => `${p.port} ${p.gbps === null ? '?' : p.gbps} Gb/s`).join(', ') || t('no RDMA port for its GPUs');
    return `  ${n.host}: ${ports} → ${n.gigabytesPerSecond === null ? '?' : n.gigabytesPerSecond} GB/s`;
  });
  return [t('What the NICs allow:'), ...nodes, `  ${VERDICT_TEXT.rule}`];
}

export function formatNcclProof(r: NcclProofReport): string {
  const lines = [heading(r), ''];
  if (r.status === 'refused') return `${[...lines, t('Nothing was run:'), ...r.refusals.map((x) => `  - ${x}`)].join('\n')}\n`;
  if (r.verdict) lines.push(r.verdict.verdict, '');
  if (r.command) lines.push(`${t('Ran:')} ${r.command}`, '');
  if (r.result) lines.push(summarizeNcclTests(r.result), '');
  lines.push(...ceilingLines(r));
  const gdr = gdrLines(r);
  if (gdr.length > 0) lines.push('', t("GPUDirect RDMA per GPU (NCCL's log against diagnose's prediction):"), ...gdr);
  if (r.verdict && r.verdict.explainedBy.length > 0) lines.push('', t('Explained by:'), ...r.verdict.explainedBy.map((e) => `  - ${e}`));
  if (r.status === 'cancelled') lines.push('', t('Cancelled: the run was stopped on every node; what had arrived is shown.'));
  if (r.status === 'timed-out')
    lines.push('', t('The run reached its deadline ({0} s) and was stopped on every node.', r.options.timeoutS));
  if (r.status === 'failed')
    lines.push('', t('The run gave no result (launcher exit {0}). Its last output:', r.launcherExitCode ?? '?'), r.outputTail ?? '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Appends the run when something ran; returns the log's path, or null (refused). */
export function appendNcclProofAudit(
  r: NcclProofReport,
  user: string | null,
  logPath: string = auditLogPath(),
  now = new Date(),
): string | null {
  if (r.command === null || r.status === 'refused') return null;
  return appendAuditLine(
    {
      time: now.toISOString(),
      kind: 'prove-nccl',
      nodes: r.nodes,
      via: r.via,
      user,
      status: r.status,
      command: r.command,
      launcherExitCode: r.launcherExitCode,
      gpusPerNode: r.gpusPerNode,
      busbw: r.verdict?.bandwidth.busbw ?? null,
      size: r.verdict?.bandwidth.size ?? null,
      possibleGBps: r.verdict?.bandwidth.ceiling.gigabytesPerSecond ?? null,
      gdr: r.verdict?.gdr ? { gpus: r.verdict.gdr.gpus, gdr: r.verdict.gdr.gdr, asPredicted: r.verdict.gdr.asPredicted } : null,
      verdict: r.verdict?.verdict ?? null,
    },
    logPath,
  );
}
