// Checked before anything runs, with nothing run when one fails (docs/perftest.md §1, §3): perftest
// installed, built with CUDA for the GPU modes, an active RDMA port, and GPUs not busy (a measurement
// loads the link and the GPU: the caller asks first). What can be worked around becomes a note.
import { rdmaPorts } from '../diagnosis/rdmaPorts';
import { SmiProcess } from '../parsers/smiQuery';
import { cudaBuildHint, perftestInstallHint, PerftestCheck, readPerftestCheck } from './checks';
import { DiagnosedHost, smiGpu } from './endpoints';
import { ProveMode } from './types';
import { t } from '../l10n';

export interface BusyGpu {
  readonly host: string;
  readonly gpu: string;
  readonly processes: readonly SmiProcess[];
}

export interface Preconditions {
  /** Why nothing may run; [] when it may. */
  readonly refusals: string[];
  /** Modes that cannot run on these hosts and why (a perftest without --use_cuda_dmabuf). */
  readonly skippedModes: ReadonlyMap<ProveMode, string>;
  /** GPUs with processes on them: the caller asks before measuring. */
  readonly busy: BusyGpu[];
  /** Per host, what was found (for the notes: not pinned without numactl…). */
  readonly checks: ReadonlyMap<string, PerftestCheck>;
}

export function checkPreconditions(
  hosts: readonly DiagnosedHost[],
  modes: readonly ProveMode[],
  gpus: (h: DiagnosedHost) => readonly number[],
): Preconditions {
  const refusals: string[] = [];
  const skippedModes = new Map<ProveMode, string>();
  const checks = new Map<string, PerftestCheck>();
  const gpuModes = modes.filter((m) => m !== 'host');
  for (const h of hosts) {
    const check = readPerftestCheck(h.report);
    if (!check) {
      const unknown = h.report.connectionLost
        ? t('could not tell whether perftest is installed (the check did not run to its end: connection lost)')
        : t('could not tell whether perftest is installed (the check did not run to its end)');
      refusals.push(`${h.host}: ${unknown}`);
      continue;
    }
    checks.set(h.host, check);
    refusals.push(...perftestRefusals(h, check, gpuModes));
    if (modes.includes('dmabuf') && check.cuda && !check.cudaDmabuf) {
      skippedModes.set(
        'dmabuf',
        t(
          'the perftest on {0} has no --use_cuda_dmabuf (built without CUDA dma-buf support: CUDA ≥ 11.7 headers and rdma-core ≥ 34 at build time; docs/perftest.md §3)',
          h.host,
        ),
      );
    }
    const active = (rdmaPorts(h.report) ?? []).filter((p) => p.active === true);
    if (active.length === 0) {
      const why = rdmaPorts(h.report) === null ? t('no RDMA device was read') : t('every port is down or not yet active');
      refusals.push(`${h.host}: ${t('no active RDMA port ({0}): nothing to measure', why)}`);
    }
  }
  return { refusals, skippedModes, busy: hosts.flatMap((h) => busyGpus(h, gpus(h))), checks };
}

function perftestRefusals(h: DiagnosedHost, check: PerftestCheck, gpuModes: readonly ProveMode[]): string[] {
  if (check.ibWriteBw === null) {
    const missing = t(
      "perftest's ib_write_bw is not installed (not on the login PATH): {0}; {1}. gdr-doctor installs nothing.",
      perftestInstallHint(h.report),
      cudaBuildHint(),
    );
    return [`${h.host}: ${missing}`];
  }
  if (gpuModes.length > 0 && !check.cuda) {
    const modes = gpuModes.length > 1 ? t('the {0} modes', gpuModes.join(t(' and '))) : t('the {0} mode', gpuModes[0]);
    const withoutCuda = t(
      '{0} was built without CUDA ("ib_write_bw --help" has no --use_cuda), so {1} cannot run: {2}. Or measure host memory only.',
      check.ibWriteBw,
      modes,
      cudaBuildHint(),
    );
    return [`${h.host}: ${withoutCuda}`];
  }
  return [];
}

export function busyGpus(h: DiagnosedHost, indexes: readonly number[]): BusyGpu[] {
  return indexes.flatMap((i) => {
    const processes = smiGpu(h.report, i)?.processes ?? [];
    return processes.length > 0 ? [{ host: h.host, gpu: `GPU${i}`, processes }] : [];
  });
}

/** `GPU0 on gpu-a: pid 25384 nvidia-cuda-mps-server (26 MiB)`. */
export function busyText(b: BusyGpu): string {
  return `${t('{0} on {1}', b.gpu, b.host)}: ${b.processes.map((p) => `pid ${p.pid} ${p.name}${p.usedMemory ? ` (${p.usedMemory})` : ''}`).join(', ')}`;
}
