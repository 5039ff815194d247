// `lspci -vvv` (also `-vvvnn`, `-s <slot>`, or filtered by grep to its device and ACS/ATS lines): per
// device, what GPUDirect RDMA cares about — the Access Control Services capability and control
// (ACSCap/ACSCtl, printed by pciutils ls-ecaps.c cap_acs), ATS (cap_ats), the link (LnkCap/LnkSta),
// NUMA node and IOMMU group. Without root, lspci reads only the first 64 bytes of config space and
// prints `Capabilities: <access denied>` (pciutils ls-caps.c show_caps): that is kept, not guessed over.
import { Parsed, fail, ok, quote, readLines } from './result';

/** The ACS bits in lspci's order (PCI_ACS_CTRL_* in pciutils lib/header.h: bit 0 … bit 6). */
export const ACS_FLAGS = ['SrcValid', 'TransBlk', 'ReqRedir', 'CmpltRedir', 'UpstreamFwd', 'EgressCtrl', 'DirectTrans'] as const;
export type AcsFlag = (typeof ACS_FLAGS)[number];
export type AcsBits = Readonly<Record<AcsFlag, boolean>>;

export interface LspciAcs {
  /** ACSCap: what the port can do; null when the line is missing (lspci -vv prints only the title). */
  readonly cap: AcsBits | null;
  /** ACSCtl: what is enabled now. */
  readonly ctl: AcsBits | null;
  /** The ACSCtl line as printed (trimmed), for evidence. */
  readonly ctlLine: string | null;
  readonly line: number;
}

export interface LspciLink {
  /** `16GT/s`, as printed. */
  readonly speed: string;
  readonly width: number;
}

export interface LspciDevice {
  /** The slot as printed: `16:00.0`, or `0000:16:00.0` with -D or a non-zero domain. */
  readonly slot: string;
  /** The rest of the header line: `PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])`. */
  readonly description: string;
  /** 1-based line of the header. */
  readonly line: number;
  /** `Capabilities: <access denied>`: read without root, nothing past the header is known. */
  readonly capabilitiesDenied: boolean;
  /** null: no ACS capability listed (or capabilities denied). */
  readonly acs: LspciAcs | null;
  /** null: no ATS capability listed; `enabled` null when ATSCtl was not printed. */
  readonly ats: { readonly enabled: boolean | null } | null;
  readonly linkCapability: LspciLink | null;
  readonly linkStatus: LspciLink | null;
  readonly numaNode: number | null;
  readonly iommuGroup: number | null;
  readonly driver: string | null;
}

export interface Lspci {
  readonly devices: LspciDevice[];
  /** pciutils' own warnings (`pcilib: …`, `lspci: …`) mixed into the output, as printed. */
  readonly warnings: string[];
}

const WHAT = 'lspci -vvv';
const HEADER = /^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (\S.*)$/;
const WARNING = /^(pcilib|lspci): /;

interface Building {
  slot: string;
  description: string;
  line: number;
  capabilitiesDenied: boolean;
  acs: { cap: AcsBits | null; ctl: AcsBits | null; ctlLine: string | null; line: number } | null;
  ats: { enabled: boolean | null } | null;
  linkCapability: LspciLink | null;
  linkStatus: LspciLink | null;
  numaNode: number | null;
  iommuGroup: number | null;
  driver: string | null;
}

export function parseLspci(text: string): Parsed<Lspci> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const devices: Building[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < read.value.length; i++) {
    const raw = read.value[i];
    if (raw.trim() === '') continue;
    const header = HEADER.exec(raw);
    if (header) devices.push(newDevice(header[1], header[2], i + 1));
    else if (WARNING.test(raw)) warnings.push(raw.trim());
    else if (/^\s/.test(raw) && devices.length > 0) detail(devices[devices.length - 1], raw.trim(), i + 1);
    else
      return fail(i + 1, `${WHAT}: expected a device line such as "16:00.0 PCI bridge: …" or an indented detail line, found ${quote(raw)}`);
  }
  if (devices.length === 0) return fail(1, `${WHAT}: no device in the output; expected lines such as "16:00.0 PCI bridge: …"`);
  return ok({ devices, warnings });
}

function newDevice(slot: string, description: string, line: number): Building {
  return {
    slot,
    description,
    line,
    capabilitiesDenied: false,
    acs: null,
    ats: null,
    linkCapability: null,
    linkStatus: null,
    numaNode: null,
    iommuGroup: null,
    driver: null,
  };
}

/** One indented line of a device (tabs or spaces, as copies of lspci output vary). */
function detail(d: Building, line: string, at: number): void {
  if (line === 'Capabilities: <access denied>') d.capabilitiesDenied = true;
  else if (/^Capabilities: \[[0-9a-f]+ v\d+\] Access Control Services/.test(line))
    d.acs = { cap: null, ctl: null, ctlLine: null, line: at };
  else if (/^Capabilities: \[[0-9a-f]+ v\d+\] Address Translation Service/.test(line)) d.ats = { enabled: null };
  else if (line.startsWith('ACSCap:') && d.acs) d.acs.cap = acsBits(line);
  else if (line.startsWith('ACSCtl:') && d.acs) Object.assign(d.acs, { ctl: acsBits(line), ctlLine: line.replace(/\s+/g, ' ') });
  else if (line.startsWith('ATSCtl:') && d.ats) d.ats.enabled = /\bEnable\+/.test(line) ? true : /\bEnable-/.test(line) ? false : null;
  else if (line.startsWith('LnkCap:')) d.linkCapability = link(line);
  else if (line.startsWith('LnkSta:')) d.linkStatus = link(line);
  else if (line.startsWith('NUMA node:')) d.numaNode = int(line.slice('NUMA node:'.length));
  else if (line.startsWith('IOMMU group:')) d.iommuGroup = int(line.slice('IOMMU group:'.length));
  else if (line.startsWith('Kernel driver in use:')) d.driver = line.slice('Kernel driver in use:'.length).trim();
}

function acsBits(line: string): AcsBits | null {
  const bits: Partial<Record<AcsFlag, boolean>> = {};
  for (const m of line.matchAll(/(\w+)([+-])/g)) if ((ACS_FLAGS as readonly string[]).includes(m[1])) bits[m[1] as AcsFlag] = m[2] === '+';
  return ACS_FLAGS.every((f) => bits[f] !== undefined) ? (bits as AcsBits) : null;
}

/** `LnkSta: Speed 8GT/s (ok), Width x16 (ok)`; `LnkCap: Port #8, Speed 8GT/s, Width x16, …`. */
function link(line: string): LspciLink | null {
  const m = /Speed ([\d.]+GT\/s)[^,]*, Width x(\d+)/.exec(line);
  return m ? { speed: m[1], width: Number(m[2]) } : null;
}

function int(s: string): number | null {
  return /^\s*-?\d+\s*$/.test(s) ? Number(s) : null;
}

/** The 16-bit ACSCtl value lspci decoded (bit n = ACS_FLAGS[n]), as setpci reads and writes it. */
export function acsWord(bits: AcsBits): number {
  return ACS_FLAGS.reduce((w, f, i) => (bits[f] ? w | (1 << i) : w), 0);
}

/** P2P Request/Completion Redirect or Egress Control: peer traffic is sent up toward the root complex. */
export function redirects(bits: AcsBits): boolean {
  return bits.ReqRedir || bits.CmpltRedir || bits.EgressCtrl;
}
