// dma-buf: GPUDirect RDMA without a peer-memory module (docs/dma-buf.md). Needs the open kernel
// modules of a driver branch ≥ 535, a kernel ≥ 5.12 and a Turing-or-newer GPU; NCCL then uses it
// by itself. What the probe cannot see (CUDA ≥ 11.7, rdma-core ≥ 34) is named, not assumed away.
import { nvidiaModuleFlavor } from '../parsers/modinfo';
import { ProbeReport } from '../probe/runProbe';
import { factOf, quote } from './evidence';
import { Finding, SOURCES } from './finding';
import { HostState } from './hostState';
import { strtoll } from '../topology/nccl/env';
import { NcclRules } from '../topology/nccl/rules';
import { formatNcclVersion } from '../topology/nccl/version';
import { t } from '../l10n';

export interface DmabufStatus {
  /** true when every visible prerequisite is met; false when one is not; null when a key one is unknown. */
  readonly available: boolean | null;
  /** Prerequisites not met, in words. */
  readonly missing: string[];
  /** Prerequisites the probe could not check, in words. */
  readonly unchecked: string[];
  readonly evidence: string[];
}

const DMABUF_MIN_BRANCH = 535;
const DMABUF_MIN_KERNEL: readonly [number, number] = [5, 12];
const PRE_TURING = new Set(['Kepler', 'Maxwell', 'Pascal', 'Volta', 'Fermi']);
const TURING_OR_NEWER = new Set(['Turing', 'Ampere', 'Ada Lovelace', 'Hopper', 'Blackwell']);

export function dmabufStatus(report: ProbeReport, host: HostState): DmabufStatus {
  const missing: string[] = [];
  const unchecked: string[] = [];
  const open = openModules(report);
  if (open === false) missing.push(t('the open NVIDIA kernel modules (the proprietary ones are loaded)'));
  if (open === null) unchecked.push(t('which NVIDIA kernel modules (open or proprietary) are installed'));
  if (host.driverBranch !== null && host.driverBranch < DMABUF_MIN_BRANCH)
    missing.push(t('driver branch ≥ {0} (found {1})', DMABUF_MIN_BRANCH, host.driverBranch));
  if (host.driverBranch === null) unchecked.push(t('the driver branch (≥ {0} needed)', DMABUF_MIN_BRANCH));
  const kernel = kernelRelease(report);
  if (kernel && compare([kernel.major, kernel.minor], DMABUF_MIN_KERNEL) < 0)
    missing.push(t('kernel ≥ 5.12 (running {0})', kernel.release));
  if (!kernel) unchecked.push(t('the kernel release (≥ 5.12 needed)'));
  const archs = (factOf(report, 'smi-q')?.gpus ?? []).map((g) => g.productArchitecture ?? '');
  const old = archs.filter((a) => PRE_TURING.has(a));
  if (old.length > 0) missing.push(t('a Turing or newer GPU (found {0})', [...new Set(old)].join(', ')));
  // The open kernel modules drive only Turing and newer GPUs (NVIDIA/open-gpu-kernel-modules README): where
  // they run, the architecture is implied.
  if (open !== true && (archs.length === 0 || archs.some((a) => !PRE_TURING.has(a) && !TURING_OR_NEWER.has(a)))) {
    unchecked.push(t('the GPU architecture (Turing or newer needed)'));
  }
  unchecked.push(t('CUDA ≥ 11.7 in the job'), t('rdma-core ≥ 34 (ibv_reg_dmabuf_mr) on the NIC side'));
  const keyUnknown = open === null || host.driverBranch === null || !kernel;
  return { available: missing.length > 0 ? false : keyUnknown ? null : true, missing, unchecked, evidence: dmabufEvidence(report) };
}

/**
 * The host's dma-buf as the NCCL of the job sees it: NCCL registers GPU memory through dma-buf only from 2.13
 * (NCCL_PTR_DMABUF, v2.13.4-1 src/transport/net_ib.cc, src/init.cc) and not with NCCL_DMABUF_ENABLE=0 (read with
 * strtoll, so `00` and `0x0` are 0 too). Then every rule treats dma-buf as not there for that job.
 */
export function dmabufForNccl(status: DmabufStatus, rules: NcclRules, env: Readonly<Record<string, string>>): DmabufStatus {
  const enable = env.NCCL_DMABUF_ENABLE;
  const off = !rules.dmabuf
    ? t('NCCL {0} (dma-buf support comes with NCCL 2.13)', formatNcclVersion(rules.version))
    : enable !== undefined && enable !== '' && strtoll(enable) === 0
      ? t('NCCL_DMABUF_ENABLE not 0 (set to {0})', enable)
      : null;
  return off === null ? status : { ...status, available: false, missing: [...status.missing, off] };
}

/** `dmabuf.available` (info): peer memory becomes optional. */
export function dmabufFindings(status: DmabufStatus): Finding[] {
  if (status.available !== true) return [];
  return [
    {
      id: 'dmabuf.available',
      severity: 'info',
      title: t('dma-buf can carry GPUDirect RDMA: the peer-memory module is optional'),
      detail: t(
        'The open NVIDIA kernel modules (branch ≥ 535; they drive only Turing and newer GPUs, so the GPU side is met), a kernel ≥ 5.12 and the GPUs seen meet the dma-buf prerequisites. NCCL uses dma-buf by itself (NCCL_DMABUF_ENABLE, default on) and logs "DMA-BUF is available on GPU device N"; inbox rdma-core is enough, no MLNX_OFED needed. NVIDIA recommends dma-buf where possible. Not checked by the probe: {0}.',
        status.unchecked.join('; '),
      ),
      evidence: status.evidence,
      fixes: [],
      source: SOURCES.dmabuf,
    },
  ];
}

function openModules(report: ProbeReport): boolean | null {
  const version = factOf(report, 'nvidia-version');
  if (version) return version.openKernelModule;
  const modinfo = factOf(report, 'modinfo-nvidia');
  const flavor = modinfo ? nvidiaModuleFlavor(modinfo) : null;
  return flavor === null ? null : flavor === 'open';
}

/** `uname -r`, else the release in `modinfo nvidia`'s vermagic (modinfo looks in the running kernel's tree). */
export function kernelRelease(report: ProbeReport): { release: string; major: number; minor: number } | null {
  const uname = factOf(report, 'uname');
  if (uname) return uname;
  const modinfo = factOf(report, 'modinfo-nvidia');
  const release = modinfo?.found ? (modinfo.fields.vermagic ?? '').split(/\s+/)[0] : '';
  const m = /^(\d+)\.(\d+)/.exec(release);
  return m ? { release, major: Number(m[1]), minor: Number(m[2]) } : null;
}

function compare(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function dmabufEvidence(report: ProbeReport): string[] {
  return [
    ...quote(report, 'nvidia-version', (l) => l.startsWith('NVRM version:')),
    ...(factOf(report, 'nvidia-version') ? [] : quote(report, 'modinfo-nvidia', (l) => /^(license|version|vermagic):/.test(l))),
    ...quote(report, 'uname', () => true),
    ...quote(report, 'smi-q', (l) => l.trim().startsWith('Product Architecture')).slice(0, 1),
  ];
}
