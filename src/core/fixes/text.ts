// Fix plans and results as text for a person: the CLI prints them, the extension can show them.
// A plan shows every command exactly as it will be sent and the file diff, before anything runs.
import { Finding } from '../diagnosis';
import { holderText } from './holders';
import { FixPlan, FixResult } from './types';
import { t } from '../l10n';

const statusWords = (status: FixPlan['status']): string =>
  ({ ready: t('plan'), 'nothing-to-do': t('nothing to do'), refused: t('refused') })[status];

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : `${by}${l}`))
    .join('\n');
}

function findingLines(findings: readonly Finding[]): string[] {
  return findings.flatMap((f) => [
    `  ${f.severity} ${f.id}: ${f.title}`,
    indent(f.detail, '    '),
    ...f.evidence.map((e) => `    ${t('evidence: {0}', e)}`),
  ]);
}

/** After the status of a plan or result made on the demo host (src/core/fixes/demo). */
export const simulatedWords = (): string => t('SIMULATED on the demo host: nothing runs on any machine');

export function formatPlan(plan: FixPlan): string {
  const moduleName = plan.module ? ` (${plan.module})` : '';
  const simulated = plan.simulated ? ` (${simulatedWords()})` : '';
  const head = `${plan.host}: ${plan.fixId}${moduleName}: ${statusWords(plan.status)}${simulated}`;
  const lines = [head, indent(plan.summary, '  ')];
  if (plan.steps.length > 0) {
    lines.push(`  ${t('Commands, in this order (each stops the fix if it fails):')}`);
    plan.steps.forEach((s, i) => {
      lines.push(`    ${i + 1}. ${s.title}`);
      lines.push(indent(`$ ${s.command}`, '       '));
    });
  }
  for (const change of [plan.fileChange, ...(plan.otherFileChanges ?? [])]) {
    if (!change) continue;
    lines.push(`  ${change.before === null ? t('File {0} (new):', change.path) : t('File {0}:', change.path)}`);
    lines.push(indent(change.diff.replace(/\n$/, ''), '    '));
  }
  if (plan.notes.length > 0) lines.push(`  ${t('Notes:')}`, ...plan.notes.map((n) => `    - ${n}`));
  if (plan.findings.length > 0) lines.push(`  ${t('Why:')}`, ...findingLines(plan.findings));
  return lines.join('\n');
}

const resultWords = (status: FixResult['status']): string =>
  ({ applied: t('applied'), 'nothing-to-do': t('nothing to do'), refused: t('refused'), failed: t('FAILED') })[status];

export function formatResult(result: FixResult): string {
  const simulated = result.plan.simulated ? ` (${simulatedWords()})` : '';
  const lines = [`${result.host}: ${result.fixId} ${resultWords(result.status)}${simulated}: ${result.message.split('\n')[0]}`];
  const rest = result.message.split('\n').slice(1);
  if (rest.length > 0) lines.push(indent(rest.join('\n'), '    '));
  for (const s of result.steps)
    lines.push(`  ${t('ran: {0}: {1}', s.title, s.exitCode === null ? t('no exit status') : `exit ${s.exitCode}`)}`);
  for (const v of result.verification) lines.push(`  ${t('checked: {0}', v)}`);
  for (const h of result.holders ?? []) lines.push(`  ${t('holds a device: {0}', holderText(h))}`);
  if (result.findings.length > 0) lines.push(`  ${t('Found:')}`, ...findingLines(result.findings));
  return lines.join('\n');
}
