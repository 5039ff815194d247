// Plans of disable-acs and persist-acs (docs/platform.md §3): exactly the bridges between each GPU and
// the NIC NCCL gives it whose ACS redirects peer traffic (or, where ACS could not be read without a
// password, every bridge on those paths: the script reads each first and writes only where needed).
// Refused where ACS is required or turning it off would be unsafe: in a VM, on a host passing devices
// to VMs (rdma-core kernel-boot/rdma_topo keeps ACS there), and while the IOMMU translates the GPUs'
// and NICs' DMA (peer packets would skip translation). Pure: nothing runs here.
import { Finding } from '../diagnosis';
import { AcsReading, readAcs } from '../diagnosis/acs';
import { pairLabel } from '../diagnosis/pciePaths';
import { factOf } from '../diagnosis/evidence';
import { iommuState, passthroughAdvice, passthroughShown } from '../diagnosis/iommu';
import { GpuNicPair } from '../diagnosis/pairs';
import { isolationRequired, virtState } from '../diagnosis/virt';
import { acsWord } from '../parsers/lspci';
import type { PciDevice } from '../probe/pciSysfs';
import { ACS_BOOT_SCRIPT, ACS_UNIT, ACS_WANTS } from './acsBoot';
import { planPersistAcs } from './acsPersist';
import { AcsPlanInput, Base, readyPlan, refused } from './acsReady';
import { disableAcsScript, readAcsScript } from './acsScripts';
import { holdersNote } from './holders';
import { Refusal, isRefusal, privilegeFor, privilegeText } from './planChecks';
import { PciTarget, pciTarget } from './rootChecks';
import { privilegedCommand } from './scripts';
import { AcsBridge, FixPlan, Privilege } from './types';
import { t } from '../l10n';

export function planAcs(input: AcsPlanInput, base: Base, findings: readonly Finding[], pairs: readonly GpuNicPair[]): FixPlan {
  const checked = acsTargets(input, findings, pairs);
  if (isRefusal(checked)) return refused(base, checked);
  const privilege = privilegeFor(input.report, input.user, input.host);
  if (isRefusal(privilege)) return refused(base, privilege);
  const bdfs = checked.bridges.map((b) => b.bdf);
  const acs = {
    bridges: checked.bridges,
    verifyCommand: privilegedCommand(readAcsScript(bdfs), privilege, input.sudoMarker),
    undo: undoLines(checked.bridges, input.fixId),
  };
  if (checked.nothing) return { ...base, acs, status: 'nothing-to-do', summary: checked.nothing };
  return input.fixId === 'disable-acs'
    ? planDisable(input, base, acs, privilege, checked.notes)
    : planPersistAcs(input, base, { acs, privilege, notes: checked.notes, endpoints: checked.endpoints });
}

export interface Targets {
  readonly bridges: AcsBridge[];
  /** The GPUs and NICs of the paths: the boot step checks they are still there and passed through. */
  readonly endpoints: PciTarget[];
  /** Set when there is nothing to do, saying why. */
  readonly nothing: string | null;
  readonly notes: string[];
}

/** Which bridges, or why none may be touched. */
function acsTargets(input: AcsPlanInput, findings: readonly Finding[], pairs: readonly GpuNicPair[]): Targets | Refusal {
  const { report } = input;
  const pick = (...ids: string[]) => findings.filter((f) => ids.includes(f.id));
  const virt = virtState(report);
  if (isolationRequired(virt)) {
    const why = virt.guest.length > 0 ? t('This host is a virtual machine') : t('This host passes devices through to virtual machines');
    return {
      refused: t(
        "{0} ({1}): ACS keeps the guests' devices isolated and must stay on (rdma-core kernel-boot/rdma_topo keeps it with virtualisation; GPUDirect RDMA uses ATS there). Nothing is changed.",
        why,
        [...virt.guest, ...virt.hostsGuests].join('; '),
      ),
      findings: pick('pcie.acs-enabled', 'platform.virtual-machine'),
    };
  }
  const reading = readAcs(report, pairs);
  if (!reading || reading.bridges.length === 0) {
    return {
      refused: t(
        'No PCIe bridge between a GPU and the NIC NCCL gives it was found in sysfs (no tree read, or every pair crosses the CPU anyway): there is no ACS to turn off on a GPU↔NIC path.',
      ),
    };
  }
  const endpoints = reading.paths.flatMap((p) => [p.gpuBdf, p.nicBdf]);
  const proof = passthroughShown(report, endpoints);
  if (!proof.shown) {
    return {
      refused: t(
        '{0} needs IOMMU passthrough to be shown, and it is not: {1}. With translation on, peer requests carry I/O virtual addresses that a PCIe switch cannot route, so turning ACS off would break or corrupt GPU↔NIC traffic. Boot with {2} (passthrough, not the IOMMU off), then run {0} again.',
        input.fixId,
        proof.why,
        passthroughAdvice(report),
      ),
      findings: pick('iommu.enabled'),
    };
  }
  const iommu = iommuState(report, endpoints);
  if (factOf(report, 'pci-acs')?.via === 'missing')
    return { refused: t('lspci and setpci are not installed on the host (package pciutils): install it, then run the fix again.') };
  const targets = reading.unread !== null ? unreadTargets(reading) : readTargets(reading, input.fixId, iommu?.active === true);
  const byBdf = new Map([...(factOf(report, 'pci-sysfs')?.devices.values() ?? [])].map((d) => [d.bdf, d]));
  const ends = [...new Set(endpoints)].flatMap((b) => (byBdf.has(b) ? [pciTarget(byBdf.get(b) as PciDevice)] : []));
  const covered = t(
    "GPU↔NIC paths covered: {0} (every NIC at each GPU's best distance, over which NCCL spreads its channels, and each PXN relay's path).",
    reading.paths.map(pairLabel).join(', '),
  );
  return { ...targets, endpoints: ends, notes: [t('IOMMU passthrough: {0}.', proof.why), covered, ...targets.notes] };
}

