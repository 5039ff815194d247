import { SmiGpu, SmiQuery, mib } from '../../core/parsers/smiQuery';
import { t } from '../../core/l10n';

/** Per GPU: name, bus id, FB and BAR1 memory, PCIe link; notes a BAR1 smaller than the FB memory. */
export function summarizeSmiQuery(value: SmiQuery): string {
  if (value.status !== 'ok') return t('nvidia-smi -q failed ({0}): {1}', value.status, value.smiError?.message ?? '');
  const driver = value.kmdVersion ?? value.driverVersion ?? '?';
  const lines = [t('Driver {0}, CUDA {1}, {2} GPU(s) attached', driver, value.cudaVersion ?? '?', value.attachedGpus)];
  for (const gpu of value.gpus) lines.push(...summarizeGpu(gpu));
  return lines.join('\n');
}

function summarizeGpu(gpu: SmiGpu): string[] {
  const fb = gpu.fbMemory;
  const bar1 = gpu.bar1Memory;
  const lines = [
    `  ${gpu.busId}  ${gpu.productName ?? t('(no product name)')}${gpu.productArchitecture ? ` (${gpu.productArchitecture})` : ''}`,
    `    FB memory:   total ${fb.total}, used ${fb.used}, free ${fb.free}`,
    `    BAR1 memory: total ${bar1.total}, used ${bar1.used}${bar1.free !== undefined ? `, free ${bar1.free}` : ''}`,
  ];
  const bar1Mib = mib(bar1.total);
  const fbMib = mib(fb.total);
  // A BAR1 window smaller than the GPU memory means peers cannot map all of it (large BAR off).
  if (bar1Mib !== undefined && fbMib !== undefined && bar1Mib < fbMib) {
    lines.push(`    ${t('note: BAR1 ({0}) is smaller than FB memory ({1})', bar1.total ?? '?', fb.total ?? '?')}`);
  }
  const pci = gpu.pci;
  if (pci.linkGenerationCurrent !== undefined || pci.linkWidthCurrent !== undefined) {
    const generation = `${pci.linkGenerationCurrent ?? '?'}/${pci.linkGenerationMax ?? '?'}`;
    const width = `${pci.linkWidthCurrent ?? '?'}/${pci.linkWidthMax ?? '?'}`;
    lines.push(`    PCIe: gen ${generation}, width ${width} (current/max)`);
  }
  const modes = [
    gpu.persistenceMode && `persistence ${gpu.persistenceMode}`,
    gpu.migModeCurrent && `MIG ${gpu.migModeCurrent}`,
    gpu.virtualizationMode && `virtualization ${gpu.virtualizationMode}`,
    gpu.addressingMode && `addressing ${gpu.addressingMode}`,
  ].filter(Boolean);
  if (modes.length > 0) lines.push(`    ${modes.join(', ')}`);
  return lines;
}
