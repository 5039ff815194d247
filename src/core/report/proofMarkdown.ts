// A GPUDirect RDMA proof (docs/perftest.md) as a section of the Markdown report: one table row per
// GPU and mode (Gb/s, line rate, ratio, or why not) and each GPU's verdict. perftest's error lines
// are the host's words: they only land inside code spans or escaped cells, never as Markdown.
import type { GpuProof, ModeOutcome, ProofReport } from '../prove/types';
import { pct } from '../prove/verdict';
import { cell, inlineCode, plain } from './diagnosisReport';
import { t } from '../l10n';

/** The diagnosis report with the host's last proof after it (unchanged without one). */
export function withProof(markdown: string, proof: ProofReport | undefined): string {
  return proof ? `${markdown}\n${proofMarkdown(proof).join('\n').trimEnd()}\n` : markdown;
}

export function proofMarkdown(proof: ProofReport): string[] {
  const between = proof.peer
    ? t(' between {0} and {1}', inlineCode(proof.host), inlineCode(proof.peer))
    : t(' on {0}', inlineCode(proof.host));
  const via = proof.via ? t(' through {0}', inlineCode(proof.via)) : '';
  const head = [
    `## ${t('GPUDirect RDMA proof (ib_write_bw)')}`,
    '',
    t(
      'Measured{0}{1} at {2}: {3} s per mode, {4} bytes per message ({5}).',
      between,
      via,
      plain(proof.startedAt),
      proof.options.durationS,
      proof.options.sizeBytes,
      proof.status,
    ),
    '',
  ];
  if (proof.status === 'refused') return [...head, t('Nothing was run:'), '', ...proof.refusals.map((r) => `- ${inlineCode(r)}`), ''];
  const rows = proof.gpus.flatMap((g) => g.modes.map((m) => modeRow(g, m)));
  return [
    ...head,
    `| ${['GPU', t('NIC port'), t('Mode'), 'Gb/s', t('Line rate'), t('Ratio'), t('Why not')].join(' | ')} |`,
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...proof.gpus.flatMap((g) => [`- ${inlineCode(g.gpu)}: ${inlineCode(g.verdict)}${g.notes.map((n) => ` (${inlineCode(n)})`).join('')}`]),
    ...proof.skipped.map((s) => `- ${t('skipped: {0}', inlineCode(s))}`),
    '',
  ];
}

function modeRow(g: GpuProof, m: ModeOutcome): string {
  const ok = m.status === 'ok';
  const why = ok ? '' : [m.status, m.reason, ...m.explainedBy].filter((x): x is string => !!x).join('; ');
  const ratio = m.ratio === null ? '' : pct(m.ratio);
  const whyCell = why ? inlineCode(why).replace(/\|/g, '\\|') : '';
  return `| ${cell(g.gpu)} | ${cell(`${g.client.device}:${g.client.port}`)} | ${m.mode} | ${m.gbps ?? ''} | ${m.lineRateGbps ?? ''} | ${ratio} | ${whyCell} |`;
}
