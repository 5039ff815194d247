// Builds a profile's sysfs.json from a real `lspci -vvv`: the PCI tree Linux would lay out for the
// given endpoints (each bridge found by its "Bus: primary=…, secondary=…, subordinate=…" line, as the
// kernel numbers buses), with each device's class (the header's words), ids (from its name, pci.ids
// spelling), NUMA node ("NUMA node:") and link speed/width (LnkCap = max, LnkSta = current).
//   npx tsx test/lab/tools/sysfsFromLspci.ts <lspci.txt> <domain> <infiniband.json> <endpoint-bdf>... > sysfs.json
// infiniband.json: { "<ibdev>": { "pci": "0000:1a:00.0", "fw_ver": "…", "ports": { "1": { … } } } }
import * as fs from 'node:fs';
import { parseLspci } from '../../../src/core/parsers/lspci';

interface Section {
  slot: string;
  header: string;
  bus: { primary: number; secondary: number; subordinate: number } | null;
  text: string;
}

/** Class codes of the header words lspci prints (pciutils lib/header.h PCI_CLASS_*). */
const CLASS: Record<string, string> = {
  'PCI bridge': '0x060400',
  '3D controller': '0x030200',
  'VGA compatible controller': '0x030000',
  'Ethernet controller': '0x020000',
  'Infiniband controller': '0x020700',
  Bridge: '0x068000',
};

/** Vendor and device ids of the names lspci printed (pci.ids; "Device 2330" is printed as the id itself). */
const IDS: [RegExp, string, string | null][] = [
  [/^Intel Corporation Device ([0-9a-f]{4})/, '0x8086', null],
  [/^Broadcom \/ LSI PEX890xx PCIe Gen 5 Switch/, '0x1000', '0xc030'],
  [/^NVIDIA Corporation Device ([0-9a-f]{4})/, '0x10de', null],
  [/^Mellanox Technologies MT2910 Family \[ConnectX-7\]/, '0x15b3', '0x1021'],
  [/^Mellanox Technologies MT2892 Family \[ConnectX-6 Dx\]/, '0x15b3', '0x101d'],
];

function sections(text: string): Section[] {
  const out: Section[] = [];
  for (const block of text.split(/\n(?=[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] )/)) {
    const header = block.split('\n')[0];
    const m = /^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) /.exec(header);
    if (!m) continue;
    const b = /Bus: primary=([0-9a-f]{2}), secondary=([0-9a-f]{2}), subordinate=([0-9a-f]{2})/.exec(block);
    out.push({
      slot: m[1],
      header,
      bus: b ? { primary: parseInt(b[1], 16), secondary: parseInt(b[2], 16), subordinate: parseInt(b[3], 16) } : null,
      text: block,
    });
  }
  return out;
}

const sysfsSpeed = (s: string) => `${Number(s.replace('GT/s', '')).toFixed(1)} GT/s PCIe`;

function attributes(s: Section): Record<string, string> {
  const parsed = parseLspci(s.text);
  if (!parsed.ok) throw new Error(`${s.slot}: ${parsed.error.message}`);
  const d = parsed.value.devices[0];
  const rest = s.header.slice(s.slot.length + 1);
  const kind = rest.slice(0, rest.indexOf(':'));
  const name = rest.slice(rest.indexOf(':') + 2);
  const attrs: Record<string, string> = { class: CLASS[kind] ?? '' };
  for (const [re, vendor, device] of IDS) {
    const m = re.exec(name);
    if (m) Object.assign(attrs, { vendor, device: device ?? `0x${m[1]}` });
  }
  if (d.numaNode !== null) attrs.numa_node = String(d.numaNode);
  if (d.linkCapability)
    Object.assign(attrs, { max_link_speed: sysfsSpeed(d.linkCapability.speed), max_link_width: String(d.linkCapability.width) });
  if (d.linkStatus)
    Object.assign(attrs, { current_link_speed: sysfsSpeed(d.linkStatus.speed), current_link_width: String(d.linkStatus.width) });
  return attrs;
}

/** The sysfs path of a device: its parent is the bridge whose secondary bus is the device's bus. */
function pathOf(all: readonly Section[], slot: string, domain: string): string {
  const bus = parseInt(slot.slice(0, 2), 16);
  const parent = all.find((s) => s.bus?.secondary === bus);
  const own = `${domain}:${slot}`;
  return parent ? `${pathOf(all, parent.slot, domain)}/${own}` : `pci${domain}:${slot.slice(0, 2)}/${own}`;
}

function main(): void {
  const [file, domain, ibFile, ...endpoints] = process.argv.slice(2);
  const all = sections(fs.readFileSync(file, 'utf8'));
  const pci: Record<string, Record<string, string>> = {};
  for (const e of endpoints) {
    const parts = pathOf(all, e.replace(/^[0-9a-f]{4}:/, ''), domain).split('/');
    for (let i = 2; i <= parts.length; i++) {
      const p = parts.slice(0, i).join('/');
      const slot = parts[i - 1].slice(domain.length + 1);
      pci[p] ??= attributes(all.find((s) => s.slot === slot) as Section);
    }
  }
  const sorted = Object.fromEntries(Object.entries(pci).sort(([a], [b]) => (a < b ? -1 : 1)));
  process.stdout.write(`${JSON.stringify({ pci: sorted, infiniband: JSON.parse(fs.readFileSync(ibFile, 'utf8')) }, null, 2)}\n`);
}

main();
