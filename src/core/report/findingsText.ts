// Findings as the CLI prints them, errors first, each with its evidence, fixes and source. In core
// because the editor's NCCL log summary shows the very text `gdr-doctor nccl-log` prints.
import type { Finding } from '../diagnosis/finding';

const MARK = { error: 'ERROR', warning: 'WARN ', info: 'info ' } as const;

export function formatFindings(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return ['  findings: none'];
  const lines = ['  findings:'];
  for (const f of findings) {
    lines.push(`    ${MARK[f.severity]} ${f.id}: ${f.title}`);
    lines.push(`          ${f.detail}`);
    for (const e of f.evidence) lines.push(`          > ${e.replace(/\t+/g, ' ')}`);
    if (f.fixes.length > 0) lines.push(`          fix: ${f.fixes.map((id) => `gdr-doctor fix <host> ${id}`).join(' ; ')}`);
    lines.push(`          source: ${f.source}`);
  }
  return lines;
}
