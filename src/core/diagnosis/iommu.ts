// The IOMMU (docs/platform.md §2): whether it is active, and whether it translates the GPUs' and NICs'
// DMA. Each IOMMU group's default domain type says it (Documentation/ABI/testing/sysfs-kernel-iommu_groups,
// Linux 5.11+): `identity` is passthrough, `DMA`/`DMA-FQ` translate — and translated peer-to-peer
// requests go up to the root complex (NCCL Troubleshooting, "IOMMU"). The kernel command line alone
// misses kernels built to default to passthrough (CONFIG_IOMMU_DEFAULT_PASSTHROUGH), so the groups come first.
import { KernelParam } from '../probe/hostChecks';
import { ProbeReport } from '../probe/runProbe';
import { factOf, labelOf, quote } from './evidence';
import { Finding, SOURCES } from './finding';
import { t } from '../l10n';

export type IommuMode = 'translated' | 'passthrough' | 'mixed' | 'unknown';

export interface IommuState {
  readonly active: boolean;
  /** For the GPUs' and NICs' groups where they are known, else every group with a type. */
  readonly mode: IommuMode;
  /** Group ids of the GPUs and NICs whose DMA is translated. */
  readonly translatedGroups: number[];
  readonly passthroughParam: boolean;
  readonly evidence: string[];
}

const TRANSLATED = /^DMA(-FQ)?$/;

/** Active when /sys/kernel/iommu_groups has groups, else when the command line turns it on; null when unknown. */
export function iommuState(report: ProbeReport, endpoints: readonly string[] = []): IommuState | null {
  const params = factOf(report, 'cmdline')?.params ?? [];
  const groups = factOf(report, 'iommu-groups');
  const on = params.some((p) => (p.name === 'intel_iommu' || p.name === 'amd_iommu') && /^(on|force)/.test(p.value ?? ''));
  const off = params.some((p) => (p.name === 'intel_iommu' || p.name === 'amd_iommu' || p.name === 'iommu') && p.value === 'off');
  const active = groups !== undefined ? groups.count > 0 : on && !off ? true : null;
  if (active === null) return null;
  const passthroughParam = params.some(isPassthrough);
  const listed = groups?.groups ?? [];
  const mine = listed.filter((g) => g.devices.some((d) => endpoints.includes(d)));
  const typed = (mine.length > 0 ? mine : listed).filter((g) => g.type !== null);
  const translated = typed.filter((g) => TRANSLATED.test(g.type ?? ''));
  const mode: IommuMode =
    typed.length === 0 ? 'unknown' : translated.length === 0 ? 'passthrough' : translated.length === typed.length ? 'translated' : 'mixed';
  const evidence = [
    ...quote(report, 'cmdline', () => on || off || passthroughParam),
    ...groupEvidence(report, mine.length > 0 ? mine : typed.slice(0, 1), groups?.count ?? null),
  ];
  return { active, mode, translatedGroups: (mine.length > 0 ? translated : []).map((g) => g.id), passthroughParam, evidence };
}

function groupEvidence(
  report: ProbeReport,
  shown: readonly { id: number; type: string | null; devices: string[] }[],
  count: number | null,
): string[] {
  const label = labelOf(report, 'iommu-groups');
  if (count === null) return [];
  if (shown.length === 0) return [`${label}: ${count} group${count === 1 ? '' : 's'}`];
  return shown.slice(0, 4).map((g) => `/sys/kernel/iommu_groups/${g.id}/type: ${g.type ?? '(absent)'} (${g.devices.join(' ')})`);
}

function isPassthrough(p: KernelParam): boolean {
  return (p.name === 'iommu' && p.value === 'pt') || (p.name === 'iommu.passthrough' && p.value === '1');
}

export interface PassthroughProof {
  /** The GPUs' and NICs' DMA is shown to bypass translation (or no IOMMU is active). */
  readonly shown: boolean;
  /** What shows it, or why it is not shown, in words. */
  readonly why: string;
}

const OFF_SWITCH = (p: KernelParam) => (p.name === 'intel_iommu' || p.name === 'amd_iommu') && p.value === 'off';

/**
 * Whether the host shows that peer traffic of the GPUs and NICs is not translated: no IOMMU group at all,
 * their groups of type `identity`, or — only where the group types cannot be read (Linux before 5.11 has
 * no /sys/kernel/iommu_groups/N/type) — `iommu=pt`, `iommu.passthrough=1`, `intel_iommu=off` or
 * `amd_iommu=off` on the kernel command line. Anything else is not shown, and a root fix that depends on it
 * must not run: with translation on, peer requests carry I/O virtual addresses a switch cannot route.
 */