type Found = Omit<Targets, 'endpoints'>;

function readTargets(reading: AcsReading, fixId: AcsPlanInput['fixId'], iommuActive: boolean): Found {
  const redirecting = reading.redirecting.map((r) =>
    bridge(r.bridge, r.lspci.description, r.lspci.acs?.ctl ? hex(acsWord(r.lspci.acs.ctl)) : null, r.pairs),
  );
  if (fixId === 'disable-acs') {
    const bdfs = reading.bridges.map((b) => b.bdf).join(', ');
    const nothing =
      redirecting.length > 0
        ? null
        : reading.bridges.length > 1
          ? t(
              'ACS redirects nothing on the {0} bridges between the GPUs and their NICs ({1}): nothing to do.',
              reading.bridges.length,
              bdfs,
            )
          : t('ACS redirects nothing on the 1 bridge between the GPUs and their NICs ({0}): nothing to do.', bdfs);
    return { bridges: redirecting, nothing, notes: [] };
  }
  // persist-acs: every bridge of the paths that has ACS, also where disable-acs has already cleared it.
  const withAcs =
    redirecting.length > 0
      ? redirecting
      : reading.capable.map((c) => bridge(c.bridge, c.lspci.description, c.lspci.acs?.ctl ? hex(acsWord(c.lspci.acs.ctl)) : null, c.pairs));
  const nothing =
    redirecting.length === 0 && !iommuActive
      ? t(
          'No IOMMU is active and ACS redirects nothing on the GPU↔NIC bridges: nothing turns it on at boot here, so there is nothing to persist.',
        )
      : withAcs.length === 0
        ? t('None of the bridges between the GPUs and their NICs has an ACS capability: there is nothing to persist.')
        : null;
  return { bridges: withAcs, nothing, notes: [] };
}

function unreadTargets(reading: AcsReading): Found {
  return {
    bridges: reading.bridges.map((b) =>
      bridge(
        b,
        '',
        null,
        reading.paths.filter((p) => p.bridges.includes(b)).map((p) => `${p.gpu}↔${p.nic}`),
      ),
    ),
    nothing: null,
    notes: [
      t(
        '{0}: the current ACSCtl of these bridges is not known. The script reads each one first (as root) and writes only where it is not 0000; a bridge without ACS is skipped.',
        reading.unread ?? '',
      ),
    ],
  };
}

function bridge(d: PciDevice, description: string, before: string | null, pairs: string[]): AcsBridge {
  return { bdf: d.bdf, description: description.replace(/ \(prog-if.*$/, ''), before, pairs, target: pciTarget(d) };
}

const hex = (w: number) => w.toString(16).padStart(4, '0');

function undoLines(bridges: readonly AcsBridge[], fixId: AcsPlanInput['fixId']): string[] {
  if (fixId === 'persist-acs')
    return [
      [
        `rm ${ACS_WANTS} ${ACS_UNIT} ${ACS_BOOT_SCRIPT}; systemctl daemon-reload (boot unit)`,
        "or remove pci=disable_acs_redir=… from the files shown (kernel parameter); the next boot keeps the firmware's and kernel's ACS settings",
      ].join(', '),
    ];
  const known = bridges.filter((b) => b.before !== null);
  return [
    'A reboot restores the ACS settings of the firmware and kernel.',
    ...(known.length > 0 ? [`Now: ${known.map((b) => `setpci -s ${b.bdf} ECAP_ACS+0x6.w=${b.before}`).join('; ')} (as root)`] : []),
  ];
}

function describe(bridges: readonly AcsBridge[]): string {
  return bridges
    .map((b) => `${b.bdf}${b.before !== null ? ` (ACSCtl ${b.before})` : ''}${b.pairs.length > 0 ? ` on ${b.pairs.join(', ')}` : ''}`)
    .join('; ');
}

function planDisable(input: AcsPlanInput, base: Base, acs: NonNullable<FixPlan['acs']>, privilege: Privilege, notes: string[]): FixPlan {
  const bdfs = acs.bridges.map((b) => b.bdf);
  const force = input.force === true;
  const title =
    bdfs.length > 1
      ? t('turn off ACS on {0} bridges (setpci -s <bdf> ECAP_ACS+0x6.w=0000)', bdfs.length)
      : t('turn off ACS on 1 bridge (setpci -s <bdf> ECAP_ACS+0x6.w=0000)');
  return readyPlan(input, base, acs, privilege, {
    step: {
      kind: 'acs',
      title,
      script: disableAcsScript(
        acs.bridges.map((b) => b.target),
        force,
      ),
    },
    notes: [
      ...notes,
      ...(force ? [t('--force: goes on even where processes hold the GPUs or RDMA devices (they are listed).')] : [holdersNote()]),
      t(
        'Before writing, each bridge is checked to be the same device at the same place (sysfs path from the root port, vendor:device); setpci and lspci are used only from root-owned system directories.',
      ),
      t('Lost at the next reboot: persist-acs makes it durable (the kernel parameter pci=disable_acs_redir=, or a checked boot unit).'),
    ],
    summary: t(
      'Write 0000 to ACS Control of {0}, {1}; then read ACSCtl back with lspci -vvv.',
      describe(acs.bridges),
      privilegeText(privilege, input.user),
    ),
  });
}
