// Error counters behind a good-looking link, read without root and twice a second apart by the probe
// (pciSysfs.ts):
// - `pcie.aer-errors`: PCIe Advanced Error Reporting totals of the GPUs, NICs and bridges on the GPU↔NIC
//   paths (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats: aer_dev_correctable, _fatal,
//   _nonfatal). An uncorrectable error (fatal or non-fatal) lost or poisoned a transaction: a warning at
//   any count. Correctable ones were replayed by the link layer, each replay costing bandwidth: a warning
//   while the count grows, information when it only shows the past.
// - `ib.port-errors`: InfiniBand/RoCE port counters (Documentation/ABI/testing/sysfs-class-infiniband:
//   symbol_error, link_error_recovery, link_downed, port_rcv_errors) of the ports NCCL uses: a marginal
//   cable or transceiver shows here first. Growing: a warning; a count since boot alone: information.
import type { AerCounts, CounterReading, PciDevice, PortCounts } from '../probe/pciSysfs';
import { PORT_COUNTERS } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { Finding } from './finding';
import { gpuFacts } from './gpuFacts';
import { GpuNicPair } from './pairs';
import { PairPath } from './pciePaths';
import { t } from '../l10n';

const AER_SOURCE =
  'Linux Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats (aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal); PCI Express Base Specification, Advanced Error Reporting';
const IB_SOURCE =
  'Linux Documentation/ABI/testing/sysfs-class-infiniband (ports/<n>/counters); InfiniBand Architecture Specification, PortCounters';

const grew = (now: number | null, later: number | null | undefined) => now !== null && later !== null && later !== undefined && later > now;

interface AerDevice {
  readonly device: PciDevice;
  readonly role: string;
  readonly reading: CounterReading<AerCounts>;
}

/** The GPUs, NICs and bridges of the paths that have AER counters, each once with its role. */
function aerDevices(report: ProbeReport, paths: readonly PairPath[]): AerDevice[] {
  const sysfs = factOf(report, 'pci-sysfs');
  if (!sysfs?.aer) return [];
  const byBdf = new Map([...sysfs.devices.values()].map((d) => [d.bdf, d]));
  const names = new Map(gpuFacts(report, sysfs).map((g) => [g.busId, g.name]));
  const roles = new Map<string, string>();
  for (const p of paths) {
    roles.set(p.gpuBdf, names.get(p.gpuBdf) ?? 'GPU');
    roles.set(p.nicBdf, p.nic);
    for (const b of p.bridges) if (!roles.has(b.bdf)) roles.set(b.bdf, 'bridge');
  }
  return [...roles].flatMap(([bdf, role]) => {
    const device = byBdf.get(bdf);
    const reading = device ? sysfs.aer?.get(device.path) : undefined;
    return device && reading ? [{ device, role, reading }] : [];
  });
}

function aerText(a: AerDevice): string {
  const { now, later } = a.reading;
  const growth = grew(now.correctable, later?.correctable) ? t(' (growing: {0} a second later)', later?.correctable ?? '?') : '';
  return t(
    '{0} {1}: {2} correctable{3}, {4} fatal, {5} non-fatal',
    a.role,
    a.device.bdf,
    now.correctable ?? '?',
    growth,
    now.fatal ?? '?',
    now.nonfatal ?? '?',
  );
}

/** The sysfs counters of one device as read (quoted evidence: not translated). */
function aerEvidence(a: AerDevice): string {
  const { now, later } = a.reading;
  const then = later ? ` (then ${later.correctable ?? '?'})` : '';
  const correctable = `TOTAL_ERR_COR ${now.correctable ?? '?'}${then}`;
  return `/sys/bus/pci/devices/${a.device.bdf}/aer_dev_*: ${correctable}, TOTAL_ERR_FATAL ${now.fatal ?? '?'}, TOTAL_ERR_NONFATAL ${now.nonfatal ?? '?'}`;
}

export function aerFindings(report: ProbeReport, paths: readonly PairPath[]): Finding[] {
  const noisy = aerDevices(report, paths).filter(
    (a) => (a.reading.now.correctable ?? 0) + (a.reading.now.fatal ?? 0) + (a.reading.now.nonfatal ?? 0) > 0,
  );
  if (noisy.length === 0) return [];
  const serious = noisy.filter(
    (a) => (a.reading.now.fatal ?? 0) + (a.reading.now.nonfatal ?? 0) > 0 || grew(a.reading.now.correctable, a.reading.later?.correctable),
  );
  return [
    {
      id: 'pcie.aer-errors',
      severity: serious.length > 0 ? 'warning' : 'info',
      title: t('PCIe errors (AER) on the GPU↔NIC paths: {0}', noisy.map((a) => `${a.role} ${a.device.bdf}`).join(', ')),
      detail: `${noisy.map(aerText).join('; ')}. ${t(
        'Correctable errors are replayed by the link layer, each replay costing bandwidth; a count that grows while the host is read points at signal integrity (riser, slot, cable, a link trained too fast). Uncorrectable (fatal, non-fatal) errors lost or poisoned a transaction. Look for "AER:" lines in dmesg, reseat the card, and compare with the other nodes (the fleet view shows which differ).',
      )}`,
      evidence: noisy.slice(0, 6).map(aerEvidence),
      fixes: [],
      source: AER_SOURCE,
    },
  ];
}

function portText(name: string, r: CounterReading<PortCounts>): string {
  return PORT_COUNTERS.filter((c) => (r.now[c] ?? 0) > 0)
    .map((c) => `${c} ${r.now[c]}${grew(r.now[c], r.later?.[c]) ? ` → ${r.later?.[c]}` : ''}`)
    .join(', ')
    .replace(/^/, `${name}: `);
}

export function ibCounterFindings(report: ProbeReport, pairs: readonly GpuNicPair[]): Finding[] {
  const counters = factOf(report, 'pci-sysfs')?.portCounters;
  if (!counters) return [];
  const wanted = new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}`)));
  const ports = [...counters].filter(([name]) => wanted.size === 0 || wanted.has(name));
  const noisy = ports.filter(([, r]) => PORT_COUNTERS.some((c) => (r.now[c] ?? 0) > 0));
  if (noisy.length === 0) return [];
  const growing = noisy.filter(([, r]) => PORT_COUNTERS.some((c) => grew(r.now[c], r.later?.[c])));
  return [
    {
      id: 'ib.port-errors',
      severity: growing.length > 0 ? 'warning' : 'info',
      title:
        growing.length > 0
          ? t('RDMA port error counters growing: {0}', growing.map(([n]) => n).join(', '))
          : t('RDMA port error counters not zero (since boot or the last reset): {0}', noisy.map(([n]) => n).join(', ')),
      detail: `${noisy.map(([n, r]) => portText(n, r)).join('; ')}. ${t(
        'symbol_error and link_error_recovery count bad symbols and link retrains (a marginal cable, transceiver or switch port), port_rcv_errors bad packets received, link_downed the times the link went down. A count that grows while the host is read is a fault now; one that stays may be old. Compare with the other nodes and the switch side (perfquery, ibqueryerrors), and replace the cable or transceiver.',
      )}`,
      evidence: noisy
        .slice(0, 6)
        .map(
          ([n, r]) =>
            `/sys/class/infiniband/${n.replace(':', '/ports/')}/counters: ${PORT_COUNTERS.map((c) => `${c} ${r.now[c] ?? '?'}`).join(', ')}`,
        ),
      fixes: [],
      source: IB_SOURCE,
    },
  ];
}
