// `pcie.acs-enabled` and `pcie.acs-unread` (docs/platform.md §3): Access Control Services on the
// bridges between each GPU and the NIC NCCL gives it. A downstream port with P2P Request Redirect,
// Completion Redirect or Egress Control on (ACSCtl ReqRedir+/CmpltRedir+/EgressCtrl+, pciutils
// ls-ecaps.c cap_acs) sends the pair's peer traffic up to the root complex instead of across the
// switch (NCCL Troubleshooting, "PCI Access Control Services (ACS)"). Linux turns those bits on when an
// IOMMU is active (drivers/pci/pci.c pci_std_enable_acs). In a VM, or on a host passing devices to VMs,
// they are required (rdma-core kernel-boot/rdma_topo, compute_acs with virt): said, not fixed.
import type { LspciDevice } from '../parsers/lspci';
import { ACS_FLAGS, redirects } from '../parsers/lspci';
import { acsReadCommand } from '../probe/pciAcs';
import type { PciDevice } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf, labelOf } from './evidence';
import { Finding, SOURCES } from './finding';
import { IommuState, iommuState, passthroughAdvice, passthroughShown } from './iommu';
import { GpuNicPair } from './pairs';
import { PairPath, pairLabel, pairPaths, pathBridges } from './pciePaths';
import { VirtState, isolationRequired } from './virt';
import { t } from '../l10n';
import { acsPathsNote } from './acsPaths';

const SOURCE = `${SOURCES.ncclTroubleshooting}; pciutils ls-ecaps.c (ACSCtl); Linux drivers/pci/pci.c pci_std_enable_acs; rdma-core kernel-boot/rdma_topo`;

/** A bridge on a GPU↔NIC path whose ACS sends peer traffic to the root complex, with the pairs that cross it. */
export interface RedirectingBridge {
  readonly bridge: PciDevice;
  readonly lspci: LspciDevice;
  readonly pairs: string[];
}

export interface AcsReading {
  readonly paths: PairPath[];
  /** Bridges on the paths NCCL uses below a common root: the ones whose ACS matters. */
  readonly bridges: PciDevice[];
  readonly redirecting: RedirectingBridge[];
  /** Every bridge of the paths whose lspci lists an ACS capability, redirecting or not. */
  readonly capable: RedirectingBridge[];
  /** ACS could not be read: why (no root and sudo asks a password, lspci missing); null when it was. */
  readonly unread: string | null;
}

/** What the probe knows of ACS on the GPU↔NIC paths; null without a sysfs tree or without the pci-acs section. */
export function readAcs(report: ProbeReport, pairs: readonly GpuNicPair[]): AcsReading | null {
  const acs = factOf(report, 'pci-acs');
  const paths = pairPaths(report, pairs).filter((p) => p.sameRoot && p.bridges.length > 0);
  if (!acs || factOf(report, 'pci-sysfs') === undefined) return null;
  const bridges = pathBridges(paths);
  if (acs.via === 'none')
    return {
      paths,
      bridges,
      redirecting: [],
      capable: [],
      unread: `lspci needs root to read ACS, and sudo -n did not run it (${acs.why ?? 'no reason given'})`,
    };
  if (acs.via === 'missing') return { paths, bridges, redirecting: [], capable: [], unread: 'lspci is not installed (package pciutils)' };
  const capable = bridges.flatMap((bridge) => {
    const lspci = acs.devices.get(bridge.bdf);
    if (!lspci?.acs?.ctl) return [];
    return [{ bridge, lspci, pairs: paths.filter((p) => p.bridges.some((b) => b.bdf === bridge.bdf)).map(pairLabel) }];
  });
  return { paths, bridges, redirecting: capable.filter((c) => c.lspci.acs?.ctl && redirects(c.lspci.acs.ctl)), capable, unread: null };
}

