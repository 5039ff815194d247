// The human-readable report of one host: what ran, what failed, what was parsed; then the findings
// (errors first, with evidence and fixes), the GPU↔NIC verdicts and the suggested job environment.
import { Diagnosis, diagnose, missingText, pathLabel, shortVerdict } from '../core/diagnosis';
import { formatFindings } from '../core/report/findingsText';
import { shellAssignment } from '../core/shellText';
import { ProbeReport } from '../core/probe/runProbe';
import { commandStatus, unreadableOutput } from '../core/probe/commandStatus';
import { t } from '../core/l10n';

export function formatProbeReport(report: ProbeReport, diagnosis: Diagnosis = diagnose(report)): string {
  const lines = [`${report.host} — ${t('collected {0} in {1} ms', report.collectedAt, report.durationMs)}`];
  if (report.connectionLost) lines.push(`  ${t('connection lost: the sections below are what arrived')}`);
  if (report.timedOut) lines.push(`  ${t('the probe hit its deadline: commands still running were stopped')}`);
  for (const c of report.commands) {
    const unreadable = unreadableOutput(report, c);
    const parse = unreadable ? `  (${unreadable})` : '';
    // Multi-line commands (the sysfs read) on one line, as the column shows only their start.
    const oneLine = c.command.replace(/\s*\n\s*/g, '; ');
    const command = oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine;
    lines.push(`  ${commandStatus(c).padEnd(10)} ${c.id.padEnd(22)} ${command}${parse}`);
  }
  lines.push(...formatPairs(diagnosis), ...formatFindings(diagnosis.findings), ...formatEnv(diagnosis));
  // A note may hold several lines (the runner's stderr): each its own `note:` line.
  for (const note of report.notes.flatMap((n) => n.split('\n'))) lines.push(`  ${t('note: {0}', note)}`);
  return lines.join('\n');
}

function formatPairs({ pairs, nccl }: Diagnosis): string[] {
  if (pairs.length === 0) return [];
  const source =
    nccl.topologySource === 'topo-file' && nccl.topologyFile
      ? t('topology from {0}, which NCCL loads instead of sysfs', nccl.topologyFile.path)
      : nccl.topologySource === 'sysfs'
        ? t('topology from sysfs, as NCCL reads it')
        : t('topology from nvidia-smi topo -m');
  // Where topo -m was not read, the distances beside each NIC come from the PCI tree: say so once, and `, derived` on each.
  const derived = pairs.some((p) => p.linkDerived) ? t('; distances derived from the sysfs PCI tree, nvidia-smi topo -m not read') : '';
  const env = Object.entries(nccl.env)
    .map(([k, v]) => `${k}=${JSON.stringify(v).slice(1, -1)}${envOrigin(nccl.envFrom[k])}`)
    .join(' ');
  const job = nccl.jobGpus === null ? t('a job on every GPU') : t('a job on GPU {0}', nccl.jobGpus.join(', '));
  const basis = `${source + derived}; ${job}`;
  const heading = env
    ? t('GPU↔NIC verdicts for NCCL {0} with {1} ({2}; --nccl VERSION for your release):', nccl.assumed, env, basis)
    : t('GPU↔NIC verdicts for NCCL {0} ({1}; --nccl VERSION for your release):', nccl.assumed, basis);
  const lines = [`  ${heading}`];
  for (const p of pairs) {
    const nics = p.nics.map((n) => (n.port === null ? (n.device ?? n.nic) : `${n.device ?? n.nic}:${n.port}`));
    const shown = nics.length > 3 ? `${nics.slice(0, 3).join(', ')} +${nics.length - 3}` : nics.join(', ') || t('none');
    const pin = p.numaNode !== null || p.cpus !== null ? ` — ${t('NUMA {0}, CPUs {1}', p.numaNode ?? '?', p.cpus ?? '?')}` : '';
    lines.push(`    ${p.gpu}: ${shown} (${pathLabel(p)})${pin} — ${shortVerdict(p)}`, `          ${p.reason}`);
    if (p.missing.length > 0) lines.push(`          ${missingText(p)}`);
    lines.push(`          ${p.confirm}`);
  }
  for (const problem of nccl.envProblems) lines.push(`    ${t('note: {0}', problem)}`);
  if (nccl.sysfsMissing) lines.push(`    ${t('note: the sysfs PCI tree was read but not used: {0}', nccl.sysfsMissing)}`);
  return lines;
}

/** ` (/etc/nccl.conf:3)` for a value a host file set; nothing for the job's own. */
function envOrigin(origin: Diagnosis['nccl']['envFrom'][string] | undefined): string {
  return origin && origin.from !== 'environment' ? ` (${origin.from}${origin.line === null ? '' : `:${origin.line}`})` : '';
}

function formatEnv({ suggestedEnv }: Diagnosis): string[] {
  const vars = Object.entries(suggestedEnv.env);
  if (vars.length === 0) return [];
  return [
    `  ${t('suggested environment (a suggestion: measure with nccl-tests):')}`,
    ...vars.map(([k, v]) => `    ${shellAssignment(k, v)}`),
    ...suggestedEnv.notes.map((n) => `    # ${n}`),
  ];
}
