// Every RDMA port of a host, from ibv_devinfo when it ran, else from the sysfs read (the same kernel
// attributes: /sys/class/infiniband/<dev>/ports/<n>/{state,link_layer,rate}). One reading for the
// NCCL model, the Hosts tree and the findings, so a host without ibv_devinfo still shows its NICs.
import { linkLayer, portRateGbps, portState } from '../parsers/ibvDevinfoFields';
import type { PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { HostPort } from '../topology/nccl/model';
import { factOf } from './evidence';

export interface RdmaPortView extends HostPort {
  /** The state's name as the kernel prints it (`ACTIVE`, `DOWN`, `INIT`…); null when not read. */
  readonly state: string | null;
  readonly source: 'ibv' | 'pci-sysfs';
}

/** ibv_devinfo's order is libibverbs' device list, which NCCL walks; sysfs fills in what it lacks. Null: neither read. */
export function rdmaPorts(report: ProbeReport): RdmaPortView[] | null {
  const ibv = factOf(report, 'ibv');
  const sysfs = factOf(report, 'pci-sysfs') ?? null;
  if (ibv) {
    return ibv.devices.flatMap((d) =>
      d.ports.map((p): RdmaPortView => {
        const state = portState(p);
        const rate = portRateGbps(p) ?? sysfsRate(sysfs, d.hca_id, p.port);
        return {
          device: d.hca_id,
          port: p.port,
          state,
          active: state === null ? null : state === 'ACTIVE',
          linkLayer: layerOf(linkLayer(p) ?? ''),
          speedMbps: rate === null ? null : rate * 1000,
          source: 'ibv',
        };
      }),
    );
  }
  if (!sysfs || sysfs.rdma.length === 0) return null;
  return sysfs.rdma.flatMap((d) =>
    d.ports.map((p): RdmaPortView => {
      const rate = rateGbps(p.rate);
      return {
        device: d.name,
        port: p.port,
        state: p.state === '' ? null : p.state,
        active: p.state === '' ? null : p.state === 'ACTIVE',
        linkLayer: layerOf(p.linkLayer),
        speedMbps: rate === null ? null : rate * 1000,
        source: 'pci-sysfs',
      };
    }),
  );
}

function layerOf(layer: string): HostPort['linkLayer'] {
  return layer === 'InfiniBand' ? 'IB' : layer === 'Ethernet' ? 'RoCE' : layer === '' ? null : 'other';
}

function sysfsRate(sysfs: PciSysfs | null, device: string, port: number): number | null {
  return rateGbps(sysfs?.rdma.find((d) => d.name === device)?.ports.find((p) => p.port === port)?.rate ?? '');
}

/** `400 Gb/sec (4X NDR)` → 400. */
function rateGbps(rate: string): number | null {
  const m = /^(\d+(?:\.\d+)?) Gb\/sec/.exec(rate.trim());
  return m ? Number(m[1]) : null;
}
