// The "Proof" group of a host in the Hosts tree: the last GPUDirect RDMA proof, one row per GPU with
// the measured bandwidth against line rate and host memory, the verdict and every mode in the
// tooltip (plain text: perftest's own error lines are the host's words). No VS Code import.
import type { GpuProof, ModeOutcome, ProofReport } from '../../core/prove';
import { pct } from '../../core/prove/verdict';
import type { HostsNode, Tone } from './nodes';
import { t } from '../../core/l10n';
import { dateTime, timeOfDay } from '../displayLocale';

const inParens = (r: number | null) => (r === null ? '' : ` (${pct(r)})`);

export function proofGroup(scope: string, hostId: string, proof: ProofReport): HostsNode {
  const worked = proof.gpus.filter((g) => g.tone === 'ok' || g.tone === 'warning').length;
  const when = timeOfDay(new Date(proof.startedAt));
  const status = proof.status === 'measured' ? '' : `, ${proof.status}`;
  const of =
    proof.gpus.length === 1
      ? t('{0} of 1 GPU with GPUDirect RDMA', worked)
      : t('{0} of {1} GPUs with GPUDirect RDMA', worked, proof.gpus.length);
  const description = proof.status === 'refused' ? t('not run — {0}', when) : `${of}${status} — ${when}`;
  return { kind: 'group', id: `${scope}/proof`, hostId, group: 'proof', label: t('Proof'), description };
}

export function proofRows(base: string, hostId: string, proof: ProofReport): HostsNode[] {
  if (proof.status === 'refused') {
    return proof.refusals.map((r, i) => ({
      kind: 'row',
      id: `${base}/refused${i}`,
      hostId,
      label: t('not run'),
      description: r,
      tone: 'error',
      tooltip: r,
    }));
  }
  return proof.gpus.map((g) => ({
    kind: 'row',
    id: `${base}/${g.gpu}`,
    hostId,
    label: g.gpu,
    description: gpuDescription(g),
    tone: TONES[g.tone],
    tooltip: gpuTooltip(g, proof),
  }));
}

const TONES: Record<GpuProof['tone'], Tone> = { ok: 'ok', warning: 'warning', error: 'error', unknown: 'unknown' };

/** `mlx5_0 · peermem 181.46 Gb/s (91 %) · host 196.07 Gb/s (98 %)`, or the first failure. */
function gpuDescription(g: GpuProof): string {
  const shown = g.modes.filter((m) => m.status !== 'skipped');
  const best = shown.find((m) => m.mode !== 'host' && m.status === 'ok');
  const host = shown.find((m) => m.mode === 'host');
  const parts = [
    g.client.device,
    best ? `${best.mode} ${best.gbps} Gb/s${inParens(best.ratio)}` : firstProblem(shown),
    host?.status === 'ok' ? t('host {0} Gb/s{1}', String(host.gbps), inParens(host.ratio)) : undefined,
  ];
  return parts.filter((p) => p !== undefined).join(' · ');
}

function firstProblem(modes: readonly ModeOutcome[]): string | undefined {
  const m = modes.find((x) => x.mode !== 'host' && x.status !== 'ok') ?? modes.find((x) => x.status !== 'ok');
  return m ? `${m.mode} ${m.status}` : undefined;
}

function gpuTooltip(g: GpuProof, proof: ProofReport): string {
  const other = `${g.server.host === g.client.host ? '' : `${g.server.host} `}${g.server.device}:${g.server.port}`;
  return [
    g.verdict,
    '',
    `${g.client.host} ${g.gpu} ${g.client.device}:${g.client.port} → ${other}`,
    ...g.modes.map((m) => {
      const outcome =
        m.status === 'ok'
          ? t('{0} Gb/s of {1} Gb/s{2}', String(m.gbps), m.lineRateGbps ?? '?', inParens(m.ratio))
          : `${m.status}${m.reason ? ` — ${m.reason}` : ''}`;
      return `${m.mode}: ${outcome}`;
    }),
    ...g.modes.flatMap((m) => m.explainedBy.map((e) => t('explained by {0}', e))),
    ...g.notes.map((n) => t('note: {0}', n)),
    '',
    t('Measured {0} with ib_write_bw, {1} s per mode.', dateTime(new Date(proof.startedAt)), proof.options.durationS),
  ].join('\n');
}
