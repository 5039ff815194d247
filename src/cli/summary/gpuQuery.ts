import { GpuQuery } from '../../core/parsers/gpuQuery';

const SMI_ERROR_HINT: Readonly<Record<string, string>> = {
  'driver-unreachable': 'the NVIDIA kernel driver is not loaded or not reachable',
  'no-devices': 'the driver answered but sees no GPU',
  'nvml-init-failed': 'NVML could not start (often a driver/library version mismatch)',
};

/** One line per GPU: index, name, PCI bus id, driver version, then any extra queried fields. */
export function summarizeGpuQuery(value: GpuQuery): string {
  if (value.status !== 'ok') {
    return `nvidia-smi failed: ${SMI_ERROR_HINT[value.status]}\n  ${value.smiError?.message ?? ''}`;
  }
  if (value.gpus.length === 0) return 'No GPUs listed by nvidia-smi --query-gpu.';
  const known = new Set(['index', 'name', 'pci.bus_id', 'driver_version']);
  const lines = [`${value.gpus.length} GPU(s):`];
  for (const gpu of value.gpus) {
    const extras = Object.entries(gpu.fields)
      .filter(([field]) => !known.has(field))
      .map(([field, v]) => `${field}=${v}`);
    const parts = [
      `GPU ${gpu.index ?? '?'}`,
      gpu.name ?? '(no name)',
      gpu.pciBusId ?? '(no bus id)',
      gpu.driverVersion !== undefined ? `driver ${gpu.driverVersion}` : undefined,
      ...extras,
    ].filter((p): p is string => p !== undefined);
    lines.push(`  ${parts.join('  ')}`);
  }
  return lines.join('\n');
}
