// Platform rules (docs/platform.md): BAR1 size, and a driver owned by the GPU Operator
// (docs/peer-memory.md §4). The IOMMU is in iommu.ts, ACS in acs.ts, PCIe links in links.ts.
import { mib, SmiGpu } from '../parsers/smiQuery';
import { ProbeReport } from '../probe/runProbe';
import { commandOf, factOf, labelOf, quote } from './evidence';
import { Finding, SOURCES } from './finding';
import { t } from '../l10n';

const SMALL_BAR1_MIB = 256;

/**
 * Inference cards whose board fixes BAR1 at 256 MiB whatever the BIOS says (their datasheets: "BAR1
 * 256 MB"); the firmware setting that would enlarge it does not exist for them.
 */
const FIXED_BAR1 = /\b(T4|P4|T400|T600|T1000)\b/;

/**
 * `bar1.small`: BAR1 of 256 MiB or less on a GPU with more memory than that, on a host where GPUDirect
 * RDMA is otherwise possible (the caller checks: a NIC, a GPU that supports it). The advice depends on
 * the GPU: fixed on some boards, a BIOS/hypervisor setting on others.
 */
export function bar1Findings(report: ProbeReport): Finding[] {
  const smi = factOf(report, 'smi-q');
  const small = (smi?.gpus ?? []).filter((g) => {
    const bar1 = mib(g.bar1Memory.total);
    const fb = mib(g.fbMemory.total);
    return bar1 !== undefined && fb !== undefined && bar1 <= SMALL_BAR1_MIB && fb > bar1;
  });
  if (small.length === 0) return [];
  const fixed = small.every((g) => FIXED_BAR1.test(g.productName ?? ''));
  const vm = small.some((g) => g.virtualizationMode === 'Pass-Through');
  return [
    {
      id: 'bar1.small',
      severity: fixed ? 'info' : 'warning',
      title:
        small.length === 1
          ? t('BAR1 is only {0} on {1}', small[0].bar1Memory.total ?? '?', small[0].busId)
          : t('BAR1 is only {0} on {1} GPUs', small[0].bar1Memory.total ?? '?', small.length),
      detail: [
        t('BAR1 is the window through which peers (the NIC) reach GPU memory; GPUDirect RDMA can pin at most that much at once.'),
        `${small.map(bar1Words).join('; ')}.`,
        fixed
          ? t(
              'This board fixes BAR1 at 256 MiB: no BIOS setting enlarges it. NCCL\'s own buffers fit; large registrations by other libraries (MPI/UCX, GDRCopy) can fail with "out of BAR1".',
            )
          : vm
            ? t(
                'In a VM, the hypervisor sizes the GPU\'s 64-bit MMIO window: give the passthrough device a window larger than its memory (and enable "Above 4G decoding" on the host).',
              )
            : t('The large BAR mapping is off: enable "Above 4G decoding" (and, where the GPU supports it, "Resizable BAR") in the BIOS.'),
      ].join(' '),
      evidence: small.flatMap((g) => bar1Lines(report, g.line)),
      fixes: [],
      source: `${SOURCES.cudaGdr}; nvidia-smi -q "BAR1 Memory Usage"`,
    },
  ];
}

/** The GPU header and its BAR1 Total line, as printed (`line` counts blank lines, so read the raw text). */
/** One small-BAR1 GPU: its bus id, product, BAR1 and frame-buffer sizes. */
function bar1Words(g: SmiGpu): string {
  return t('{0} ({1}): BAR1 {2} for {3}', g.busId, g.productName ?? 'GPU', g.bar1Memory.total ?? '?', g.fbMemory.total ?? '?');
}

function bar1Lines(report: ProbeReport, headerLine: number): string[] {
  const raw = (commandOf(report, 'smi-q')?.stdout ?? '').split(/\r\n|\r|\n/);
  const bar1 = raw.findIndex((l, i) => i >= headerLine && l.trim().startsWith('BAR1 Memory Usage'));
  const total = bar1 < 0 ? undefined : raw.slice(bar1 + 1).find((l) => /^\s*Total\s*:/.test(l));
  const label = labelOf(report, 'smi-q');
  return [raw[headerLine - 1], bar1 < 0 ? undefined : raw[bar1], total]
    .filter((l): l is string => l !== undefined && l.trim() !== '')
    .map((l) => `${label}: ${l.trim()}`);
}

/** `driver.operator-managed`: the GPU Operator's driver container owns the kernel modules. */
export function operatorFindings(report: ProbeReport): Finding[] {
  if (factOf(report, 'run-nvidia-driver')?.present !== true) return [];
  return [
    {
      id: 'driver.operator-managed',
      severity: 'info',
      title: t('The NVIDIA GPU Operator manages the driver: quick fixes are withheld'),
      detail: t(
        "The driver runs in the GPU Operator's container (/run/nvidia/driver). The operator loads nvidia-peermem itself once OFED is ready (ClusterPolicy driver.rdma.enabled=true; with the host's own MLNX_OFED also driver.rdma.useHostMofed=true) and checks it with `lsmod | grep -E '^nvidia_peermem\\s'`. Loading or persisting the module on the host would fight the operator, so gdr-doctor withholds its load/persist fixes here: change the ClusterPolicy instead.",
      ),
      evidence: quote(report, 'run-nvidia-driver', () => true),
      fixes: [],
      source: SOURCES.gpuOperator,
    },
  ];
}
