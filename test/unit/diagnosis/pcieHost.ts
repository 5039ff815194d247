// The lab's HGX host (test/lab/profiles/hgx-acs) as probe outputs, for the PCIe rule and fix tests:
// its PCI tree (sysfs.json, derived from the real gpud `lspci -vvv` fixture), its recordings (topo,
// GPU query), and the probe's own framing of the sections it reads — pci-sysfs, pci-acs (the
// fixture's real lspci section of every device of the tree, filtered as the probe filters it, with
// ACSCtl re-rendered from a control word as pciutils ls-ecaps.c prints it), iommu-groups. The
// framing lines (`== <bdf>`, `group …`, `gid …`) are CONSTRUCTED in the probe's format; every lspci
// line comes from the fixture.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ACS_FLAGS } from '../../../src/core/parsers/lspci';
import { FIXTURES, REPO_ROOT } from '../../support/paths';
import { cmdline } from './constructedInputs';
import { HostFiles, fixture, labFile } from './hostReport';
import { HEALTHY } from './hosts';

interface Spec {
  pci: Record<string, Record<string, string>>;
  infiniband: Record<string, { pci: string; fw_ver?: string; ports: Record<string, Record<string, string>> }>;
}
type Gids = Record<string, Record<string, [number, string, string, string][]>>;

const PROFILE = path.join(REPO_ROOT, 'test/lab/profiles/hgx-acs');
const spec = JSON.parse(fs.readFileSync(path.join(PROFILE, 'sysfs.json'), 'utf8')) as Spec;
const profileGids = (JSON.parse(fs.readFileSync(path.join(PROFILE, 'profile.json'), 'utf8')) as { gids: Gids }).gids;
const lspciText = fs.readFileSync(path.join(FIXTURES, 'lspci/hgx-h100-pex890xx-cx7-full-vvv-acs-off.txt'), 'utf8');
const ATTRS = ['class', 'vendor', 'device', 'numa_node', 'max_link_speed', 'max_link_width', 'current_link_speed', 'current_link_width'];
// What is kept of lspci -vvv: each device's first line, the ACS and ATS capabilities and their registers.
const ACS_ATS_CAPABILITY = /Capabilities: \[[0-9a-f]+ v[0-9]+\] (Access Control Services|Address Translation Service)/;
const ACS_ATS_REGISTERS = /Capabilities: <access denied>|ACSCap:|ACSCtl:|ATSCtl:/;
const KEEP = new RegExp(`^([0-9a-f]{2,}:|\\s*(${ACS_ATS_CAPABILITY.source}|${ACS_ATS_REGISTERS.source}))`);

export const bdfOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const pathOf = (tree: Spec, bdf: string) => `/sys/devices/${Object.keys(tree.pci).find((p) => p.endsWith(`/${bdf}`))}`;

/** What the probe's pci-sysfs script prints for the tree (RDMA devices with ports and GIDs, then GPUs). */
function pciSysfs(
  tree: Spec,
  patch: Record<string, Record<string, string>>,
  gids: Gids,
  fw: Record<string, string>,
  layers: Record<string, string>,
  rates: Record<string, string>,
): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  const emit = (p: string) => {
    for (let q = p; /\/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(q) && !seen.has(q); q = q.slice(0, q.lastIndexOf('/'))) {
      seen.add(q);
      const attrs = { ...tree.pci[q.slice('/sys/devices/'.length)], ...patch[bdfOf(q)] };
      lines.push(['pci', q, ...ATTRS.map((a) => attrs[a] ?? '')].join('\t'));
    }
  };
  for (const [name, d] of Object.entries(tree.infiniband)) {
    lines.push(['ib', name, pathOf(tree, d.pci), fw[name] ?? d.fw_ver ?? ''].join('\t'));
    for (const [n, port] of Object.entries(d.ports)) {
      lines.push(['port', name, n, port.state, layers[name] ?? port.link_layer, rates[name] ?? port.rate].join('\t'));
      for (const [i, gid, type, ndev] of gids[name]?.[n] ?? []) lines.push(['gid', name, n, String(i), gid, type, ndev].join('\t'));
    }
    emit(pathOf(tree, d.pci));
  }
  for (const [p, a] of Object.entries(tree.pci)) {
    if (a.vendor !== '0x10de') continue;
    lines.push(`gpu\t/sys/devices/${p}`);
    emit(`/sys/devices/${p}`);
  }
  return `${lines.join('\n')}\n`;
}

