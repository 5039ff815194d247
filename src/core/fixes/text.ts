// Fix plans and results as text for a person: the CLI prints them, the extension can show them.
// A plan shows every command exactly as it will be sent and the file diff, before anything runs.
import { Finding } from '../diagnosis';
import { FixPlan, FixResult } from './types';

const STATUS_WORDS: Record<FixPlan['status'], string> = { ready: 'plan', 'nothing-to-do': 'nothing to do', refused: 'refused' };

function indent(text: string, by: string): string {
  return text.split('\n').map((l) => (l === '' ? l : `${by}${l}`)).join('\n');
}

function findingLines(findings: readonly Finding[]): string[] {
  return findings.flatMap((f) => [`  ${f.severity} ${f.id}: ${f.title}`, indent(f.detail, '    '), ...f.evidence.map((e) => `    evidence: ${e}`)]);
}

/** After the status of a plan or result made on the demo host (src/core/demo). */
export const SIMULATED_WORDS = 'SIMULATED on the demo host: nothing runs on any machine';

export function formatPlan(plan: FixPlan): string {
  const head = `${plan.host}: ${plan.fixId}${plan.module ? ` (${plan.module})` : ''}: ${STATUS_WORDS[plan.status]}${plan.simulated ? ` (${SIMULATED_WORDS})` : ''}`;
  const lines = [head, indent(plan.summary, '  ')];
  if (plan.steps.length > 0) {
    lines.push('  Commands, in this order (each stops the fix if it fails):');
    plan.steps.forEach((s, i) => {
      lines.push(`    ${i + 1}. ${s.title}`);
      lines.push(indent(`$ ${s.command}`, '       '));
    });
  }
  if (plan.fileChange) {
    lines.push(`  File ${plan.fileChange.path}${plan.fileChange.before === null ? ' (new)' : ''}:`);
    lines.push(indent(plan.fileChange.diff.replace(/\n$/, ''), '    '));
  }
  if (plan.notes.length > 0) lines.push('  Notes:', ...plan.notes.map((n) => `    - ${n}`));
  if (plan.findings.length > 0) lines.push('  Why:', ...findingLines(plan.findings));
  return lines.join('\n');
}

const RESULT_WORDS: Record<FixResult['status'], string> = { applied: 'applied', 'nothing-to-do': 'nothing to do', refused: 'refused', failed: 'FAILED' };

export function formatResult(result: FixResult): string {
  const simulated = result.plan.simulated ? ` (${SIMULATED_WORDS})` : '';
  const lines = [`${result.host}: ${result.fixId} ${RESULT_WORDS[result.status]}${simulated}: ${result.message.split('\n')[0]}`];
  const rest = result.message.split('\n').slice(1);
  if (rest.length > 0) lines.push(indent(rest.join('\n'), '    '));
  for (const s of result.steps) lines.push(`  ran: ${s.title}: ${s.exitCode === null ? 'no exit status' : `exit ${s.exitCode}`}`);
  for (const v of result.verification) lines.push(`  checked: ${v}`);
  if (result.findings.length > 0) lines.push('  Found:', ...findingLines(result.findings));
  return lines.join('\n');
}
