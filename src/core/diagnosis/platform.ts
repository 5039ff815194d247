// Platform rules (docs/platform.md): the IOMMU and the ACS redirection it brings, BAR1 size, and a
// driver owned by the GPU Operator (docs/peer-memory.md §4).
import { mib } from '../parsers/smiQuery';
import { KernelParam } from '../probe/hostChecks';
import { ProbeReport } from '../probe/runProbe';
import { commandOf, factOf, labelOf, quote } from './evidence';
import { Finding, SOURCES } from './finding';
import { GpuNicPair } from './pairs';
import { t } from '../l10n';

interface IommuState {
  readonly active: boolean;
  readonly passthrough: boolean;
  readonly evidence: string[];
}

/** Active when /sys/kernel/iommu_groups has groups, else when the command line turns it on. */
function iommuState(report: ProbeReport): IommuState | null {
  const params = factOf(report, 'cmdline')?.params ?? [];
  const groups = factOf(report, 'iommu-groups')?.groups;
  const on = params.some((p) => (p.name === 'intel_iommu' || p.name === 'amd_iommu') && /^(on|force)/.test(p.value ?? ''));
  const off = params.some((p) => (p.name === 'intel_iommu' || p.name === 'amd_iommu' || p.name === 'iommu') && p.value === 'off');
  const active = groups !== undefined ? groups > 0 : on && !off ? true : null;
  if (active === null) return null;
  const passthrough = params.some(isPassthrough);
  const evidence = [...quote(report, 'cmdline', () => on || off || passthrough), ...quote(report, 'iommu-groups', () => true)];
  return { active, passthrough, evidence };
}

function isPassthrough(p: KernelParam): boolean {
  return (p.name === 'iommu' && p.value === 'pt') || (p.name === 'iommu.passthrough' && p.value === '1');
}

export function iommuFindings(report: ProbeReport): Finding[] {
  const state = iommuState(report);
  if (!state?.active) return [];
  return [{
    id: 'iommu.enabled',
    severity: state.passthrough ? 'info' : 'warning',
    title: state.passthrough ? t('IOMMU on, in passthrough mode (iommu=pt)') : t('IOMMU on, translating DMA'),
    detail: state.passthrough
      ? t('The IOMMU is active but host devices bypass translation (iommu=pt), which keeps peer-to-peer DMA usable. Its groups still make the kernel enable ACS on PCIe switches (see pcie.acs-enabled).')
      : t('With the IOMMU (VT-d/AMD-Vi) translating DMA, peer-to-peer traffic between the GPU and the NIC is redirected to the CPU, "causing a significant performance reduction or even a hang" (NCCL troubleshooting). On bare metal, disable it in the BIOS or boot with iommu=pt; in a VM it is usually required, and ATS must then be enabled instead.'),
    evidence: state.evidence,
    fixes: [],
    source: SOURCES.ncclTroubleshooting,
  }];
}

/**
 * Linux asks for ACS on every PCIe port when an IOMMU is active (pci_request_acs), so a GPU and a NIC
 * under one switch (PIX/PXB) send peer traffic up to the root complex. The probe runs no lspci
 * (ACSCtl needs root), so this is inferred and says how to confirm it.
 */
