// A profile's PCI tree, built as Linux lays it out in sysfs, into a folder that hostinit.sh copies over
// the host's private tmpfs /sys/devices, /sys/class and /sys/bus/pci/devices:
//   devices/pci<domain>:<bus>/<root port>/<bridge>/…/<bdf>/{class,vendor,device,numa_node,…}
//   devices/…/<bdf>/infiniband/<ibdev>/device -> ../../../<bdf>
//   devices/…/<bdf>/infiniband/<ibdev>/ports/<n>/{state,phys_state,link_layer,rate}
//   class/infiniband/<ibdev> -> ../../devices/…/<bdf>/infiniband/<ibdev>
//   bus/pci/devices/<bdf> -> ../../../devices/…/<bdf>
// The tree is data (profiles/<name>/sysfs.json), checked here so that a profile cannot describe a
// layout Linux would not make (a device whose parent bridge is missing, a link to nowhere).
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SysfsPort {
  [attribute: string]: string;
}

export interface SysfsRdmaDevice {
  /** The PCI function it belongs to (`0000:03:00.0`), a device of `pci`. */
  pci: string;
  /** /sys/class/infiniband/<dev>/fw_ver (`28.43.3608`). */
  fw_ver?: string;
  ports: Record<string, SysfsPort>;
}

export interface SysfsSpec {
  /** PCI devices by their path below /sys/devices (`pci0008:00/0008:00:00.0/0008:01:00.0`), each with its attribute files. */
  pci: Record<string, Record<string, string>>;
  /** RDMA devices by name (`mlx5_0`). */
  infiniband?: Record<string, SysfsRdmaDevice>;
}

/** Attribute files a PCI device of the tree may have (what Linux has and the probe or NCCL reads). */
const PCI_ATTRIBUTES = new Set([
  'class',
  'vendor',
  'device',
  'subsystem_vendor',
  'subsystem_device',
  'numa_node',
  'local_cpulist',
  'max_link_speed',
  'max_link_width',
  'current_link_speed',
  'current_link_width',
  // AER statistics (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats): one `<name> <count>` per line.
  'aer_dev_correctable',
  'aer_dev_fatal',
  'aer_dev_nonfatal',
]);
const PORT_ATTRIBUTES = new Set([
  'state',
  'phys_state',
  'link_layer',
  'rate',
  'lid',
  // Error counters (Documentation/ABI/testing/sysfs-class-infiniband), in the counters/ folder.
  'counters/symbol_error',
  'counters/link_downed',
  'counters/link_error_recovery',
  'counters/port_rcv_errors',
]);

const ROOT_BUS = /^pci([0-9a-f]{4}):([0-9a-f]{2})$/;
const BDF = /^([0-9a-f]{4}):[0-9a-f]{2}:[0-1][0-9a-f]\.[0-7]$/;
const RDMA_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** Reads and checks a sysfs.json; the error names the file and what is wrong. */
export function readSysfsSpec(file: string): SysfsSpec {
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as SysfsSpec;
  const problem = checkSysfsSpec(spec);
  if (problem) throw new Error(`${file}: ${problem}`);
  return spec;
}

export function checkSysfsSpec(spec: SysfsSpec): string | null {
  const paths = Object.keys(spec.pci ?? {});
  const byBdf = new Map<string, string>();
  for (const p of paths) {
    const problem = checkDevicePath(p, spec.pci, byBdf);
    if (problem) return problem;
    byBdf.set(p.slice(p.lastIndexOf('/') + 1), p);
  }
  for (const [name, dev] of Object.entries(spec.infiniband ?? {})) {
    if (!RDMA_NAME.test(name)) return `RDMA device name ${JSON.stringify(name)} is not a plain name`;
    if (!byBdf.has(dev.pci)) return `${name}: PCI function ${dev.pci} is not in the tree`;
    for (const [port, attrs] of Object.entries(dev.ports ?? {})) {
      if (!/^[1-9][0-9]?$/.test(port)) return `${name}: port ${JSON.stringify(port)} is not a port number`;
      const bad = Object.keys(attrs).find((a) => !PORT_ATTRIBUTES.has(a));
      if (bad) return `${name} port ${port}: unknown attribute ${bad} (known: ${[...PORT_ATTRIBUTES].join(', ')})`;
    }
  }
  return null;
}

