// The probe's read of Access Control Services (and ATS) on the PCI devices between GPUs and RDMA NICs:
// `lspci -vvv -s <bdf>` for every device on their sysfs paths (bridges, GPUs, NICs). lspci needs root
// to read the extended configuration space where ACS lives (pciutils ls-caps.c: "<access denied>"), so
// it runs as root when logged in as root, through `sudo -n` when sudo needs no password, and otherwise
// not at all: the output then says so and why (sudo's own words). Read-only either way. The bus
// addresses passed to lspci come from sysfs and are matched against a strict pattern first.
import { Lspci, LspciDevice, parseLspci } from '../parsers/lspci';
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';
import { deviceLoops } from './pciSysfs';

/** Most devices it asks lspci about; far above a real host's GPUs, NICs and their bridges. */
const MAX_DEVICES = 256;

const HEX = '[0-9a-f]';
const BDF_PATTERN = `${HEX}${HEX}${HEX}${HEX}:${HEX}${HEX}:${HEX}${HEX}.[0-7]`;

/** Only the lines the diagnosis reads: each device's header, ACS and ATS lines, an access-denied mark. */
const KEEP =
  "'^(== |lspci-via|setpci:|[0-9a-f]{2,}:|[[:space:]]*(Capabilities: \\[[0-9a-f]+ v[0-9]+\\] (Access Control Services|Address Translation Service)|Capabilities: <access denied>|ACSCap:|ACSCtl:|ATSCtl:))'";

/**
 * POSIX sh. Prints `lspci-via: root|sudo`, `setpci: <path>` (for the persist fix), then per device
 * `== <bdf>` and lspci's lines for it; or `lspci-via: none<TAB><why>`, or `lspci-via: missing`.
 */
// Adds the device $x to the list $W once, up to MAX_DEVICES of them.
const ADD_ONCE = `case $W in *" $x "*) ;; *) [ $m -lt ${MAX_DEVICES} ] && W="$W$x " && m=$((m+1));; esac`;

export const PCI_ACS_COMMAND = [
  'W=" "; m=0',
  `walk() { d=$1; while :; do x=\${d##*/}; case $x in ${BDF_PATTERN}) ;; *) break;; esac; ${ADD_ONCE}; d=\${d%/*}; done; }`,
  ...deviceLoops('walk "$p"', 'walk "$p"'),
  'set -- $W',
  '[ $# -gt 0 ] || exit 0',
  "command -v lspci >/dev/null 2>&1 || { echo 'lspci-via: missing'; exit 0; }",
  `S='for b do printf "== %s\\n" "$b"; lspci -vvv -s "$b" 2>&1; done'`,
  '{ printf \'setpci: %s\\n\' "$(command -v setpci)"',
  '  if [ "$(id -u)" = 0 ]; then echo "lspci-via: root"; sh -c "$S" sh "$@"',
  '  elif e=$(sudo -n true 2>&1 </dev/null); then echo "lspci-via: sudo"; sudo -n sh -c "$S" sh "$@" </dev/null',
  '  else printf \'lspci-via: none\\t%s\\n\' "$(printf \'%s\' "$e" | head -n 1)"; fi',
  `} | grep -E ${KEEP}`,
].join('\n');

export type AcsReadVia = 'root' | 'sudo' | 'none' | 'missing';

export interface PciAcs {
  /** How lspci ran: as root, through sudo -n, not at all (no root, sudo needs a password), or not installed. */
  readonly via: AcsReadVia;
  /** Why it did not run: sudo's message. */
  readonly why: string | null;
  /** Where setpci is (`/usr/bin/setpci`); null when not installed or not said. */
  readonly setpci: string | null;
  /** lspci's reading by bus address (`0000:17:00.0`); null for a device lspci printed nothing about. */
  readonly devices: ReadonlyMap<string, LspciDevice | null>;
}

const WHAT = 'lspci -vvv (ACS of the GPU/NIC paths)';

export function parsePciAcs(text: string): Parsed<PciAcs> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  let via: AcsReadVia | null = null;
  let why: string | null = null;
  let setpci: string | null = null;
  const sections: { bdf: string; start: number; lines: string[] }[] = [];
  for (let i = 0; i < read.value.length; i++) {
    const line = read.value[i];
    const v = /^lspci-via: (root|sudo|none|missing)(?:\t(.*))?$/.exec(line);
    const s = /^== ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])$/.exec(line);
    if (v) [via, why] = [v[1] as AcsReadVia, v[2]?.trim() || null];
    else if (line.startsWith('setpci:')) setpci = line.slice('setpci:'.length).trim() || null;
    else if (s) sections.push({ bdf: s[1], start: i + 1, lines: [] });
    else if (sections.length > 0) sections[sections.length - 1].lines.push(line);
    else if (line.trim() !== '')
      return fail(i + 1, `${WHAT}: expected "lspci-via:", "setpci:" or "== <bus address>", found ${quote(line)}`);
  }
  if (via === null)
    return read.value.length === 0
      ? ok({ via: 'root', why: null, setpci: null, devices: new Map() })
      : fail(1, `${WHAT}: no "lspci-via:" line`);
  const devices = new Map<string, LspciDevice | null>();
  for (const s of sections) {
    const parsed = s.lines.some((l) => l.trim() !== '') ? parseLspci(s.lines.join('\n')) : null;
    if (parsed && !parsed.ok) return fail(s.start + parsed.error.line, `${WHAT}: ${parsed.error.message}`);
    devices.set(s.bdf, parsed ? firstDevice(parsed.value) : null);
  }
  return ok({ via, why, setpci, devices });
}

function firstDevice(l: Lspci): LspciDevice | null {
  return l.devices[0] ?? null;
}

/** The one command that reads what the probe could not: ACSCtl of these bridges, as root. */
export function acsReadCommand(bdfs: readonly string[]): string {
  return `for b in ${bdfs.join(' ')}; do sudo lspci -vvv -s $b | grep -E '^[0-9a-f]|ACSCtl'; done`;
}