export function acsFindings(report: ProbeReport, pairs: readonly GpuNicPair[]): Finding[] {
  const state = iommuState(report);
  const sharing = pairs.filter((p) => p.ncclPath === 'PIX' || p.ncclPath === 'PXB');
  if (!state?.active || sharing.length === 0) return [];
  return [{
    id: 'pcie.acs-enabled',
    severity: 'warning',
    title: t('ACS is likely redirecting GPU↔NIC traffic through the CPU'),
    detail: t('The IOMMU is active, and with it Linux enables Access Control Services on PCIe switch ports: peer traffic between {0} and the NIC on their switch is forced up to the root complex, which costs bandwidth or hangs. Confirm with `sudo lspci -vvv | grep ACSCtl` (SrcValid+ = on). On bare metal disable ACS in the BIOS (setpci … ECAP_ACS+0x6.w=0000 does not survive a reboot); in a VM ACS may be deliberate, with ATS enabled.', sharing.map((p) => p.gpu).join(', ')),
    evidence: state.evidence,
    fixes: [],
    source: `${SOURCES.ncclTroubleshooting}; ${SOURCES.cudaGdr}`,
  }];
}

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
  return [{
    id: 'bar1.small',
    severity: fixed ? 'info' : 'warning',
    title: small.length === 1 ? t('BAR1 is only {0} on {1}', small[0].bar1Memory.total ?? '?', small[0].busId) : t('BAR1 is only {0} on {1} GPUs', small[0].bar1Memory.total ?? '?', small.length),
    detail: [
      t('BAR1 is the window through which peers (the NIC) reach GPU memory; GPUDirect RDMA can pin at most that much at once.'),
      `${small.map((g) => t('{0} ({1}): BAR1 {2} for {3}', g.busId, g.productName ?? 'GPU', g.bar1Memory.total ?? '?', g.fbMemory.total ?? '?')).join('; ')}.`,
      fixed
        ? t('This board fixes BAR1 at 256 MiB: no BIOS setting enlarges it. NCCL\'s own buffers fit; large registrations by other libraries (MPI/UCX, GDRCopy) can fail with "out of BAR1".')
        : vm
          ? t('In a VM, the hypervisor sizes the GPU\'s 64-bit MMIO window: give the passthrough device a window larger than its memory (and enable "Above 4G decoding" on the host).')
          : t('The large BAR mapping is off: enable "Above 4G decoding" (and, where the GPU supports it, "Resizable BAR") in the BIOS.'),
    ].join(' '),
    evidence: small.flatMap((g) => bar1Lines(report, g.line)),
    fixes: [],
    source: `${SOURCES.cudaGdr}; nvidia-smi -q "BAR1 Memory Usage"`,
  }];
}

/** The GPU header and its BAR1 Total line, as printed (`line` counts blank lines, so read the raw text). */
function bar1Lines(report: ProbeReport, headerLine: number): string[] {
  const raw = (commandOf(report, 'smi-q')?.stdout ?? '').split(/\r\n|\r|\n/);
  const bar1 = raw.findIndex((l, i) => i >= headerLine && l.trim().startsWith('BAR1 Memory Usage'));
  const total = bar1 < 0 ? undefined : raw.slice(bar1 + 1).find((l) => /^\s*Total\s*:/.test(l));
  const label = labelOf(report, 'smi-q');
  return [raw[headerLine - 1], bar1 < 0 ? undefined : raw[bar1], total].filter((l): l is string => l !== undefined && l.trim() !== '').map((l) => `${label}: ${l.trim()}`);
}

/** `driver.operator-managed`: the GPU Operator's driver container owns the kernel modules. */
export function operatorFindings(report: ProbeReport): Finding[] {
  if (factOf(report, 'run-nvidia-driver')?.present !== true) return [];
  return [{
    id: 'driver.operator-managed',
    severity: 'info',
    title: t('The NVIDIA GPU Operator manages the driver: quick fixes are withheld'),
    detail: t('The driver runs in the GPU Operator\'s container (/run/nvidia/driver). The operator loads nvidia-peermem itself once OFED is ready (ClusterPolicy driver.rdma.enabled=true; with the host\'s own MLNX_OFED also driver.rdma.useHostMofed=true) and checks it with `lsmod | grep -E \'^nvidia_peermem\\s\'`. Loading or persisting the module on the host would fight the operator, so gdr-doctor withholds its load/persist fixes here: change the ClusterPolicy instead.'),
    evidence: quote(report, 'run-nvidia-driver', () => true),
    fixes: [],
    source: SOURCES.gpuOperator,
  }];
}
