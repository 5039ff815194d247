// A GPUDirect RDMA proof (docs/perftest.md) as a section of the Markdown report: one table row per
// GPU and mode (Gb/s, line rate, ratio, or why not) and each GPU's verdict. perftest's error lines
// are the host's words: they only land inside code spans or escaped cells, never as Markdown.
import type { GpuProof, ModeOutcome, ProofReport } from '../prove/types';
import { pct } from '../prove/verdict';
import { cell, inlineCode, plain } from './diagnosisReport';

/** The diagnosis report with the host's last proof after it (unchanged without one). */
export function withProof(markdown: string, proof: ProofReport | undefined): string {
  return proof ? `${markdown}\n${proofMarkdown(proof).join('\n').trimEnd()}\n` : markdown;
}

export function proofMarkdown(proof: ProofReport): string[] {
  const between = proof.peer ? ` between ${inlineCode(proof.host)} and ${inlineCode(proof.peer)}` : ` on ${inlineCode(proof.host)}`;
  const via = proof.via ? ` through ${inlineCode(proof.via)}` : '';
  const head = [
    '## GPUDirect RDMA proof (ib_write_bw)', '',
    `Measured${between}${via} at ${plain(proof.startedAt)}: ${proof.options.durationS} s per mode, ${proof.options.sizeBytes} bytes per message (${proof.status}).`, '',
  ];
  if (proof.status === 'refused') return [...head, 'Nothing was run:', '', ...proof.refusals.map((r) => `- ${inlineCode(r)}`), ''];
  const rows = proof.gpus.flatMap((g) => g.modes.map((m) => modeRow(g, m)));
  return [
    ...head,
    '| GPU | NIC port | Mode | Gb/s | Line rate | Ratio | Why not |', '|---|---|---|---|---|---|---|', ...rows, '',
    ...proof.gpus.flatMap((g) => [`- ${inlineCode(g.gpu)}: ${inlineCode(g.verdict)}${g.notes.map((n) => ` (${inlineCode(n)})`).join('')}`]),
    ...proof.skipped.map((s) => `- skipped: ${inlineCode(s)}`), '',
  ];
}

function modeRow(g: GpuProof, m: ModeOutcome): string {
  const ok = m.status === 'ok';
  const why = ok ? '' : [m.status, m.reason, ...m.explainedBy].filter((x): x is string => !!x).join('; ');
  const ratio = m.ratio === null ? '' : pct(m.ratio);
  return `| ${cell(g.gpu)} | ${cell(`${g.client.device}:${g.client.port}`)} | ${m.mode} | ${m.gbps ?? ''} | ${m.lineRateGbps ?? ''} | ${ratio} | ${why ? inlineCode(why).replace(/\|/g, '\\|') : ''} |`;
}