/** `pci<domain>:<bus>` first, then bus addresses of that domain, each of whose parents is in the tree too. */
function checkDevicePath(p: string, pci: SysfsSpec['pci'], seen: ReadonlyMap<string, string>): string | null {
  const parts = p.split('/');
  const root = ROOT_BUS.exec(parts[0]);
  if (!root || parts.length < 2) return `${p}: expected pci<domain>:<bus>/<bus address>/…`;
  for (let i = 1; i < parts.length; i++) {
    const m = BDF.exec(parts[i]);
    if (!m) return `${p}: ${JSON.stringify(parts[i])} is not a bus address (dddd:bb:dd.f, lower case)`;
    if (m[1] !== root[1]) return `${p}: ${parts[i]} is not in PCI domain ${root[1]}`;
    if (i < parts.length - 1 && pci[parts.slice(0, i + 1).join('/')] === undefined)
      return `${p}: its bridge ${parts.slice(0, i + 1).join('/')} is not in the tree`;
  }
  const bdf = parts[parts.length - 1];
  if (seen.has(bdf)) return `${bdf} appears twice (${seen.get(bdf)} and ${p})`;
  const bad = Object.keys(pci[p]).find((a) => !PCI_ATTRIBUTES.has(a));
  return bad ? `${p}: unknown attribute ${bad} (known: ${[...PCI_ATTRIBUTES].join(', ')})` : null;
}

/** The tree with a profile's changes: attributes by bus address (PCI) or device name (RDMA), checked. */
export function patchSysfs(spec: SysfsSpec, patch: SysfsPatch | undefined): SysfsSpec {
  if (!patch) return spec;
  const pci = { ...spec.pci };
  for (const [bdf, attrs] of Object.entries(patch.pci ?? {})) {
    const p = Object.keys(pci).find((k) => k.endsWith(`/${bdf}`));
    if (!p) throw new Error(`sysfsPatch: ${bdf} is not a device of the tree`);
    pci[p] = { ...pci[p], ...attrs };
  }
  const infiniband = { ...spec.infiniband };
  for (const [name, { ports, ...attrs }] of Object.entries(patch.infiniband ?? {})) {
    const dev = infiniband[name];
    if (!dev) throw new Error(`sysfsPatch: ${name} is not an RDMA device of the tree`);
    const merged = { ...dev.ports };
    for (const [n, p] of Object.entries(ports ?? {})) {
      if (!merged[n]) throw new Error(`sysfsPatch: ${name} has no port ${n}`);
      merged[n] = { ...merged[n], ...p };
    }
    infiniband[name] = { ...dev, ...attrs, ports: merged };
  }
  const patched = { pci, infiniband };
  const problem = checkSysfsSpec(patched);
  if (problem) throw new Error(`sysfsPatch: ${problem}`);
  return patched;
}

export interface SysfsPatch {
  pci?: Record<string, Record<string, string>>;
  /** fw_ver and port attributes (by port number) of an RDMA device. */
  infiniband?: Record<string, { fw_ver?: string; ports?: Record<string, SysfsPort> }>;
}

/** Writes the tree under `out` as sys/devices, sys/class/infiniband and sys/bus/pci/devices (relative links). */
export function buildSysfs(spec: SysfsSpec, out: string): void {
  const sys = path.join(out, 'sys');
  const pathOf = new Map<string, string>();
  for (const [p, attrs] of Object.entries(spec.pci)) {
    const dir = path.join(sys, 'devices', p);
    writeAttributes(dir, attrs);
    const bdf = p.slice(p.lastIndexOf('/') + 1);
    pathOf.set(bdf, p);
    link(path.join(sys, 'bus', 'pci', 'devices', bdf), `../../../devices/${p}`);
  }
  fs.mkdirSync(path.join(sys, 'class', 'infiniband'), { recursive: true });
  for (const [name, dev] of Object.entries(spec.infiniband ?? {})) {
    const p = pathOf.get(dev.pci) as string;
    const ibdir = path.join(sys, 'devices', p, 'infiniband', name);
    fs.mkdirSync(ibdir, { recursive: true });
    link(path.join(ibdir, 'device'), `../../../${dev.pci}`);
    if (dev.fw_ver !== undefined) writeAttributes(ibdir, { fw_ver: dev.fw_ver });
    for (const [port, attrs] of Object.entries(dev.ports)) writeAttributes(path.join(ibdir, 'ports', port), attrs);
    link(path.join(sys, 'class', 'infiniband', name), `../../devices/${p}/infiniband/${name}`);
  }
  fs.mkdirSync(path.join(sys, 'bus', 'pci', 'devices'), { recursive: true });
}

/** sysfs attributes: one value and a newline, read-only like the kernel's. */
function writeAttributes(dir: string, attrs: Readonly<Record<string, string>>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, value] of Object.entries(attrs)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, value + '\n');
    fs.chmodSync(file, 0o444);
  }
}

function link(at: string, target: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
}
