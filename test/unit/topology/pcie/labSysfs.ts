// A lab profile's PCI tree (test/lab/profiles/<name>/sysfs.json, ASSEMBLED as the profiles' README says)
// as the probe's `pci-sysfs` command prints it over that tree (src/core/probe/pciSysfs.ts), parsed by the
// probe's own parser: what a diagnosis of that lab host reads, without starting the lab.
import * as path from 'node:path';
import { PciSysfs, parsePciSysfs } from '../../../../src/core/probe/pciSysfs';
import { readSysfsSpec } from '../../../lab/sysfs';

const ATTRS = ['class', 'vendor', 'device', 'numa_node', 'max_link_speed', 'max_link_width', 'current_link_speed', 'current_link_width'];

export function labSysfsText(profile: string): string {
  const spec = readSysfsSpec(path.join(__dirname, '../../../lab/profiles', profile, 'sysfs.json'));
  const pathOf = new Map(Object.keys(spec.pci).map((p) => [p.slice(p.lastIndexOf('/') + 1), `/sys/devices/${p}`]));
  const lines: string[] = [];
  const seen = new Set<string>();
  const emit = (device: string) => {
    for (let p = device; /\/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(p) && !seen.has(p); p = p.slice(0, p.lastIndexOf('/'))) {
      seen.add(p);
      const attrs = spec.pci[p.slice('/sys/devices/'.length)] ?? {};
      lines.push(['pci', p, ...ATTRS.map((a) => attrs[a] ?? '')].join('\t'));
    }
  };
  for (const [name, dev] of Object.entries(spec.infiniband ?? {})) {
    const p = pathOf.get(dev.pci) as string;
    lines.push(['ib', name, p].join('\t'));
    for (const [port, a] of Object.entries(dev.ports))
      lines.push(['port', name, port, a.state ?? '', a.link_layer ?? '', a.rate ?? ''].join('\t'));
    emit(p);
  }
  // The probe walks /sys/bus/pci/devices in name order, keeping NVIDIA display/3D controllers and NVSwitches.
  for (const [p, attrs] of Object.entries(spec.pci).sort(([a], [b]) =>
    a.slice(a.lastIndexOf('/')).localeCompare(b.slice(b.lastIndexOf('/'))),
  )) {
    if (attrs.vendor !== '0x10de' || !/^0x(03|0680)/.test(attrs.class ?? '')) continue;
    lines.push(['gpu', `/sys/devices/${p}`].join('\t'));
    emit(`/sys/devices/${p}`);
  }
  return `${lines.join('\n')}\n`;
}

export function labSysfs(profile: string): PciSysfs {
  const parsed = parsePciSysfs(labSysfsText(profile));
  if (!parsed.ok) throw new Error(`${profile}: ${parsed.error.message} (line ${parsed.error.line})`);
  return parsed.value;
}

/** The GPUs of a tree in NVML's default order (PCI bus order), named as nvidia-smi names them. */
export function labGpus(sysfs: PciSysfs): { name: string; busId: string }[] {
  return sysfs.nvidia
    .map((p) => sysfs.devices.get(p))
    .filter((d) => d !== undefined && d.class.startsWith('0x03'))
    .map((d) => d?.bdf as string)
    .sort()
    .map((busId, i) => ({ name: `GPU${i}`, busId }));
}
