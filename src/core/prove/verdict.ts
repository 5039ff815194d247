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
  peermem: [
    'peermem.missing',
    'peermem.not-loaded',
    'peermem.not-registered',
    'peermem.ofed-mismatch',
    'peermem.conflict',
    'ofed.missing',
    'gpu.no-gdr-support',
    'driver.operator-managed',
    'pcie.acs-enabled',
    'iommu.enabled',
    'dmabuf.available',
  ],
  dmabuf: ['gpu.no-gdr-support', 'pcie.acs-enabled', 'iommu.enabled'],
};
/** Findings that explain GPU memory slower than host memory, or than line rate: the path between GPU and NIC. */
const SLOW = ['topo.nic-far', 'pcie.acs-enabled', 'iommu.enabled', 'bar1.small', 'pcie.link-degraded', 'ib.link-degraded'];

/**
 * "Works" needs at least this share of the port's line rate at messages of 1 MiB or more (docs/perftest.md
 * §4). ConnectX-6 and -7 reach about 90–97 % there (NVIDIA/nccl-tests#290: 46–48 GB/s per NDR NIC, 92–96 %
 * of 400 Gb/s); a link at half its lanes or generation, ACS sending peer traffic to the root complex, or
 * the wrong NUMA node show well below. Below it, the bytes moved but the path is not healthy.
 */
export const LINE_RATE_FLOOR = 0.8;
/** Smaller messages (`--size`, perftest's -s) are bound by per-message costs, not the link: the floor is not applied to them. */
export const FLOOR_MIN_BYTES = 1 << 20;

/** Whether a GPU's best mode met the floor: met, below, not applied (messages under 1 MiB), unknown (no line rate). */
export type FloorResult = 'met' | 'below' | 'small-messages' | 'no-line-rate';

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
        found.unshift(
          many
            ? t(
                'no peer-memory module is loaded on {0} (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)',
                h.host,
              )
            : t(
                'no peer-memory module is loaded (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)',
              ),
        );
      }
    }
  }
  if (mode === 'dmabuf') {
    for (const h of hosts) {
      const missing = ruleContext(h.report, DEFAULT_NCCL).dmabuf.missing;
      if (missing.length > 0)
        found.unshift(
          many
            ? t('dma-buf prerequisites missing on {0}: {1} (docs/dma-buf.md)', h.host, missing.join('; '))
            : t('dma-buf prerequisites missing: {0} (docs/dma-buf.md)', missing.join('; ')),
        );
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
export function gpuVerdict(
  modes: readonly ModeOutcome[],
  hosts: readonly DiagnosedHost[],
  sizeBytes: number = FLOOR_MIN_BYTES,
): { verdict: string; tone: Tone; floor?: FloorResult } {
  const host = modes.find((m) => m.mode === 'host');
  const gpu = modes.filter((m) => m.mode !== 'host');
  // The best GPU mode decides: peermem and dmabuf are two ways to the same bytes.
  const works = gpu.filter((m) => m.status === 'ok').sort((a, b) => (b.gbps ?? 0) - (a.gbps ?? 0))[0];
  if (works) return worksVerdict(works, host, hosts, sizeBytes);
  const failed = gpu.filter((m) => m.status === 'failed' || m.status === 'timed-out');
  if (failed.length > 0) {
    const hostFailed =
      host && host.status === 'failed'
        ? t('; host memory failed too ({0}): RDMA itself does not work between these ports', host.reason ?? '')
        : '';
    const modes = failed.map((m) =>
      m.status === 'failed' ? t('{0} mode failed: {1}', m.mode, m.reason ?? '') : t('{0} mode timed out: {1}', m.mode, m.reason ?? ''),
    );
    return { verdict: `${modes.join('; ')}${hostFailed}`, tone: 'error' };
  }
  if (gpu.length === 0 && host?.status === 'ok')
    return { verdict: t('RDMA from host memory works at {0} (GPU memory not measured)', rate(host)), tone: 'ok' };
  if (host && host.status !== 'ok' && host.status !== 'skipped')
    return { verdict: t('host memory {0}: {1}', host.status, host.reason ?? ''), tone: host.status === 'failed' ? 'error' : 'unknown' };
  const why = [...gpu, ...(host ? [host] : [])]
    .filter((m) => m.reason)
    .map((m) => `${m.mode}: ${m.reason}`)
    .join('; ');
  return { verdict: why ? t('not measured: {0}', why) : t('not measured'), tone: 'unknown' };
}

function rate(m: ModeOutcome): string {
  return m.ratio !== null ? t('{0} of line rate', pct(m.ratio)) : t('{0} Gb/s (line rate unknown)', m.gbps ?? '?');
}

function worksVerdict(
  works: ModeOutcome,
  host: ModeOutcome | undefined,
  hosts: readonly DiagnosedHost[],
  sizeBytes: number,
): { verdict: string; tone: Tone; floor: FloorResult } {
  const floor = pct(LINE_RATE_FLOOR);
  if (works.ratio === null)
    return {
      verdict: t(
        "GPUDirect RDMA moved data at {0} Gb/s with {1} ({2}), but the port's line rate was not read: whether it reaches the {3} floor is unknown",
        works.gbps ?? '?',
        works.mode,
        hostPart(host),
        floor,
      ),
      tone: 'unknown',
      floor: 'no-line-rate',
    };
  if (sizeBytes < FLOOR_MIN_BYTES)
    return {
      verdict: t(
        'GPUDirect RDMA moved data at {0} with {1} ({2}), with {3}-byte messages: below 1 MiB the {4} floor does not apply; measure with --size 1048576 or more',
        rate(works),
        works.mode,
        hostPart(host),
        sizeBytes,
        floor,
      ),
      tone: 'unknown',
      floor: 'small-messages',
    };
  if (works.ratio < LINE_RATE_FLOOR) {
    const why = explanations(works.mode, hosts, SLOW);
    return {
      verdict: `${t(
        'GPUDirect RDMA works, but at {0} of line rate with {1} ({2}; "works" needs {3} at 1 MiB messages or more): check the link width and PCIe generation of the GPU and the NIC (pcie.link-degraded), NUMA pinning, and ACS on the switch between them',
        pct(works.ratio),
        works.mode,
        hostPart(host),
        floor,
      )}${why.length > 0 ? `; ${why.join('; ')}` : ''}`,
      tone: 'warning',
      floor: 'below',
    };
  }
  const head = t('GPUDirect RDMA works at {0} with {1} ({2})', rate(works), works.mode, hostPart(host));
  const gap = host?.status === 'ok' && host.gbps !== null && works.gbps !== null ? (host.gbps - works.gbps) / host.gbps : 0;
  if (gap <= 0.1) return { verdict: head, tone: 'ok', floor: 'met' };
  const why = explanations(works.mode, hosts, SLOW);
  const cause = why.length > 0 ? `; ${why.join('; ')}` : t(': look at the PCIe path between the GPU and the NIC (docs/perftest.md §4)');
  return {
    verdict: `${head}: ${t('GPU memory is {0} % slower than host memory', Math.round(gap * 100))}${cause}`,
    tone: 'warning',
    floor: 'met',
  };
}