export function acsFindings(report: ProbeReport, pairs: readonly GpuNicPair[], virt: VirtState): Finding[] {
  const reading = readAcs(report, pairs);
  const endpoints = reading ? reading.paths.flatMap((p) => [p.gpuBdf, p.nicBdf]) : [];
  const iommu = iommuState(report, endpoints);
  if (!reading) return inferredAcs(pairs, iommu);
  // In a VM the bridges are the hypervisor's and ACS stays anyway: platform.virtual-machine says so.
  if (reading.unread !== null) return reading.bridges.length > 0 && !isolationRequired(virt) ? [unreadFinding(reading)] : [];
  if (reading.redirecting.length === 0) return [];
  return [isolationRequired(virt) ? requiredFinding(report, reading, virt) : redirectFinding(report, reading)];
}

/** `GPU0↔mlx5_0 via 0000:17:01.0, 0000:17:02.0; …` and, once each, the kinds of bridge and the bits they have on. */
export function redirectText(reading: AcsReading): string {
  const byPair = new Map<string, string[]>();
  for (const r of reading.redirecting) for (const p of r.pairs) byPair.set(p, [...(byPair.get(p) ?? []), r.bridge.bdf]);
  const kinds = [...new Set(reading.redirecting.map((r) => r.lspci.description.replace(/ \(prog-if.*$/, '').replace(/^PCI bridge: /, '')))];
  const bits = [...new Set(reading.redirecting.map((r) => ACS_FLAGS.filter((f) => r.lspci.acs?.ctl?.[f]).join(' ')))];
  return `${[...byPair].map(([pair, bdfs]) => `${pair} via ${bdfs.join(', ')}`).join('; ')} (${kinds.join('; ')}; ACSCtl on: ${bits.join(' / ')})`;
}

function evidence(report: ProbeReport, reading: AcsReading): string[] {
  const label = labelOf(report, 'pci-acs');
  return reading.redirecting.slice(0, 4).map((r) => `${label.replace('<bdf>', r.bridge.bdf)}: ${r.lspci.acs?.ctlLine ?? ''}`);
}

function redirectFinding(report: ProbeReport, reading: AcsReading): Finding {
  const n = reading.redirecting.length;
  const proof = passthroughShown(
    report,
    reading.paths.flatMap((p) => [p.gpuBdf, p.nicBdf]),
  );
  return {
    id: 'pcie.acs-enabled',
    severity: 'warning',
    title:
      n > 1
        ? t('ACS redirects GPU↔NIC traffic to the root complex on {0} bridges', n)
        : t('ACS redirects GPU↔NIC traffic to the root complex on 1 bridge'),
    detail: [
      t(
        'Access Control Services on the bridges of {0} send each peer-to-peer packet between the GPU and its NIC up to the CPU\'s root complex instead of across the switch, which costs bandwidth or hangs (NCCL troubleshooting, "PCI Access Control Services"; Linux enables these bits when an IOMMU is active, drivers/pci/pci.c pci_std_enable_acs).',
        redirectText(reading),
      ),
      !proof.shown
        ? t(
            'IOMMU passthrough is not shown ({0}): turning ACS off while the IOMMU translates would send peer packets with I/O virtual addresses a switch cannot route. First boot with {1}, then disable ACS.',
            proof.why,
            passthroughAdvice(report),
          )
        : t(
            'On bare metal disable ACS in the BIOS, or with the quick fix disable-acs (setpci on exactly these bridges; lost at reboot) and persist-acs (a boot-time systemd unit).',
          ),
      acsPathsNote(reading.paths),
    ].join(' '),
    evidence: evidence(report, reading),
    // The fixes refuse without passthrough shown (acsPlan.ts): not offered until then.
    fixes: proof.shown ? ['disable-acs', 'persist-acs'] : [],
    source: SOURCE,
  };
}

function requiredFinding(report: ProbeReport, reading: AcsReading, virt: VirtState): Finding {
  const why = virt.guest.length > 0 ? t('This host is a virtual machine') : t('This host passes devices through to virtual machines');
  return {
    id: 'pcie.acs-enabled',
    severity: 'info',
    title: t('ACS redirects GPU↔NIC traffic, as device isolation requires here'),
    detail: t(
      "{0} ({1}): ACS keeps the devices of different guests apart, so it stays on. It redirects peer traffic on {2}. GPUDirect RDMA then relies on Address Translation Services (ATS) on the NIC, as rdma-core's rdma_topo configures virtualised systems; do not turn ACS off here.",
      why,
      [...virt.guest, ...virt.hostsGuests].join('; '),
      redirectText(reading),
    ),
    evidence: [...evidence(report, reading), ...virt.guest.slice(0, 1), ...virt.hostsGuests.slice(0, 1)],
    fixes: [],
    source: SOURCE,
  };
}

function unreadFinding(reading: AcsReading): Finding {
  const bdfs = reading.bridges.map((b) => b.bdf);
  return {
    id: 'pcie.acs-unread',
    severity: 'info',
    title:
      bdfs.length > 1
        ? t('ACS of {0} bridges between GPUs and NICs could not be read', bdfs.length)
        : t('ACS of 1 bridge between GPUs and NICs could not be read'),
    detail: `${t(
      '{0}, so whether Access Control Services redirect GPU↔NIC traffic on {1} (on {2}) is unknown. Run, as a user who may use sudo: {3}  — "ReqRedir+" or "CmpltRedir+" in ACSCtl means the bridge redirects peer traffic (NCCL troubleshooting, "PCI Access Control Services").',
      unreadText(reading.unread ?? ''),
      bdfs.join(', '),
      reading.paths.map(pairLabel).join(', '),
      acsReadCommand(bdfs),
    )} ${acsPathsNote(reading.paths)}`,
    evidence: [`lspci -vvv (as root): (${reading.unread})`],
    fixes: [],
    source: SOURCE,
  };
}

/** Why ACS was not read, in the reader's language (the evidence keeps readAcs's English words). */
function unreadText(unread: string): string {
  const noRoot = /^lspci needs root to read ACS, and sudo -n did not run it \((.*)\)$/s.exec(unread);
  if (noRoot)
    return t(
      'lspci needs root to read ACS, and sudo -n did not run it ({0})',
      noRoot[1] === 'no reason given' ? t('no reason given') : noRoot[1],
    );
  return unread === 'lspci is not installed (package pciutils)' ? t('lspci is not installed (package pciutils)') : unread;
}

/** Without the tree or the lspci section: the old inference from an active IOMMU and a shared switch. */
function inferredAcs(pairs: readonly GpuNicPair[], iommu: IommuState | null): Finding[] {
  const sharing = pairs.filter((p) => p.ncclPath === 'PIX' || p.ncclPath === 'PXB');
  if (!iommu?.active || sharing.length === 0) return [];
  return [
    {
      id: 'pcie.acs-enabled',
      severity: 'warning',
      title: t('ACS is likely redirecting GPU↔NIC traffic through the CPU'),
      detail: t(
        'The IOMMU is active, and with it Linux enables Access Control Services on PCIe switch ports: peer traffic between {0} and the NIC on their switch is forced up to the root complex, which costs bandwidth or hangs. Confirm with `sudo lspci -vvv | grep ACSCtl` (ReqRedir+ = redirected). On bare metal disable ACS in the BIOS (setpci … ECAP_ACS+0x6.w=0000 does not survive a reboot); in a VM ACS may be deliberate, with ATS enabled.',
        sharing.map((p) => p.gpu).join(', '),
      ),
      evidence: iommu.evidence,
      fixes: [],
      source: `${SOURCES.ncclTroubleshooting}; ${SOURCES.cudaGdr}`,
    },
  ];
}

/** A mark per bridge that redirects peer traffic, for the topology graph (the panel's BridgeMark shape). */
export function acsMarks(
  report: ProbeReport,
  pairs: readonly GpuNicPair[],
  virt: VirtState,
): { bridge: string; label: string; explanation: string }[] {
  const reading = readAcs(report, pairs);
  const required = isolationRequired(virt);
  return (reading?.redirecting ?? []).map((r) => ({
    bridge: r.bridge.bdf,
    label: 'ACS',
    explanation: [
      t(
        '{0}: Access Control Services redirect peer-to-peer traffic of {1} to the root complex ({2}).',
        r.bridge.bdf,
        r.pairs.join(', '),
        r.lspci.acs?.ctlLine ?? 'ACSCtl',
      ),
      required
        ? t('Required here: this host is or serves virtual machines.')
        : t('See pcie.acs-enabled; the quick fix disable-acs turns it off on bare metal.'),
    ].join(' '),
  }));
}
