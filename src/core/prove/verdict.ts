// The verdict of one GPU's proof in a sentence (docs/perftest.md §4), and which findings of the
// diagnosis explain a mode that failed or ran slow: the same findings `diagnose` shows, so the fix
// offered there applies.
import { Finding } from '../diagnosis';
import { ruleContext } from '../diagnosis/context';
import { readHostState } from '../diagnosis/hostState';
import { DEFAULT_NCCL } from '../diagnosis/ncclAssumptions';
import { DiagnosedHost } from './endpoints';
import { ModeOutcome, ProveMode, Tone } from './types';
import { t } from '../l10n';

/** Finding ids that explain each mode failing (peer-memory.md, dma-buf.md, platform.md). */
const EXPLAINS: Readonly<Record<ProveMode, readonly string[]>> = {
  host: ['rdma.none', 'rdma.port-down'],
  peermem: ['peermem.missing', 'peermem.not-loaded', 'peermem.not-registered', 'peermem.ofed-mismatch', 'peermem.conflict', 'ofed.missing', 'gpu.no-gdr-support', 'driver.operator-managed', 'pcie.acs-enabled', 'iommu.enabled', 'dmabuf.available'],
  dmabuf: ['gpu.no-gdr-support', 'pcie.acs-enabled', 'iommu.enabled'],
};
/** Findings that explain GPU memory slower than host memory: the path between GPU and NIC. */
const SLOW = ['topo.nic-far', 'pcie.acs-enabled', 'iommu.enabled', 'bar1.small'];

function findingText(f: Finding, host: string, many: boolean): string {
  return `${f.id}: ${f.title}${many ? ` (${host})` : ''}`;
}

export function explanations(mode: ProveMode, hosts: readonly DiagnosedHost[], ids: readonly string[] = EXPLAINS[mode]): string[] {
  const many = hosts.length > 1;
  const found = hosts.flatMap((h) => h.diagnosis.findings.filter((f) => ids.includes(f.id)).map((f) => findingText(f, h.host, many)));
  if (mode === 'peermem') {
    // Where dma-buf makes the module optional the diagnosis does not report it missing: say so here.
    for (const h of hosts) {
      const p = readHostState(h.report).peermem;
      if (p.newLoaded === false && p.legacyLoaded === false && !found.some((f) => f.startsWith('peermem.'))) {
        found.unshift(many
          ? t('no peer-memory module is loaded on {0} (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)', h.host)
          : t('no peer-memory module is loaded (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)'));
      }
    }
  }
  if (mode === 'dmabuf') {
    for (const h of hosts) {
      const missing = ruleContext(h.report, DEFAULT_NCCL).dmabuf.missing;
      if (missing.length > 0) found.unshift(many ? t('dma-buf prerequisites missing on {0}: {1} (docs/dma-buf.md)', h.host, missing.join('; ')) : t('dma-buf prerequisites missing: {0} (docs/dma-buf.md)', missing.join('; ')));
    }
  }
  return [...new Set(found)];
}

/** A ratio as the proof words it: `91 %`. */
export const pct = (r: number): string => `${Math.round(r * 100)} %`;

/** `host memory: 97 %`, or what became of it. */
function hostPart(host: ModeOutcome | undefined): string {
  if (!host) return t('host memory: {0}', t('not measured'));
  if (host.status === 'ok') return t('host memory: {0}', host.ratio !== null ? pct(host.ratio) : `${host.gbps} Gb/s`);
  return t('host memory: {0}', host.status === 'skipped' ? t('skipped') : host.status);
}

/** The headline and its tone, from the modes in run order. */
export function gpuVerdict(modes: readonly ModeOutcome[], hosts: readonly DiagnosedHost[]): { verdict: string; tone: Tone } {
  const host = modes.find((m) => m.mode === 'host');
  const gpu = modes.filter((m) => m.mode !== 'host');
  const works = gpu.find((m) => m.status === 'ok');
  if (works) return worksVerdict(works, host, hosts);
  const failed = gpu.filter((m) => m.status === 'failed' || m.status === 'timed-out');
  if (failed.length > 0) {
    const hostFailed = host && host.status === 'failed' ? t('; host memory failed too ({0}): RDMA itself does not work between these ports', host.reason ?? '') : '';
    const modes = failed.map((m) => (m.status === 'failed' ? t('{0} mode failed: {1}', m.mode, m.reason ?? '') : t('{0} mode timed out: {1}', m.mode, m.reason ?? '')));
    return { verdict: `${modes.join('; ')}${hostFailed}`, tone: 'error' };
  }
  if (gpu.length === 0 && host?.status === 'ok') return { verdict: t('RDMA from host memory works at {0} (GPU memory not measured)', rate(host)), tone: 'ok' };
  if (host && host.status !== 'ok' && host.status !== 'skipped') return { verdict: t('host memory {0}: {1}', host.status, host.reason ?? ''), tone: host.status === 'failed' ? 'error' : 'unknown' };
  const why = [...gpu, ...(host ? [host] : [])].filter((m) => m.reason).map((m) => `${m.mode}: ${m.reason}`).join('; ');
  return { verdict: why ? t('not measured: {0}', why) : t('not measured'), tone: 'unknown' };
}

function rate(m: ModeOutcome): string {
  return m.ratio !== null ? t('{0} of line rate', pct(m.ratio)) : t('{0} Gb/s (line rate unknown)', m.gbps ?? '?');
}

function worksVerdict(works: ModeOutcome, host: ModeOutcome | undefined, hosts: readonly DiagnosedHost[]): { verdict: string; tone: Tone } {
  const head = t('GPUDirect RDMA works at {0} with {1} ({2})', rate(works), works.mode, hostPart(host));
  const gap = host?.status === 'ok' && host.gbps !== null && works.gbps !== null ? (host.gbps - works.gbps) / host.gbps : 0;
  if (gap <= 0.1) return { verdict: head, tone: 'ok' };
  const why = explanations(works.mode, hosts, SLOW);
  const cause = why.length > 0 ? `; ${why.join('; ')}` : t(': look at the PCIe path between the GPU and the NIC (docs/perftest.md §4)');
  return { verdict: `${head}: ${t('GPU memory is {0} % slower than host memory', Math.round(gap * 100))}${cause}`, tone: 'warning' };
}
