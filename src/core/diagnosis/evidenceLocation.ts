// Where a finding's evidence line comes from: the command that printed it (evidence reads
// `<command>: <line as printed, trimmed>`, evidence.ts) and the line of its raw output, so the details of a
// finding can open that output at that line. Absences (`<command>: (…)`) name the command, no line.
import type { ProbeReport } from '../probe/runProbe';
import type { ProbeCommandId } from '../probe/commands';
import { rawOutputText } from '../probe/rawText';
import { labelOf } from './evidence';

export interface EvidenceLocation {
  readonly commandId: string;
  /** 0-based line of the raw output document; null for an absence or a line not found. */
  readonly line: number | null;
}

export function evidenceLocation(report: ProbeReport, evidence: string): EvidenceLocation | null {
  // The longest label that prefixes the line: `lspci -vvv (as root)` before `lspci`.
  const matches = report.commands
    .map((c) => ({ c, label: labelOf(report, c.id as ProbeCommandId) }))
    .filter(({ label }) => evidence.startsWith(`${label}: `))
    .sort((a, b) => b.label.length - a.label.length);
  const found = matches[0] ?? byCommandLine(report, evidence);
  if (!found) return null;
  const rest = evidence.slice(found.label.length + 2);
  if (/^\(.*\)$/s.test(rest)) return { commandId: found.c.id, line: null };
  const index = rawOutputText(found.c)
    .split(/\r\n|\r|\n/)
    .findIndex((l) => l.trim() === rest);
  return { commandId: found.c.id, line: index >= 0 ? index : null };
}

/**
 * A rule that names the command in its own words (`lspci -vvv (as root): (…)`): the command whose line
 * starts with those words, a parenthesised note left out.
 */
function byCommandLine(report: ProbeReport, evidence: string): { c: ProbeReport['commands'][number]; label: string } | undefined {
  const label = evidence.slice(0, Math.max(0, evidence.indexOf(': ')));
  const words = label.replace(/\s*\([^)]*\)$/, '').trim();
  const c = words === '' ? undefined : report.commands.find((x) => x.command.startsWith(words));
  return c ? { c, label } : undefined;
}
