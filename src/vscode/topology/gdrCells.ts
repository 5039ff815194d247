// What happens between each GPU and each NIC on this host, for the matrix's GPU↔NIC cells, and the host's
// verdict for the panel's banner. A pair NCCL picks has the GPU's own verdict (PXN and C2C included);
// another pair gets what the host allows there: the NIC side (peer memory or dma-buf, nicSide.ts), the
// GPU side, then the distance rule of the release (linkRule.ts). From a saved matrix alone the NIC side is
// not known, so a pair the distance allows is `unknown`, never `on`. No VS Code import.
import type { Diagnosis, Finding, GpuNicPair, NcclAssumptions } from '../../core/diagnosis';
import { DEFAULT_NCCL } from '../../core/diagnosis';
import { nicSideGdr } from '../../core/diagnosis/nicSide';
import type { Topology } from '../../core/parsers/topo';
import type { ProbeReport } from '../../core/probe/runProbe';
import { linkRule } from '../../core/topology/nccl/linkRule';
import { GdrCell, GdrState, HostBanner, gdrState } from '../../protocol/topology';
import { t } from '../../core/l10n';

/** What the host allows for every pair: read from its diagnosis (absent: a saved matrix, nothing known). */
export interface HostSides {
  /** The NIC side gives GPUDirect RDMA (nicSide.ts); null: not read. */
  readonly nic: boolean | null;
  /** A finding that turns GPUDirect RDMA off for every GPU (no GPU, GPUs without support), else null. */
  readonly gpuBlocker: Finding | null;
  /** The finding that names why the NIC side is off (peermem not loaded, …), else null. */
  readonly nicBlocker: Finding | null;
}

export function gdrCells(
  topology: Topology,
  pairs: readonly GpuNicPair[] | undefined,
  sides: HostSides | null,
  nccl = DEFAULT_NCCL,
): GdrCell[] {
  const byGpu = new Map((pairs ?? []).map((p) => [p.gpu, p]));
  return topology.gpus.flatMap((gpu) =>
    topology.nics.map((nic) => {
      const token = topology.links[gpu.name]?.[nic.name] ?? null;
      const pair = byGpu.get(gpu.name);
      const picked = pair?.nics.some((n) => n.nic === nic.name) === true;
      const { state, why } = picked && pair ? pickedCell(pair, sides) : otherCell(gpu.name, token, sides, nccl);
      return { gpu: gpu.name, nic: nic.name, state, why };
    }),
  );
}

const STATE_WORDS = (state: GdrState): string => (state === 'on' ? t('GDR on') : state === 'off' ? t('GDR off') : t('GDR unknown'));

function pickedCell(pair: GpuNicPair, sides: HostSides | null): { state: GdrState; why: string } {
  const state = gdrState(pair.gdr);
  const picked = t('NCCL gives {0} this NIC ({1}).', pair.gpu, pathWords(pair));
  const blocker = state === 'off' ? hostBlocker(sides) : null;
  return { state, why: blocker ? `${STATE_WORDS(state)}: ${blocker} ${picked}` : `${STATE_WORDS(state)}: ${picked}` };
}

/** What turns GPUDirect RDMA off for every pair of the host, in words; null when nothing does. */
function hostBlocker(sides: HostSides | null): string | null {
  if (sides?.gpuBlocker) return t('{0} ({1}).', sides.gpuBlocker.title, sides.gpuBlocker.id);
  if (sides?.nic !== false) return null;
  return sides.nicBlocker ? t('{0} ({1}).', sides.nicBlocker.title, sides.nicBlocker.id) : t('the NIC side has no peer memory or dma-buf.');
}

function pathWords(pair: GpuNicPair): string {
  return pair.proxyGpu ? t('through {0}, PXN', pair.proxyGpu) : (pair.ncclPath ?? pair.link ?? '-');
}

