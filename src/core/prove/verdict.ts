// The verdict of one GPU's proof in a sentence (docs/perftest.md §4), and which findings of the
// diagnosis explain a mode that failed or ran slow: the same findings `diagnose` shows, so the fix
// offered there applies.
import { Finding } from '../diagnosis';
import { ruleContext } from '../diagnosis/context';
import { readHostState } from '../diagnosis/hostState';
import { DEFAULT_NCCL } from '../diagnosis/ncclAssumptions';
import { DiagnosedHost } from './endpoints';
import { ModeOutcome, ProveMode, Tone } from './types';

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
        found.unshift(`no peer-memory module is loaded${many ? ` on ${h.host}` : ''} (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)`);
      }
    }
  }
  if (mode === 'dmabuf') {
    for (const h of hosts) {
      const missing = ruleContext(h.report, DEFAULT_NCCL).dmabuf.missing;
      if (missing.length > 0) found.unshift(`dma-buf prerequisites missing${many ? ` on ${h.host}` : ''}: ${missing.join('; ')} (docs/dma-buf.md)`);
    }
  }
  return [...new Set(found)];
}

/** A ratio as the proof words it: `91 %`. */
export const pct = (r: number): string => `${Math.round(r * 100)} %`;

/** `host memory: 97 %`, or what became of it. */
function hostPart(host: ModeOutcome | undefined): string {
  if (!host) return 'host memory: not measured';
  if (host.status === 'ok') return host.ratio !== null ? `host memory: ${pct(host.ratio)}` : `host memory: ${host.gbps} Gb/s`;
  return `host memory: ${host.status === 'skipped' ? 'skipped' : host.status}`;
}

/** The headline and its tone, from the modes in run order. */
export function gpuVerdict(modes: readonly ModeOutcome[], hosts: readonly DiagnosedHost[]): { verdict: string; tone: Tone } {
  const host = modes.find((m) => m.mode === 'host');
  const gpu = modes.filter((m) => m.mode !== 'host');
  const works = gpu.find((m) => m.status === 'ok');
  if (works) return worksVerdict(works, host, hosts);
  const failed = gpu.filter((m) => m.status === 'failed' || m.status === 'timed-out');
  if (failed.length > 0) {
    const hostFailed = host && host.status === 'failed' ? `; host memory failed too (${host.reason}): RDMA itself does not work between these ports` : '';
    return { verdict: `${failed.map((m) => `${m.mode} mode ${m.status === 'failed' ? 'failed' : 'timed out'}: ${m.reason}`).join('; ')}${hostFailed}`, tone: 'error' };
  }
  if (gpu.length === 0 && host?.status === 'ok') return { verdict: `RDMA from host memory works at ${rate(host)} (GPU memory not measured)`, tone: 'ok' };
  if (host && host.status !== 'ok' && host.status !== 'skipped') return { verdict: `host memory ${host.status}: ${host.reason}`, tone: host.status === 'failed' ? 'error' : 'unknown' };
  const why = [...gpu, ...(host ? [host] : [])].filter((m) => m.reason).map((m) => `${m.mode}: ${m.reason}`).join('; ');
  return { verdict: `not measured${why ? `: ${why}` : ''}`, tone: 'unknown' };
}

function rate(m: ModeOutcome): string {
  return m.ratio !== null ? `${pct(m.ratio)} of line rate` : `${m.gbps} Gb/s (line rate unknown)`;
}

function worksVerdict(works: ModeOutcome, host: ModeOutcome | undefined, hosts: readonly DiagnosedHost[]): { verdict: string; tone: Tone } {
  const head = `GPUDirect RDMA works at ${rate(works)} with ${works.mode} (${hostPart(host)})`;
  const gap = host?.status === 'ok' && host.gbps !== null && works.gbps !== null ? (host.gbps - works.gbps) / host.gbps : 0;
  if (gap <= 0.1) return { verdict: head, tone: 'ok' };
  const why = explanations(works.mode, hosts, SLOW);
  const cause = why.length > 0 ? `; ${why.join('; ')}` : ': look at the PCIe path between the GPU and the NIC (docs/perftest.md §4)';
  return { verdict: `${head}: GPU memory is ${Math.round(gap * 100)} % slower than host memory${cause}`, tone: 'warning' };
}
