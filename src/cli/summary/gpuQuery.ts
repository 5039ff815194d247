import { GpuQuery } from '../../core/parsers/gpuQuery';
import { t } from '../../core/l10n';

const smiErrorHint = (status: string): string => ({
  'driver-unreachable': t('the NVIDIA kernel driver is not loaded or not reachable'),
  'no-devices': t('the driver answered but sees no GPU'),
  'nvml-init-failed': t('NVML could not start (often a driver/library version mismatch)'),
} as Readonly<Record<string, string>>)[status];

/** One line per GPU: index, name, PCI bus id, driver version, then any extra queried fields. */
export function summarizeGpuQuery(value: GpuQuery): string {
  if (value.status !== 'ok') {
    return `${t('nvidia-smi failed: {0}', smiErrorHint(value.status))}\n  ${value.smiError?.message ?? ''}`;
  }
  if (value.gpus.length === 0) return t('No GPUs listed by nvidia-smi --query-gpu.');
  const known = new Set(['index', 'name', 'pci.bus_id', 'driver_version']);
  const lines = [t('{0} GPU(s):', value.gpus.length)];
  for (const gpu of value.gpus) {
    const extras = Object.entries(gpu.fields)
      .filter(([field]) => !known.has(field))
      .map(([field, v]) => `${field}=${v}`);
    const parts = [
      `GPU ${gpu.index ?? '?'}`,
      gpu.name ?? t('(no name)'),
      gpu.pciBusId ?? t('(no bus id)'),
      gpu.driverVersion !== undefined ? t('driver {0}', gpu.driverVersion) : undefined,
      ...extras,
    ].filter((p): p is string => p !== undefined);
    lines.push(`  ${parts.join('  ')}`);
  }
  return lines.join('\n');
}