export function passthroughShown(report: ProbeReport, endpoints: readonly string[]): PassthroughProof {
  const groups = factOf(report, 'iommu-groups');
  const params = factOf(report, 'cmdline')?.params ?? [];
  if (groups?.count === 0) return { shown: true, why: t('no IOMMU is active (/sys/kernel/iommu_groups has no group)') };
  const state = iommuState(report, endpoints);
  if (state?.mode === 'passthrough')
    return { shown: true, why: t('the IOMMU groups of the GPUs and NICs are of type identity (passthrough)') };
  if (state?.mode === 'translated' || state?.mode === 'mixed')
    return {
      shown: false,
      why: t('the IOMMU translates DMA for the GPUs and NICs (IOMMU groups {0})', state.translatedGroups.join(', ') || t('of type DMA')),
    };
  const sw = params.find((p) => isPassthrough(p) || OFF_SWITCH(p));
  if (sw)
    return { shown: true, why: t('the kernel command line has {0} (the IOMMU group types cannot be read)', `${sw.name}=${sw.value}`) };
  return {
    shown: false,
    why: groups
      ? t(
          'the IOMMU is active ({0} groups), its group types cannot be read (Linux before 5.11 has no /sys/kernel/iommu_groups/N/type), and the kernel command line shows no passthrough (iommu=pt, iommu.passthrough=1, intel_iommu=off, amd_iommu=off)',
          groups.count,
        )
      : t(
          'whether the IOMMU translates DMA could not be read (no /sys/kernel/iommu_groups reading) and the kernel command line shows no passthrough',
        ),
  };
}

/** The boot parameters that keep the IOMMU on but let host devices bypass translation, per CPU (kernel-parameters.txt). */
export function passthroughAdvice(report: ProbeReport): string {
  const f = factOf(report, 'lscpu')?.fields ?? {};
  if (f['Vendor ID'] === 'GenuineIntel') return 'intel_iommu=on iommu=pt';
  if (f['Vendor ID'] === 'AuthenticAMD') return t('iommu=pt (AMD-Vi stays on; amd_iommu=off would turn it off entirely)');
  if (/^(aarch64|arm64)$/.test(f.Architecture ?? '')) return 'iommu.passthrough=1 (Arm SMMU)';
  return 'iommu=pt (Intel: intel_iommu=on iommu=pt; Arm SMMU: iommu.passthrough=1)';
}

export function iommuFindings(report: ProbeReport, endpoints: readonly string[], guest: boolean): Finding[] {
  const state = iommuState(report, endpoints);
  if (!state?.active) return [];
  const passthrough = state.mode === 'passthrough' || (state.mode === 'unknown' && state.passthroughParam);
  const groups = state.translatedGroups;
  const where =
    groups.length === 0
      ? ''
      : groups.length > 1
        ? t(' (IOMMU groups {0} of the GPUs and NICs)', groups.join(', '))
        : t(' (IOMMU group {0} of the GPUs and NICs)', groups[0]);
  return [
    {
      id: 'iommu.enabled',
      severity: passthrough || guest ? 'info' : 'warning',
      title: passthrough
        ? t('IOMMU on, in passthrough mode')
        : state.mode === 'mixed'
          ? t('IOMMU on, translating DMA for some GPUs or NICs')
          : t('IOMMU on, translating DMA'),
      detail: passthrough
        ? t(
            "The IOMMU is active but the GPUs' and NICs' groups are identity-mapped (passthrough), which keeps peer-to-peer DMA usable. Its groups still make the kernel enable ACS on PCIe switch ports (see pcie.acs-enabled).",
          )
        : [
            t(
              'With the IOMMU (VT-d/AMD-Vi/SMMU) translating DMA{0}, peer-to-peer traffic between the GPU and the NIC is redirected to the CPU, "causing a significant performance reduction or even a hang" (NCCL troubleshooting).',
              where,
            ),
            guest
              ? t('In a VM the IOMMU is usually required; enable ATS on the devices instead of turning it off.')
              : t(
                  'On bare metal, boot with {0}: passthrough keeps the IOMMU on (interrupt remapping, which x2APIC and CPUs above APIC ID 255 need) while host devices skip translation. Do not turn the IOMMU off in the firmware.',
                  passthroughAdvice(report),
                ),
          ].join(' '),
      evidence: state.evidence,
      fixes: [],
      source: `${SOURCES.ncclTroubleshooting}; Linux Documentation/ABI/testing/sysfs-kernel-iommu_groups; Documentation/admin-guide/kernel-parameters.txt`,
    },
  ];
}
