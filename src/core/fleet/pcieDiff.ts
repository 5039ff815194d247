// The PCIe and NIC aspects a fleet is compared on (differences.ts): `fleet.firmware-differs` (an RDMA
// device's fw_ver, /sys/class/infiniband/<dev>/fw_ver), `fleet.link-width-differs` (a GPU's or NIC's
// trained PCIe width, current_link_width in sysfs), `fleet.acs-differs` (which bridges of the GPU↔NIC
// paths redirect peer traffic, lspci ACSCtl) and `fleet.ib-rate-differs` (an active InfiniBand port's
// trained rate). One node with older NIC firmware, a card at x8, ACS left on or a port at half its lanes
// is the odd one out of every job it joins, even where its own diagnosis looks fine.
import { readAcs } from '../diagnosis/acs';
import { factOf } from '../diagnosis/evidence';
import { Finding, SOURCES } from '../diagnosis/finding';
import { gpuFacts } from '../diagnosis/gpuFacts';
import { ibPortRates } from '../diagnosis/ibRate';
import { FleetAspect } from './differences';
import { t } from '../l10n';

/** Title and detail are functions: the words are translated when a finding is made, not when this module loads. */
function finding(
  id: string,
  title: () => string,
  detail: () => string,
  source: string,
): (host: string, evidence: string[], total: number) => Finding {
  return (host, evidence, total) => ({
    id,
    severity: 'warning',
    title: title(),
    evidence,
    fixes: [],
    source,
    detail: `${t('{0} differs from what most of the {1} hosts compared show.', host, total)} ${detail()}`,
  });
}

const FIRMWARE: FleetAspect = {
  id: 'fleet.firmware-differs',
  signature: (report) => {
    const sysfs = factOf(report, 'pci-sysfs');
    const devices = (sysfs?.rdma ?? []).filter((d) => d.fwVer !== null);
    return devices.length === 0 ? undefined : new Map(devices.map((d) => [`fw ${d.name}`, d.fwVer as string]));
  },
  line: (key, here, usual, on) =>
    `/sys/class/infiniband/${key.slice(3)}/fw_ver: ${here ?? '(absent)'} here, ${usual ?? '(absent)'} on ${on}`,
  finding: finding(
    'fleet.firmware-differs',
    () => t('NIC firmware differs from the other hosts'),
    () =>
      t(
        "NICs of one fleet should run the same firmware: mixed releases behave differently (link training, RoCE congestion control, GPUDirect and ATS support) and make one node the slow or failing member of every job. Update it with the NIC vendor's tool (mlxfwmanager / mstflint for ConnectX) to the fleet's release.",
      ),
    'NVIDIA ConnectX firmware release notes; /sys/class/infiniband/<dev>/fw_ver',
  ),
};

const LINK_WIDTH: FleetAspect = {
  id: 'fleet.link-width-differs',
  signature: (report) => {
    const sysfs = factOf(report, 'pci-sysfs');
    if (!sysfs) return undefined;
    const names = new Map(gpuFacts(report, sysfs).map((g) => [g.busId, g.name]));
    const sig = new Map<string, string>();
    for (const p of sysfs.nvidia) {
      const d = sysfs.devices.get(p);
      if (d?.class.startsWith('0x03') && d.currentLinkWidth !== null)
        sig.set(`width ${names.get(d.bdf) ?? d.bdf}`, `x${d.currentLinkWidth}`);
    }
    for (const r of sysfs.rdma) {
      const d = sysfs.devices.get(r.path);
      if (d?.currentLinkWidth !== null && d?.currentLinkWidth !== undefined) sig.set(`width ${r.name}`, `x${d.currentLinkWidth}`);
    }
    return sig.size === 0 ? undefined : sig;
  },
  line: (key, here, usual, on) => `current_link_width of ${key.slice(6)}: ${here ?? '(absent)'} here, ${usual ?? '(absent)'} on ${on}`,
  finding: finding(
    'fleet.link-width-differs',
    () => t('A PCIe link width differs from the other hosts'),
    () =>
      t(
        'The same GPU or NIC trains to the same width on identical nodes; fewer lanes here cap its transfers, GPUDirect RDMA included (see pcie.link-degraded). Reseat the card or riser and check the slot against a healthy node.',
      ),
    'Linux Documentation/ABI/testing/sysfs-bus-pci (current_link_width)',
  ),
};

// Keyed by bridge, not by GPU↔NIC pair: which pairs NCCL uses can differ for other reasons (a GPU at
// x8 sends through an NVLink peer, PXN), and that is not an ACS difference.
const redirectsText = (v: string | undefined) => (v ? 'redirects' : 'does not redirect');