function otherCell(gpu: string, token: string | null, sides: HostSides | null, nccl: NcclAssumptions): { state: GdrState; why: string } {
  const off = (why: string) => ({ state: 'off' as const, why: `${STATE_WORDS('off')}: ${why}` });
  const blocker = hostBlocker(sides);
  if (blocker) return off(blocker);
  const distance = token === null ? null : linkRule(token, nccl.version, nccl.env).usesGdr;
  if (distance === false)
    return off(t('{0} is beyond the distance NCCL allows, unless it relays {1} through an NVLink peer (PXN).', token ?? '', gpu));
  if (distance === null) return { state: 'unknown', why: t('{0}: the path between them is not known.', STATE_WORDS('unknown')) };
  if (sides === null || sides.nic === null)
    return {
      state: 'unknown',
      why: t(
        '{0}: {1} is within the distance NCCL allows; the NIC side (peer memory, dma-buf) was not read.',
        STATE_WORDS('unknown'),
        token ?? '',
      ),
    };
  return {
    state: 'on',
    why: t('{0} if NCCL gave {1} this NIC: {2} is within the distance it allows.', STATE_WORDS('on'), gpu, token ?? ''),
  };
}

/** What a diagnosed host allows every GPU↔NIC pair, from its report and findings. */
export function hostSides(report: ProbeReport, d: Diagnosis, nccl: NcclAssumptions): HostSides {
  return {
    nic: nicSideGdr(report, nccl),
    gpuBlocker: d.findings.find((f) => f.id === 'gpu.none' || f.id === 'gpu.no-gdr-support') ?? null,
    nicBlocker: d.findings.find((f) => f.severity === 'error' && /^(peermem|dmabuf|ofed|rdma)\./.test(f.id)) ?? null,
  };
}

/** The host's verdict for the banner: how many GPUs get GPUDirect RDMA, and the finding that stops the rest. */
/** `fixable`: the host takes quick fixes (not one reached through a login node): the button offers the fix. */
export function hostBanner(d: Diagnosis, cause: Finding | null, fixable = true): HostBanner {
  const actionWords = (f: Finding) => (fixable && f.fixes.length > 0 ? t('Show fix') : t('Show details'));
  const states = d.pairs.map((p) => gdrState(p.gdr));
  const n = states.length;
  const off = states.filter((s) => s === 'off').length;
  const unknown = states.filter((s) => s === 'unknown').length;
  if (n === 0)
    return {
      tone: cause ? 'error' : 'unknown',
      text: cause ? t('GPUDirect RDMA: {0}', cause.title) : t('GPUDirect RDMA: the GPUs were not read'),
      action: cause ? actionWords(cause) : null,
    };
  const unknownText = unknown > 0 ? t('; unknown on {0}', unknown) : '';
  if (off === 0 && unknown === 0) return { tone: 'ok', text: t('GPUDirect RDMA on for all {0} GPUs', n), action: null };
  const head = off > 0 ? t('GPUDirect RDMA off on {0} of {1} GPUs', off, n) : t('GPUDirect RDMA unknown on {0} of {1} GPUs', unknown, n);
  const counts = `${head}${off > 0 ? unknownText : ''}`;
  // The colon is the language's own (Chinese sets a full-width '：').
  const text = cause ? t('{0}: {1}', counts, cause.title) : counts;
  const tone = off > 0 ? (cause?.severity === 'error' ? 'error' : 'warning') : 'unknown';
  return { tone, text, action: cause ? actionWords(cause) : null };
}

/** The finding a banner names: the host's first error, else the first warning naming a GPU without GPUDirect RDMA. */
export function bannerCause(d: Diagnosis): Finding | null {
  const error = d.findings.find((f) => f.severity === 'error');
  if (error) return error;
  const off = d.pairs.filter((p) => p.gdr !== true).map((p) => p.gpu);
  return d.findings.find((f) => f.severity === 'warning' && off.some((g) => new RegExp(`\\b${g}\\b`).test(f.title))) ?? null;
}
