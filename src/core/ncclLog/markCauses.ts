// One Problems entry per cause, as rust-analyzer shows a compiler error once with the other places it
// involves as related information: the line that shows the cause carries the entry, every other line of
// that cause (the same HCA line on each rank, the connections it left without /GDRDMA) is related
// information of it. The cause that explains the verdict gets the verdict's severity, so Problems shows an
// error exactly when the summary does (nccl-log.no-gdrdma), a warning when only some connections lack GDRDMA.
import { MARK_TEXT } from './editorText';
import type { MarkKind, MarkSeverity, NcclLogMark, NcclLogMarkAt } from './markTypes';
import type { NcclLogSummary } from './types';

/** Related lines kept per entry (a 1,024-rank job repeats each line per rank); the rest are counted. */
export const MAX_RELATED = 100;

/** Which causes can explain missing /GDRDMA, the most telling first: the first present carries the verdict. */
const GDR_CAUSES: readonly MarkKind[] = [
  'no-rdma-device',
  'socket',
  'hca-gdr-disabled',
  'pair-gdr-disabled',
  'env-gdr-off',
  'plugin-gdr-off',
  'rings-gdr-off',
];

/** Groups the located marks of a log (in line order) into one entry per cause. */
export function marksByCause(marks: readonly NcclLogMarkAt[], summary: NcclLogSummary): NcclLogMark[] {
  const groups = new Map<string, NcclLogMarkAt[]>();
  for (const m of marks) {
    const key = causeKey(m);
    const group = groups.get(key);
    if (group) group.push(m);
    else groups.set(key, [m]);
  }
  const entries = [...groups.values()];
  const main = entries.find((g) => GDR_CAUSES.includes(g[0].kind)) ?? entries.find((g) => g[0].kind === 'net-without-gdrdma');
  // The connections left without /GDRDMA are what the main cause led to: its related lines, not entries of their own.
  const consequences = main && main[0].kind !== 'net-without-gdrdma' ? (groups.get('net-without-gdrdma') ?? []) : [];
  return entries
    .filter((g) => !(consequences.length > 0 && g === groups.get('net-without-gdrdma')))
    .map((g) => entry(g, g === main ? [...g.slice(1), ...consequences] : g.slice(1), g === main ? verdictSeverity(summary) : null));
}

function causeKey(m: NcclLogMarkAt): string {
  switch (m.kind) {
    case 'socket':
    case 'no-rdma-device':
      // "No device found" is the cause, "Using network Socket" what NCCL did about it: one entry.
      return 'socket';
    case 'hca-gdr-disabled':
      return `hca:${/\(no module/.test(m.message) ? 'no-module' : 'other'}`;
    case 'warn':
    case 'env-gdr-off':
      return `${m.kind}:${m.message}`;
    default:
      return m.kind;
  }
}

function entry(group: readonly NcclLogMarkAt[], related: readonly NcclLogMarkAt[], severity: MarkSeverity | null): NcclLogMark {
  // "No device found" before "Using network Socket": the line that shows the cause carries the entry.
  const first = group.find((m) => m.kind === 'no-rdma-device') ?? group[0];
  const others = [...group.filter((m) => m !== first && !related.includes(m)), ...related].sort((a, b) => a.line - b.line);
  const kept = others.slice(0, MAX_RELATED).map(({ line, start, end, message }) => ({ line, start, end, message }));
  return {
    ...first,
    severity: severity !== null && rank(severity) > rank(first.severity) ? severity : first.severity,
    message: others.length === 0 ? first.message : MARK_TEXT.withRelated(first.message, others.length),
    related: kept,
    relatedDropped: others.length - kept.length,
  };
}

/** The severity of the summary's verdict finding: error when no network connection used GDRDMA, warning when some did not. */
function verdictSeverity(s: NcclLogSummary): MarkSeverity | null {
  if (s.verdict === 'no-gdr') return 'error';
  return s.verdict === 'mixed' ? 'warning' : null;
}

function rank(s: MarkSeverity): number {
  return { info: 0, warning: 1, error: 2 }[s];
}
