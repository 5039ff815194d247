// The parts of a host's PCI and RDMA state beyond the sysfs tree (sysfs.ts), made from a profile:
// - per-device `lspci -vvv` sections of a real recording (run/gdrlab-pci/<bdf>.lspci), which the fake
//   lspci replays, and each device's ACS capability and control words (run/gdrlab-pci/<bdf>.acscap|.acsctl),
//   which the fake lspci renders and the fake setpci reads and writes (fakecmd.sh);
// - IOMMU groups (sys/kernel/iommu_groups/<n>/{type,devices/<bdf>}, each device's iommu_group link);
// - RoCE GID tables (ports/<n>/gids/<i>, gid_attrs/{types,ndevs}/<i>);
// - /proc/cmdline (run/gdrlab-cmdline) and DMI (sys/class/dmi/id/*).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ACS_FLAGS, acsWord, parseLspci } from '../../src/core/parsers/lspci';
import type { SysfsSpec } from './sysfs';

export interface PciProfile {
  /** /proc/cmdline of the host. */
  cmdline?: string;
  /** An active IOMMU: one group per PCI device of the tree (ACS isolates each), with this default domain type;
   *  type null: no `type` file, as kernels before 5.11 have none. */
  iommu?: { type: string | null };
  /** Absolute path (after loading) of a real `lspci -vvv`; its sections answer the fake lspci per device of the tree. */
  lspci?: string;
  /**
   * ACSCtl at boot: as recorded (default), or what Linux sets with an IOMMU on (drivers/pci/pci.c pci_std_enable_acs:
   * SV, RR, CR, UF where capable).
   */
  acs?: 'recorded' | 'kernel';
  /** RoCE GID tables: device → port → [index, gid, type as gid_attrs/types prints it, netdev]. */
  gids?: Record<string, Record<string, [number, string, string, string][]>>;
  /** /sys/class/dmi/id files. */
  dmi?: Record<string, string>;
}

/** GID table length the lab writes (real mlx5 RoCE ports have 256 entries; the populated ones come first). */
const GID_TABLE = 16;
const KERNEL_ACS = ['SrcValid', 'ReqRedir', 'CmpltRedir', 'UpstreamFwd'];

/** lspci prints domain 0000 without it: `17:01.0`; other domains in full. */
function lspciSlot(bdf: string): string {
  return bdf.startsWith('0000:') ? bdf.slice(5) : bdf;
}

/** The recording cut into one section per device, by the slot lspci printed. */
function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of text.split(/\n(?=(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] )/)) {
    const slot = /^((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) /.exec(block)?.[1];
    if (slot) out.set(slot, `${block.replace(/\n+$/, '')}\n`);
  }
  return out;
}

/**
 * run/gdrlab-pci/<bdf>.lspci for every device of the tree (a tree device the recording lacks is an
 * error), and <bdf>.acscap/.acsctl (4 hex digits) for each whose section lists ACS.
 */
export function writePciState(spec: SysfsSpec, recording: string, state: string, mode: 'recorded' | 'kernel'): void {
  const bySlot = sections(fs.readFileSync(recording, 'utf8'));
  const out = path.join(state, 'run', 'gdrlab-pci');
  fs.mkdirSync(out, { recursive: true });
  for (const p of Object.keys(spec.pci)) {
    const bdf = p.slice(p.lastIndexOf('/') + 1);
    const text = bySlot.get(lspciSlot(bdf));
    if (!text) throw new Error(`${recording}: no lspci section for ${bdf}, a device of the profile's tree`);
    fs.writeFileSync(path.join(out, `${bdf}.lspci`), text);
    const parsed = parseLspci(text);
    const acs = parsed.ok ? parsed.value.devices[0]?.acs : null;
    if (!acs?.cap || !acs.ctl) continue;
    const cap = acs.cap;
    const ctl =
      mode === 'kernel' ? (Object.fromEntries(ACS_FLAGS.map((f) => [f, KERNEL_ACS.includes(f) && cap[f]])) as typeof cap) : acs.ctl;
    const hex = (w: number) => `${w.toString(16).padStart(4, '0')}\n`;
    fs.writeFileSync(path.join(out, `${bdf}.acscap`), hex(acsWord(cap)));
    fs.writeFileSync(path.join(out, `${bdf}.acsctl`), hex(acsWord(ctl)));
  }
}

/** One IOMMU group per device of the tree, in tree order, as Linux makes them when ACS isolates every port. */
export function writeIommuGroups(spec: SysfsSpec, state: string, type: string | null): void {
  const root = path.join(state, 'sys', 'kernel', 'iommu_groups');
  Object.keys(spec.pci)
    .sort()
    .forEach((p, id) => {
      const bdf = p.slice(p.lastIndexOf('/') + 1);
      const group = path.join(root, String(id));
      fs.mkdirSync(path.join(group, 'devices'), { recursive: true });
      if (type !== null) fs.writeFileSync(path.join(group, 'type'), `${type}\n`);
      fs.symlinkSync(`../../../../devices/${p}`, path.join(group, 'devices', bdf));
      const depth = p.split('/').length + 1;
      fs.symlinkSync(`${'../'.repeat(depth)}kernel/iommu_groups/${id}`, path.join(state, 'sys', 'devices', p, 'iommu_group'));
    });
}

/** GID files of each RoCE port: populated entries as given, the rest of the table all zeros with no type. */
export function writeGids(spec: SysfsSpec, state: string, gids: NonNullable<PciProfile['gids']>): void {
  for (const [dev, ports] of Object.entries(gids)) {
    const pci = spec.infiniband?.[dev]?.pci;
    const p = Object.keys(spec.pci).find((k) => k.endsWith(`/${pci}`));
    if (!p) throw new Error(`gids: ${dev} is not an RDMA device of the tree`);
    for (const [port, entries] of Object.entries(ports)) {
      const base = path.join(state, 'sys', 'devices', p, 'infiniband', dev, 'ports', port);
      for (const sub of ['gids', 'gid_attrs/types', 'gid_attrs/ndevs']) fs.mkdirSync(path.join(base, sub), { recursive: true });
      for (let i = 0; i < GID_TABLE; i++) {
        const e = entries.find(([index]) => index === i);
        readOnly(path.join(base, 'gids', String(i)), e ? e[1] : '0000:0000:0000:0000:0000:0000:0000:0000');
        // An empty entry's type and ndev cannot be read (the kernel answers EINVAL); here they are absent.
        if (e) readOnly(path.join(base, 'gid_attrs', 'types', String(i)), e[2]);
        if (e) readOnly(path.join(base, 'gid_attrs', 'ndevs', String(i)), e[3]);
      }
    }
  }
}

export function writeCmdlineAndDmi(p: PciProfile, state: string): void {
  if (p.cmdline !== undefined) {
    fs.mkdirSync(path.join(state, 'run'), { recursive: true });
    fs.writeFileSync(path.join(state, 'run', 'gdrlab-cmdline'), `${p.cmdline}\n`);
  }
  for (const [name, value] of Object.entries(p.dmi ?? {})) {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`dmi: ${name} is not a DMI attribute name`);
    fs.mkdirSync(path.join(state, 'sys', 'class', 'dmi', 'id'), { recursive: true });
    readOnly(path.join(state, 'sys', 'class', 'dmi', 'id', name), value);
  }
}

function readOnly(file: string, value: string): void {
  fs.writeFileSync(file, `${value}\n`);
  fs.chmodSync(file, 0o444);
}