/** ACSCtl as lspci prints it, from the control word (bit n = ACS_FLAGS[n]). */
function acsLine(word: number): string {
  return `\t\tACSCtl:\t${ACS_FLAGS.map((f, i) => `${f}${(word >> i) & 1 ? '+' : '-'}`).join(' ')}`;
}

/** The probe's pci-acs output: lspci's filtered section per device of the tree, ACS control as given. */
function pciAcs(tree: Spec, acsCtl: number): string {
  const sections = new Map(lspciText.split(/\n(?=[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] )/).map((b) => [b.slice(0, 7), b]));
  // The second NIC's switch port and NIC answer as their twins of GPU0's switch do (SECOND_NIC).
  sections.set('17:03.0', `17:03.0${(sections.get('17:02.0') ?? '').slice(7)}`);
  sections.set('1b:00.0', `1b:00.0${(sections.get('1a:00.0') ?? '').slice(7)}`);
  const out = ['setpci: /usr/bin/setpci', 'lspci-via: sudo'];
  for (const p of Object.keys(tree.pci)) {
    const bdf = bdfOf(p);
    out.push(`== ${bdf}`);
    for (const line of (sections.get(bdf.slice(5)) ?? '').split('\n').filter((l) => KEEP.test(l)))
      out.push(line.includes('ACSCtl:') ? acsLine(acsCtl) : line);
  }
  return `${out.join('\n')}\n`;
}

export interface PcieOptions {
  /** ACSCtl of every ACS-capable port: 0x1d = what Linux sets with an IOMMU on, 0 = off. */
  readonly acsCtl?: number;
  /** pci-acs as the probe prints it when sudo needs a password. */
  readonly acsUnread?: boolean;
  /** Every IOMMU group's type; '' prints groups without a type, as kernels before 5.11 have no `type` file. */
  readonly iommuType?: string | null;
  /** Kernel parameters of /proc/cmdline, over the default (intel_iommu=on iommu=pt with an IOMMU type, else quiet). */
  readonly cmdline?: string;
  readonly vfioGroup?: number;
  readonly patch?: Record<string, Record<string, string>>;
  readonly gids?: Gids;
  readonly fw?: Record<string, string>;
  /** link_layer per RDMA device, over the profile's (all Ethernet: its ConnectX-7s are RoCE ports). CONSTRUCTED variants. */
  readonly linkLayers?: Record<string, string>;
  /** rate per RDMA device, over the profile's `400 Gb/sec (4X NDR)`, in the kernel's format. CONSTRUCTED variants. */
  readonly rates?: Record<string, string>;
  /**
   * AER totals (correctable, fatal, non-fatal) by bus address, and a second reading a second later: the
   * probe's `aer`/`aer2` lines, CONSTRUCTED in its format (the counts are test values).
   */
  readonly aer?: Record<string, { now: [number, number, number]; later?: [number, number, number] }>;
  /** Port counters (symbol_error, link_downed, link_error_recovery, port_rcv_errors) by device, port 1: `cnt`/`cnt2` lines. */
  readonly portCounters?: Record<string, { now: number[]; later?: number[] }>;
  /** A second ConnectX-7 (`mlx5_8`, 0000:1b:00.0) under its own port 0000:17:03.0 of GPU0's switch: two NICs at GPU0's best distance. */
  readonly secondNic?: boolean;
}

/**
 * CONSTRUCTED VARIANT of the tree: GPU0's switch with a second NIC (mlx5_8 at 0000:1b:00.0 below a third
 * downstream port 0000:17:03.0), each a copy of its twin (0000:1a:00.0, 0000:17:02.0) at another address.
 */
