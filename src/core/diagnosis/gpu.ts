// GPU rules: is there a usable NVIDIA GPU at all, and is it a part that supports GPUDirect RDMA.
import { ProbeReport } from '../probe/runProbe';
import { commandOf, factOf, note, quote } from './evidence';
import { Finding, SOURCES } from './finding';
import { t } from '../l10n';

/** `gpu.none` when nvidia-smi is missing, cannot reach the driver, or sees no GPU. */
export function gpuNoneFindings(report: ProbeReport): Finding[] {
  const smiError = factOf(report, 'gpus')?.smiError ?? factOf(report, 'smi-q')?.smiError;
  const listed = factOf(report, 'gpus')?.gpus.length ?? factOf(report, 'smi-q')?.gpus.length ?? factOf(report, 'topo')?.gpus.length;
  const smiMissing = (['topo', 'gpus', 'smi-q'] as const).every((id) => commandOf(report, id)?.missing === true);
  if (!smiError && !smiMissing && listed !== 0) return [];
  const driverDown = smiError?.kind === 'driver-unreachable' || smiError?.kind === 'nvml-init-failed';
  const evidence = smiMissing
    ? [note(report, 'gpus', 'command not found (exit 127)')]
    : smiError
      ? [...quote(report, smiError === factOf(report, 'gpus')?.smiError ? 'gpus' : 'smi-q', (l) => l.trim() === smiError.message)]
      : [note(report, 'gpus', 'no GPU row')];
  return [{
    id: 'gpu.none',
    severity: 'error',
    title: smiMissing ? t('nvidia-smi is not installed: no NVIDIA driver') : driverDown ? t('The NVIDIA driver is not running') : t('No NVIDIA GPU is visible'),
    detail: smiMissing
      ? t('nvidia-smi is not on the PATH, so no NVIDIA driver is installed (or it lives only in a container). GPUDirect RDMA needs the NVIDIA driver on the host that owns the GPUs.')
      : driverDown
        ? t('nvidia-smi could not talk to the kernel driver ({0}). Load or reinstall the NVIDIA driver (a user-space/kernel version mismatch after an upgrade needs a reboot or module reload).', smiError?.message ?? '')
        : t('The driver sees no GPU: GPUDirect RDMA has nothing to work with on this host (a CPU node, GPUs hidden from this container or job, or a GPU that fell off the bus: check dmesg).'),
    evidence,
    fixes: [],
    source: SOURCES.cudaGdr,
  }];
}

/** Consumer parts: GPUDirect RDMA is a data-center / professional (RTX, Quadro) feature. */
const NO_GDR_BRANDS = new Set(['GeForce', 'Titan', 'NVIDIA TITAN']);
const NO_GDR_NAME = /\b(GeForce|TITAN)\b/i;

export function gpuSupportFindings(report: ProbeReport): Finding[] {
  const smi = factOf(report, 'smi-q');
  const names = smi
    ? smi.gpus.filter((g) => NO_GDR_BRANDS.has(g.productBrand ?? '') || NO_GDR_NAME.test(g.productName ?? '')).map((g) => g.productName ?? g.busId)
    : (factOf(report, 'gpus')?.gpus ?? []).filter((g) => NO_GDR_NAME.test(g.name ?? '')).map((g) => g.name ?? '');
  if (names.length === 0) return [];
  const evidence = smi
    ? quote(report, 'smi-q', (l) => /^\s*Product (Name|Brand)\s*:/.test(l) && /GeForce|TITAN/i.test(l))
    : quote(report, 'gpus', (l) => NO_GDR_NAME.test(l));
  return [{
    id: 'gpu.no-gdr-support',
    severity: 'error',
    title: t('GPUDirect RDMA is not supported on {0}', [...new Set(names)].join(', ')),
    detail: t('GPUDirect RDMA (peer memory and dma-buf export to a NIC) is enabled on data-center and professional (RTX/Quadro) GPUs only; GeForce and TITAN parts refuse it, so NCCL and MPI stage every transfer through host memory whatever the module or topology. Use a supported GPU for GPUDirect RDMA.'),
    evidence,
    fixes: [],
    source: SOURCES.cudaGdr,
  }];
}
