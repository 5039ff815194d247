// A finding's details as a read-only document: the title and its state first, what it means and what to
// do, the quick fix, then the evidence (each line opens the raw output where it was printed), what
// follows from it, and the source last. Plain text: a host's lines are shown, never rendered. The lines
// the code lenses sit on are returned with it. No VS Code import.
import type { Finding } from '../../core/diagnosis';
import { findingLabel } from '../../core/diagnosis/findingLabel';
import type { ProbeReport } from '../../core/probe/runProbe';
import { evidenceLocation, EvidenceLocation } from '../../core/diagnosis/evidenceLocation';
import { t } from '../../core/l10n';

export interface DetailsDocument {
  readonly text: string;
  /** The line that carries the quick fixes' lenses (the state line). */
  readonly fixLine: number;
  /** One per evidence line: the document line, and where in which raw output it was printed. */
  readonly evidence: readonly { readonly line: number; readonly index: number; readonly at: EvidenceLocation | null }[];
}

export interface DetailsContext {
  readonly hostLabel: string;
  /** When the host was diagnosed, in words. */
  readonly when: string;
  /** Raw outputs are looked up here; none for a finding that is not the host's own (an NCCL log comparison). */
  readonly report: ProbeReport | null;
}

export function findingDetailsText(f: Finding, ctx: DetailsContext): DetailsDocument {
  const lines: string[] = [];
  const evidence: DetailsDocument['evidence'][number][] = [];
  lines.push(`${findingLabel(f)} — ${ctx.hostLabel}`, '');
  if (findingLabel(f) !== f.title) lines.push(f.title);
  const fixLine = lines.length;
  lines.push(t('{0} · {1} · diagnosed {2}', severityWord(f.severity), f.id, ctx.when), '');
  lines.push(t('What it means and what to do'), ...indent(f.detail), '');
  if (f.fixes.length > 0)
    lines.push(t('Quick fix'), ...f.fixes.map((id) => `  ${id}`), t('  (the plan is shown before anything runs)'), '');
  if (f.evidence.length > 0) {
    lines.push(ctx.report ? t('Evidence (each line opens the output where it was printed)') : t('Evidence'));
    f.evidence.forEach((e, index) => {
      evidence.push({ line: lines.length, index, at: ctx.report ? evidenceLocation(ctx.report, e) : null });
      lines.push(`  ${e}`);
    });
    lines.push('');
  }
  const following = f.children ?? [];
  if (following.length > 0) {
    lines.push(t('Follows from it (nothing these show can change the answer until it is solved)'));
    for (const c of following) lines.push(`  ${findingLabel(c)} (${c.id}): ${c.title}`);
    lines.push('');
  }
  lines.push(t('Source'), ...indent(f.source), '');
  return { text: lines.join('\n'), fixLine, evidence };
}

function severityWord(s: Finding['severity']): string {
  return s === 'error' ? t('error') : s === 'warning' ? t('warning') : t('info');
}

/** A paragraph indented by two spaces, one line per line it holds (the editor wraps long ones). */
function indent(text: string): string[] {
  return text.split(/\r\n|\r|\n/).map((l) => `  ${l}`);
}
