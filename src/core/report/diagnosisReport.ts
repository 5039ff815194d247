// One host's diagnosis as a document to share: the JSON the CLI's `diagnose --json` prints, and a
// Markdown report (findings with evidence, GPU↔NIC verdicts, suggested environment). Remote text
// only ever lands inside code spans/blocks, so a host cannot inject Markdown into the report.
import { Diagnosis, Finding, GpuNicPair } from '../diagnosis';
import { ProbeReport } from '../probe/runProbe';
import { SshTarget } from '../ssh/sshConfig';
import { shellAssignment } from '../shellText';
import { t } from '../l10n';

export function diagnosisJson(report: ProbeReport, diagnosis: Diagnosis, target?: SshTarget) {
  return {
    ...report,
    target: target ? { hostname: target.hostname, user: target.user, port: target.port } : null,
    findings: diagnosis.findings,
    pairs: diagnosis.pairs,
    suggestedEnv: diagnosis.suggestedEnv,
    nccl: diagnosis.nccl,
  };
}

/** Why a report is partial: the connection lost, the deadline reached; empty when it is whole. */
function partialWords(report: ProbeReport): string {
  return `${report.connectionLost ? t(' (connection lost: partial)') : ''}${report.timedOut ? t(' (deadline reached: partial)') : ''}`;
}

export function formatMarkdownReport(report: ProbeReport, diagnosis: Diagnosis): string {
  const lines = [
    `# ${t('GPUDirect RDMA report: {0}', inlineCode(report.host))}`,
    '',
    `${t('Collected {0} in {1} ms', report.collectedAt, report.durationMs)}${partialWords(report)}.`,
    '',
    `## ${t('Findings ({0})', countFindings(diagnosis.findings))}`,
    '',
    ...(diagnosis.findings.length === 0 ? [t('None.'), ''] : diagnosis.findings.flatMap(findingMarkdown)),
    ...pairsMarkdown(diagnosis.pairs),
    ...envMarkdown(diagnosis),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Every finding, knock-ons under their cause included. */
function countFindings(findings: readonly Finding[]): number {
  return findings.reduce((n, f) => n + 1 + (f.children?.length ?? 0), 0);
}

const severityLabel = (severity: Finding['severity']): string => ({ error: t('Error'), warning: t('Warning'), info: t('Info') })[severity];

function findingMarkdown(f: Finding): string[] {
  const out = [`### ${severityLabel(f.severity)}: ${plain(f.title)} (${inlineCode(f.id)})`, '', plain(f.detail), ''];
  if (f.evidence.length > 0) out.push(...codeBlock(f.evidence.join('\n')), '');
  if (f.fixes.length > 0) out.push(t('Quick fix: {0}', f.fixes.map(inlineCode).join(', ')), '');
  out.push(t('Source: {0}', plain(f.source)), '');
  const children = f.children ?? [];
  if (children.length > 0) {
    out.push(
      children.length === 1
        ? t('1 more finding following from this one (nothing they show can change the answer until it is solved):')
        : t('{0} more findings following from this one (nothing they show can change the answer until it is solved):', children.length),
      '',
    );
    for (const c of children)
      out.push(
        `- ${severityLabel(c.severity)}: ${plain(c.title)} (${inlineCode(c.id)})${c.evidence.length > 0 ? `: ${c.evidence.map(inlineCode).join(', ')}` : ''}`,
      );
    out.push('');
  }
  return out;
}

function pairsMarkdown(pairs: readonly GpuNicPair[]): string[] {
  if (pairs.length === 0) return [];
  const rows = pairs.map((p) => {
    const nics = p.nics.map((n) => n.device ?? n.nic).join(', ') || t('none');
    const gdr = p.gdr === null ? t('unknown') : p.gdr ? t('yes') : t('no');
    return `| ${cell(p.gpu)} | ${cell(nics)} | ${cell(p.link ?? '-')} | ${cell(p.numaNode ?? '?')} | ${gdr} | ${cell(p.reason)} |`;
  });
  const head = ['GPU', 'NIC', t('Link'), 'NUMA', 'GDR', t('Why')];
  return [`## ${t('Nearest RDMA NIC per GPU')}`, '', `| ${head.join(' | ')} |`, '|---|---|---|---|---|---|', ...rows, ''];
}

function envMarkdown({ suggestedEnv }: Diagnosis): string[] {
  const vars = Object.entries(suggestedEnv.env);
  if (vars.length === 0) return [];
  const body = [...vars.map(([k, v]) => shellAssignment(k, v)), ...suggestedEnv.notes.map((n) => `# ${n}`)].join('\n');
  return [`## ${t('Suggested environment')}`, '', t('A suggestion: measure with nccl-tests.'), '', ...codeBlock(body), ''];
}

/** A fence longer than any backtick run inside, so the text cannot close it. */
export function codeBlock(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [fence, text, fence];
}

export function inlineCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text.replace(/[\r\n]+/g, ' ')}${pad}${ticks}`;
}

/** Text of our own rules (may quote host names): Markdown punctuation escaped, one line per paragraph. */
export function plain(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

/** Text in a table cell: escaped as plain(), on one line. */
export function cell(text: string): string {
  return plain(text).replace(/[\r\n]+/g, ' ');
}
