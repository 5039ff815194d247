import { SmiGpu, SmiQuery, mib } from '../../core/parsers/smiQuery';

/** Per GPU: name, bus id, FB and BAR1 memory, PCIe link; notes a BAR1 smaller than the FB memory. */
export function summarizeSmiQuery(value: SmiQuery): string {
  if (value.status !== 'ok') return `nvidia-smi -q failed (${value.status}): ${value.smiError?.message ?? ''}`;
  const driver = value.kmdVersion ?? value.driverVersion ?? '?';
  const lines = [`Driver ${driver}, CUDA ${value.cudaVersion ?? '?'}, ${value.attachedGpus} GPU(s) attached`];
  for (const gpu of value.gpus) lines.push(...summarizeGpu(gpu));
  return lines.join('\n');
}

function summarizeGpu(gpu: SmiGpu): string[] {
  const fb = gpu.fbMemory;
  const bar1 = gpu.bar1Memory;
  const lines = [
    `  ${gpu.busId}  ${gpu.productName ?? '(no product name)'}${gpu.productArchitecture ? ` (${gpu.productArchitecture})` : ''}`,
    `    FB memory:   total ${fb.total}, used ${fb.used}, free ${fb.free}`,
    `    BAR1 memory: total ${bar1.total}, used ${bar1.used}${bar1.free !== undefined ? `, free ${bar1.free}` : ''}`,
  ];
  const bar1Mib = mib(bar1.total);
  const fbMib = mib(fb.total);
  // A BAR1 window smaller than the GPU memory means peers cannot map all of it (large BAR off).
  if (bar1Mib !== undefined && fbMib !== undefined && bar1Mib < fbMib) {
    lines.push(`    note: BAR1 (${bar1.total}) is smaller than FB memory (${fb.total})`);
  }
  const pci = gpu.pci;
  if (pci.linkGenerationCurrent !== undefined || pci.linkWidthCurrent !== undefined) {
    lines.push(
      `    PCIe: gen ${pci.linkGenerationCurrent ?? '?'}/${pci.linkGenerationMax ?? '?'}, width ${pci.linkWidthCurrent ?? '?'}/${pci.linkWidthMax ?? '?'} (current/max)`,
    );
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
