// CONSTRUCTED sysfs trees for the model's unit tests: not outputs of any machine, but laid out as Linux
// lays out /sys/devices (pci<domain>:<bus>/<root port>/<switch ports…>/<device>), with the addresses of the
// real machines each test names. Every ancestor of a listed device is a PCI bridge (class 0x060400) on the
// device's NUMA node unless listed itself.
import type { PciDevice, PciSysfs, RdmaPort } from '../../../../src/core/probe/pciSysfs';

export interface DeviceSpec {
  readonly path: string;
  readonly class?: string;
  readonly numa?: number;
  /** Link speed and width of the device (max and current alike). */
  readonly speed?: string;
  readonly width?: number;
}

export interface RdmaSpec {
  readonly name: string;
  readonly path: string;
  readonly numa?: number;
  readonly fwVer?: string;
  readonly ports: readonly Partial<RdmaPort>[];
}

const GEN5 = '32.0 GT/s PCIe';

export function constructedSysfs(gpus: readonly DeviceSpec[], rdma: readonly RdmaSpec[], others: readonly DeviceSpec[] = []): PciSysfs {
  const devices = new Map<string, PciDevice>();
  const add = (spec: DeviceSpec, defaultClass: string) => {
    const parts = spec.path.split('/');
    for (let i = 4; i <= parts.length; i++) {
      const path = parts.slice(0, i).join('/');
      const leaf = i === parts.length;
      if (!leaf && devices.has(path)) continue;
      devices.set(path, device(path, leaf ? (spec.class ?? defaultClass) : '0x060400', spec, leaf));
    }
  };
  for (const d of others) add(d, '0x060400');
  for (const g of gpus) add(g, '0x030200');
  for (const r of rdma) add({ path: r.path, numa: r.numa ?? 0 }, '0x020000');
  return {
    rdma: rdma.map((r) => ({
      name: r.name,
      path: r.path,
      fwVer: r.fwVer ?? null,
      ports: r.ports.map((p, i) => ({
        port: i + 1,
        state: 'ACTIVE',
        linkLayer: 'InfiniBand',
        rate: '400 Gb/sec (4X NDR)',
        gids: [],
        ...p,
      })),
    })),
    nvidia: gpus.map((g) => g.path),
    devices,
  };
}

function device(path: string, cls: string, spec: DeviceSpec, leaf: boolean): PciDevice {
  const speed = leaf ? (spec.speed ?? GEN5) : GEN5;
  const width = leaf ? (spec.width ?? 16) : 16;
  return {
    path,
    bdf: path.slice(path.lastIndexOf('/') + 1),
    class: cls,
    vendor: cls.startsWith('0x03') ? '0x10de' : '0x15b3',
    device: '0x0000',
    numaNode: spec.numa ?? 0,
    maxLinkSpeed: speed,
    maxLinkWidth: width,
    currentLinkSpeed: speed,
    currentLinkWidth: width,
  };
}

/** What the probe's `pci-sysfs` script prints for such a tree (src/core/probe/pciSysfs.ts): RDMA devices, then GPUs. */
export function pciSysfsText(sysfs: PciSysfs): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  const emit = (path: string) => {
    for (let p = path; /\/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(p) && !seen.has(p); p = p.slice(0, p.lastIndexOf('/'))) {
      seen.add(p);
      const d = sysfs.devices.get(p);
      const f = d
        ? [
            d.class,
            d.vendor,
            d.device,
            String(d.numaNode),
            d.maxLinkSpeed,
            String(d.maxLinkWidth),
            d.currentLinkSpeed,
            String(d.currentLinkWidth),
          ]
        : ['', '', '', '', '', '', '', ''];
      lines.push(['pci', p, ...f].join('\t'));
    }
  };
  for (const r of sysfs.rdma) {
    lines.push(['ib', r.name, r.path, r.fwVer ?? ''].join('\t'));
    for (const p of r.ports) {
      lines.push(['port', r.name, String(p.port), `${p.state === 'ACTIVE' ? 4 : 1}: ${p.state}`, p.linkLayer, p.rate].join('\t'));
      for (const g of p.gids)
        lines.push(
          [
            'gid',
            r.name,
            String(p.port),
            String(g.index),
            g.gid,
            g.roceVersion === 2 ? 'RoCE v2' : g.roceVersion === 1 ? 'IB/RoCE v1' : '',
            g.netdev ?? '',
          ].join('\t'),
        );
    }
    emit(r.path);
  }
  for (const g of sysfs.nvidia) {
    lines.push(['gpu', g].join('\t'));
    emit(g);
  }
  return `${lines.join('\n')}\n`;
}