const ACS: FleetAspect = {
  id: 'fleet.acs-differs',
  signature: (report, diagnosis) => {
    const reading = diagnosis ? readAcs(report, diagnosis.pairs) : null;
    if (!reading || reading.unread !== null || reading.paths.length === 0) return undefined;
    return new Map(reading.redirecting.map((r) => [`acs ${r.bridge.bdf}`, 'redirects']));
  },
  line: (key, here, usual, on) =>
    `ACS of bridge ${key.slice(4)} (lspci ACSCtl): ${redirectsText(here)} here, ${redirectsText(usual)} on ${on}`,
  finding: finding(
    'fleet.acs-differs',
    () => t('ACS on the GPU↔NIC paths differs from the other hosts'),
    () =>
      t(
        'Where most nodes let GPU↔NIC traffic cross the PCIe switch directly, this one redirects it to the root complex (or the other way round): a BIOS setting, a kernel command line (IOMMU) or a boot-time unit differs. See pcie.acs-enabled on the hosts that redirect.',
      ),
    `${SOURCES.ncclTroubleshooting}; pciutils ls-ecaps.c (ACSCtl)`,
  ),
};

// The rate each active InfiniBand port trained to: a port slower than on most nodes is the fleet's
// ib.link-degraded, also where every port of its host is slow alike (one host, one cable type).
const IB_RATE: FleetAspect = {
  id: 'fleet.ib-rate-differs',
  signature: (report) => {
    const ports = ibPortRates(report).filter((p) => p.gbps !== null);
    return ports.length === 0 ? undefined : new Map(ports.map((p) => [`rate ${p.name}`, p.label]));
  },
  line: (key, here, usual, on) => `${key.slice(5)}: ${here ?? '(not active)'} here, ${usual ?? '(not active)'} on ${on}`,
  finding: finding(
    'fleet.ib-rate-differs',
    () => t('An InfiniBand port rate differs from the other hosts'),
    () =>
      t(
        'The same port of identical nodes trains to the same width and speed; a slower one here (fewer lanes, a lower generation) points at its cable, transceiver or switch port and makes this node the slow member of every job. Compare ibstat with a healthy node and reseat or replace the cable.',
      ),
    `${SOURCES.rdmaCore}; Linux drivers/infiniband/core/sysfs.c (rate_show)`,
  ),
};

// Which devices and ports show errors (pcie.aer-errors, ib.port-errors): in a fleet, the nodes whose
// counters are not zero where most nodes' are — the outliers a single host's view cannot rank.
const ERRORS: FleetAspect = {
  id: 'fleet.errors-differ',
  signature: (report) => {
    const sysfs = factOf(report, 'pci-sysfs');
    if (!sysfs?.aer && !sysfs?.portCounters) return undefined;
    if ((sysfs.aer?.size ?? 0) === 0 && (sysfs.portCounters?.size ?? 0) === 0) return undefined;
    const sig = new Map<string, string>();
    for (const [p, r] of sysfs.aer ?? [])
      if ((r.now.correctable ?? 0) + (r.now.fatal ?? 0) + (r.now.nonfatal ?? 0) > 0)
        sig.set(`aer ${p.slice(p.lastIndexOf('/') + 1)}`, 'errors');
    for (const [port, r] of sysfs.portCounters ?? []) if (Object.values(r.now).some((v) => (v ?? 0) > 0)) sig.set(`port ${port}`, 'errors');
    return sig;
  },
  line: (key, here, usual, on) => {
    const counters = key.startsWith('aer ') ? `AER of ${key.slice(4)}` : `error counters of ${key.slice(5)}`;
    return `${counters}: ${here ? 'errors' : 'none'} here, ${usual ? 'errors' : 'none'} on ${on}`;
  },
  finding: finding(
    'fleet.errors-differ',
    () => t('PCIe or RDMA port error counters differ from the other hosts'),
    () =>
      t(
        "Identical nodes read the same: zero. Here a GPU↔NIC path's AER counters or a port's error counters are not (or they are zero where the other nodes' are not): see pcie.aer-errors and ib.port-errors on the hosts that have them.",
      ),
    'Linux Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats; Documentation/ABI/testing/sysfs-class-infiniband',
  ),
};

export const PCIE_ASPECTS: readonly FleetAspect[] = [FIRMWARE, LINK_WIDTH, ACS, IB_RATE, ERRORS];
