// `ib.link-degraded`: an active InfiniBand port trained below the rate its siblings show. A port's rate is
// lanes × per-lane speed (ibv_devinfo -v active_width × active_speed; sysfs `rate`, "100 Gb/sec (2X HDR)",
// drivers/infiniband/core/sysfs.c rate_show). 4X is not the yardstick: HDR100 and NDR200 ports (2X HDR,
// 2X NDR, a splitter cable's halves) are built that way. The rate a port should have is what the other
// active InfiniBand ports of the same part show — on this host here, across a fleet in the fleet view
// (fleet.ib-rate-differs) — so a port is degraded only where a port of the same adapter model runs faster.
import { activeSpeedGbps, activeWidthLanes, fieldText, linkLayer, portState } from '../parsers/ibvDevinfoFields';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { Finding, SOURCES } from './finding';
import { GpuNicPair } from './pairs';
import { t } from '../l10n';

export interface IbPortRate {
  /** `mlx5_3:1`. */
  readonly name: string;
  /** The adapter model: its PCI device id (`0x1021`; ibv_devinfo's vendor_part_id is the same number in decimal); null when unread. */
  readonly part: string | null;
  readonly lanes: number | null;
  readonly gbps: number | null;
  /** `2X HDR, 100 Gb/s` or `4X 25.0 Gbps, 100 Gb/s`: what the port trained to, in the host's own terms. */
  readonly label: string;
  readonly evidence: string;
}

/** `400 Gb/sec (4X NDR)` → 400, 4, `NDR`. */
function readRate(rate: string): { gbps: number; lanes: number | null; gen: string | null } | null {
  const m = /^(\d+(?:\.\d+)?) Gb\/sec(?: \((\d+)X(?: ([A-Z]+))?\))?/.exec(rate.trim());
  return m ? { gbps: Number(m[1]), lanes: m[2] ? Number(m[2]) : null, gen: m[3] ?? null } : null;
}

const hexPart = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;

/** Active InfiniBand ports with their rate: from ibv_devinfo -v where it ran, else from sysfs. */
export function ibPortRates(report: ProbeReport): IbPortRate[] {
  const ibv = factOf(report, 'ibv');
  if (ibv)
    return ibv.devices.flatMap((d) => {
      const part = /^\d+$/.test(fieldText(d, 'vendor_part_id') ?? '') ? hexPart(Number(fieldText(d, 'vendor_part_id'))) : null;
      return d.ports
        .filter((p) => linkLayer(p) !== 'Ethernet' && portState(p) === 'ACTIVE')
        .map((p) => {
          const [lanes, speed] = [activeWidthLanes(p), activeSpeedGbps(p)];
          const gbps = lanes === null || speed === null ? null : lanes * speed;
          const name = `${d.hca_id}:${p.port}`;
          const label = `${lanes ?? '?'}X ${speed ?? '?'} Gbps${gbps === null ? '' : `, ${gbps} Gb/s`}`;
          return {
            name,
            part,
            lanes,
            gbps,
            label,
            evidence: `ibv_devinfo -v: ${name} active_width: ${lanes ?? '?'}X, active_speed: ${speed ?? '?'} Gbps`,
          };
        });
    });
  const sysfs = factOf(report, 'pci-sysfs');
  return (sysfs?.rdma ?? []).flatMap((d) => {
    const id = sysfs?.devices.get(d.path)?.device ?? '';
    const part = /^0x[0-9a-f]+$/i.test(id) ? hexPart(parseInt(id, 16)) : null;
    return d.ports
      .filter((p) => p.linkLayer === 'InfiniBand' && p.state === 'ACTIVE')
      .map((p) => {
        const r = readRate(p.rate);
        const name = `${d.name}:${p.port}`;
        const label = r ? `${r.lanes ?? '?'}X${r.gen ? ` ${r.gen}` : ''}, ${r.gbps} Gb/s` : p.rate;
        return {
          name,
          part,
          lanes: r?.lanes ?? null,
          gbps: r?.gbps ?? null,
          label,
          evidence: `/sys/class/infiniband/${d.name}/ports/${p.port}/rate: ${p.rate}`,
        };
      });
  });
}

/** Ports below the fastest active InfiniBand port of the same part on this host, with that port. */
export function slowerThanSiblings(ports: readonly IbPortRate[]): { port: IbPortRate; best: IbPortRate }[] {
  return ports.flatMap((port) => {
    if (port.part === null || port.gbps === null) return [];
    const best = ports
      .filter((o) => o.part === port.part && o.gbps !== null)
      .reduce((a, b) => ((b.gbps as number) > (a.gbps as number) ? b : a), port);
    return (best.gbps as number) > port.gbps ? [{ port, best }] : [];
  });
}

export function ibRateFindings(report: ProbeReport, pairs: readonly GpuNicPair[]): Finding[] {
  const wanted = new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}`)));
  const slow = slowerThanSiblings(ibPortRates(report));
  // The ports NCCL uses, where it uses any of these; otherwise every slow port.
  const shown = slow.some((s) => wanted.has(s.port.name)) ? slow.filter((s) => wanted.has(s.port.name)) : slow;
  if (shown.length === 0) return [];
  return [
    {
      id: 'ib.link-degraded',
      severity: 'warning',
      title: t('InfiniBand port slower than the same adapters on this host: {0}', shown.map((s) => s.port.name).join(', ')),
      detail: t(
        '{0}. Ports of the same adapter model (PCI device {1}) train to the same rate on one host; a port at fewer lanes or a lower speed than its siblings points at a faulty cable, transceiver or switch port, and caps what NCCL gets from it. Compare with ibstat on the other nodes and reseat or replace the cable. Ports that are all 2X (HDR100, NDR200 splitter cables) are not flagged.',
        shown.map((s) => t('{0} at {1} where {2} runs {3}', s.port.name, s.port.label, s.best.name, s.best.label)).join('; '),
        [...new Set(shown.map((s) => s.port.part))].join(', '),
      ),
      evidence: shown.slice(0, 3).flatMap((s) => [s.port.evidence, s.best.evidence]),
      fixes: [],
      source: `${SOURCES.rdmaCore}; Linux drivers/infiniband/core/sysfs.c (rate_show)`,
    },
  ];
}