function withSecondNic(tree: Spec): Spec {
  const dsp = 'pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:03.0';
  return {
    pci: {
      ...tree.pci,
      [dsp]: tree.pci['pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0'],
      [`${dsp}/0000:1b:00.0`]: tree.pci['pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0/0000:1a:00.0'],
    },
    infiniband: { ...tree.infiniband, mlx5_8: { ...tree.infiniband.mlx5_0, pci: '0000:1b:00.0' } },
  };
}

function counterLines(tree: Spec, o: PcieOptions): string {
  const lines: string[] = [];
  for (const [bdf, r] of Object.entries(o.aer ?? {})) {
    lines.push(['aer', pathOf(tree, bdf), ...r.now].join('\t'));
    if (r.later) lines.push(['aer2', pathOf(tree, bdf), ...r.later].join('\t'));
  }
  for (const [dev, r] of Object.entries(o.portCounters ?? {})) {
    lines.push(['cnt', dev, '1', ...r.now].join('\t'));
    if (r.later) lines.push(['cnt2', dev, '1', ...r.later].join('\t'));
  }
  return lines.map((l) => `${l}\n`).join('');
}

export function pcieHost(o: PcieOptions = {}): HostFiles {
  const tree = o.secondNic ? withSecondNic(spec) : spec;
  const iommu =
    o.iommuType === null || o.iommuType === undefined
      ? ''
      : Object.keys(tree.pci)
          .sort()
          .map((p, id) => `group\t${id}\t${o.iommuType}\t${id === o.vfioGroup ? 1 : 0}\t${bdfOf(p)}\n`)
          .join('');
  return {
    ...HEALTHY,
    topo: labFile('hgx-acs', 'out/nvidia-smi_topo_-m.stdout'),
    lscpu: labFile('healthy', 'out/lscpu.stdout'),
    gpus: labFile('hgx-acs', 'out/nvidia-smi_--query-gpu=index,name,pci.bus%5Fid,driver%5Fversion_--format=csv.stdout'),
    ibv: { stdout: '', stderr: 'sh: 1: exec: ibv_devinfo: not found\n', rc: 127 },
    cmdline: cmdline(o.cmdline ?? (o.iommuType ? 'intel_iommu=on iommu=pt' : 'quiet')),
    'iommu-groups': iommu,
    'pci-sysfs':
      pciSysfs(tree, o.patch ?? {}, o.gids ?? profileGids, o.fw ?? {}, o.linkLayers ?? {}, o.rates ?? {}) + counterLines(tree, o),
    'pci-acs': o.acsUnread ? 'setpci: /usr/bin/setpci\nlspci-via: none\tsudo: a password is required\n' : pciAcs(tree, o.acsCtl ?? 0),
    'sudo-n': o.acsUnread ? { stdout: '1501\n', stderr: 'sudo: a password is required\n', rc: 1 } : { stdout: '1500\n', rc: 0 },
  };
}

export { profileGids };

/** The tree's eight GPUs, in the GPU query's order. */
export const TREE_GPUS = Object.keys(spec.pci)
  .filter((p) => spec.pci[p].vendor === '0x10de')
  .map(bdfOf);

/**
 * CONSTRUCTED VARIANT of a real output: the 8× H100 `nvidia-smi -q` (smi-q/h100-80gb-hbm3-x8-driver565.txt,
 * every GPU at "Gpu : 0 %") with each GPU section's bus id replaced by this tree's, in order, and the
 * "Utilization > Gpu" line of the GPUs in `busy` set to that percentage. Nothing else is changed.
 */
export function smiQForTree(busy: Record<number, number> = {}): string {
  let gpu = -1;
  return fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt')
    .split('\n')
    .map((line) => {
      if (/^GPU [0-9A-F]{8}:/.test(line)) gpu++;
      const bus = `0000${TREE_GPUS[gpu] ?? ''}`.toUpperCase();
      if (/^GPU [0-9A-F]{8}:/.test(line)) return `GPU ${bus}`;
      if (/^\s+Bus Id\s+:/.test(line)) return line.replace(/[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]/, bus);
      if (/^\s{8}Gpu\s+: \d+ %$/.test(line) && busy[gpu] !== undefined) return line.replace(/\d+ %$/, `${busy[gpu]} %`);
      return line;
    })
    .join('\n');
}
