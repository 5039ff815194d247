// The "Proof" group of a host in the Hosts tree: the last GPUDirect RDMA proof, one row per GPU with
// the measured bandwidth against line rate and host memory, the verdict and every mode in the
// tooltip (plain text: perftest's own error lines are the host's words). No VS Code import.
import type { GpuProof, ModeOutcome, ProofReport } from '../../core/prove';
import { pct } from '../../core/prove/verdict';
import type { HostsNode, Tone } from './nodes';

const inParens = (r: number | null) => (r === null ? '' : ` (${pct(r)})`);

export function proofGroup(scope: string, hostId: string, proof: ProofReport): HostsNode {
  const worked = proof.gpus.filter((g) => g.tone === 'ok' || g.tone === 'warning').length;
  const when = new Date(proof.startedAt).toLocaleTimeString();
  const description = proof.status === 'refused' ? `not run — ${when}` : `${worked} of ${proof.gpus.length} GPU${proof.gpus.length === 1 ? '' : 's'} with GPUDirect RDMA${proof.status === 'measured' ? '' : `, ${proof.status}`} — ${when}`;
  return { kind: 'group', id: `${scope}/proof`, hostId, group: 'proof', label: 'Proof', description };
}

export function proofRows(base: string, hostId: string, proof: ProofReport): HostsNode[] {
  if (proof.status === 'refused') {
    return proof.refusals.map((r, i) => ({ kind: 'row', id: `${base}/refused${i}`, hostId, label: 'not run', description: r, tone: 'error', tooltip: r }));
  }
  return proof.gpus.map((g) => ({ kind: 'row', id: `${base}/${g.gpu}`, hostId, label: g.gpu, description: gpuDescription(g), tone: TONES[g.tone], tooltip: gpuTooltip(g, proof) }));
}

const TONES: Record<GpuProof['tone'], Tone> = { ok: 'ok', warning: 'warning', error: 'error', unknown: 'unknown' };

/** `mlx5_0 · peermem 181.46 Gb/s (91 %) · host 196.07 Gb/s (98 %)`, or the first failure. */
function gpuDescription(g: GpuProof): string {
  const shown = g.modes.filter((m) => m.status !== 'skipped');
  const best = shown.find((m) => m.mode !== 'host' && m.status === 'ok');
  const host = shown.find((m) => m.mode === 'host');
  const parts = [g.client.device, best ? `${best.mode} ${best.gbps} Gb/s${inParens(best.ratio)}` : firstProblem(shown), host?.status === 'ok' ? `host ${host.gbps} Gb/s${inParens(host.ratio)}` : undefined];
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
    ...g.modes.map((m) => `${m.mode}: ${m.status === 'ok' ? `${m.gbps} Gb/s of ${m.lineRateGbps ?? '?'} Gb/s${inParens(m.ratio)}` : `${m.status}${m.reason ? ` — ${m.reason}` : ''}`}`),
    ...g.modes.flatMap((m) => m.explainedBy.map((e) => `explained by ${e}`)),
    ...g.notes.map((n) => `note: ${n}`),
    '',
    `Measured ${new Date(proof.startedAt).toLocaleString()} with ib_write_bw, ${proof.options.durationS} s per mode.`,
  ].join('\n');
}
