// Findings as the CLI prints them, errors first, each with its evidence, fixes and source. In core
// because the editor's NCCL log summary shows the very text `gdr-doctor nccl-log` prints.
import type { Finding } from '../diagnosis/finding';
import { t } from '../l10n';

const MARK = { error: 'ERROR', warning: 'WARN ', info: 'info ' } as const;

export function formatFindings(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return [`  ${t('findings: none')}`];
  return [`  ${t('findings:')}`, ...findings.flatMap((f) => findingLines(f, '    '))];
}

/** One finding, then its knock-ons under it (they follow from it: diagnosis/knockOn.ts), each as its title and evidence. */
function findingLines(f: Finding, indent: string): string[] {
  const body = `${indent}      `;
  const lines = [`${indent}${MARK[f.severity]} ${f.id}: ${f.title}`, `${body}${f.detail}`, ...evidenceLines(f, body)];
  if (f.fixes.length > 0) lines.push(`${body}${t('fix: {0}', f.fixes.map((id) => `gdr-doctor fix <host> ${id}`).join(' ; '))}`);
  lines.push(`${body}${t('source: {0}', f.source)}`);
  const children = f.children ?? [];
  if (children.length === 0) return lines;
  lines.push(`${body}${children.length === 1
    ? t('1 more finding following from this one (nothing they show can change the answer until it is solved):')
    : t('{0} more findings following from this one (nothing they show can change the answer until it is solved):', children.length)}`);
  for (const c of children) lines.push(`${body}  ${MARK[c.severity]} ${c.id}: ${c.title}`, ...evidenceLines(c, `${body}        `));
  return lines;
}

function evidenceLines(f: Finding, indent: string): string[] {
  return f.evidence.map((e) => `${indent}> ${e.replace(/\t+/g, ' ')}`);
}
