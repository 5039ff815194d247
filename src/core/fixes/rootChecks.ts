// Checks a root script makes on the host itself, right before it acts (POSIX sh, no single quote: the
// scripts go through shCommand). Nothing here trusts what the login user's environment or an earlier
// reading says:
// - `tool NAME` finds a command only in the system directories of the fixed PATH (/usr/sbin, /sbin,
//   /usr/bin, /bin), and only as a regular file owned by root, neither it nor its directory writable by
//   group or others, in a directory whose real path (symlinks resolved: /sbin → /usr/sbin on merged-/usr
//   systems) is itself one of those — so a ~/.local/bin/setpci, or one a user could replace, never runs
//   as root. A path with `..` is refused.
// - `same BDF PATH ID` says whether the PCI device at a bus address is still the one the plan was made
//   for: present, at the same place in the tree (its resolved sysfs path, which is the path from the root
//   port), with the same vendor:device. Bus numbers change with a new card or a firmware update; a device
//   can be removed. `setpci -s` on an address that is gone prints "Warning: No devices selected" and
//   exits 0, so its exit status alone proves nothing.
import { PciDevice } from '../probe/pciSysfs';

export const TOOL_LINES: readonly string[] = [
  'tool() {',
  '  for d in /usr/sbin /sbin /usr/bin /bin; do',
  '    f=$d/$1',
  '    [ -f "$f" ] && [ ! -L "$f" ] || continue',
  '    r=$(cd -P "$d" 2>/dev/null && pwd -P) || continue',
  '    case $r in */..|*/../*) continue;; /usr/sbin|/sbin|/usr/bin|/bin) ;; *) continue;; esac',
  '    set -- "$1" $(ls -lnd "$r/$1" 2>/dev/null) ; m=$2; u=$4',
  '    case $m in -????w????*|-???????w?*) continue;; esac',
  '    [ "$u" = 0 ] || continue',
  '    set -- "$1" $(ls -lnd "$r" 2>/dev/null); case $2 in d????w????*|d???????w?*) continue;; esac; [ "$4" = 0 ] || continue',
  '    echo "$r/$1"; return 0',
  '  done',
  '  echo "gdr-doctor: no root-owned $1 in /usr/sbin, /sbin, /usr/bin or /bin: nothing was changed" >&2',
  '  return 1',
  '}',
];

export const SAME_LINES: readonly string[] = [
  'same() {',
  '  if [ ! -e "/sys/bus/pci/devices/$1" ]; then echo "gdr-doctor: $1: no such PCI device now (removed, or the buses renumbered)" >&2; return 1; fi',
  '  p=$(cd -P "/sys/bus/pci/devices/$1" 2>/dev/null && pwd -P)',
  '  if [ "$p" != "$2" ]; then echo "gdr-doctor: $1 is now at $p, not at $2: the PCI tree changed" >&2; return 1; fi',
  '  v=; d=; read -r v < "$p/vendor"; read -r d < "$p/device"',
  '  if [ "$3" != - ] && [ "${v#0x}:${d#0x}" != "$3" ]; then echo "gdr-doctor: $1 is now ${v#0x}:${d#0x}, not $3" >&2; return 1; fi',
  '}',
];

/** A PCI device as a root script checks it: bus address, resolved sysfs path, `vendor:device` (or `-` when unread). */
export interface PciTarget {
  readonly bdf: string;
  readonly path: string;
  readonly id: string;
}

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;
const PATH = /^\/sys\/devices\/pci[0-9a-f]{4}:[0-9a-f]{2}(\/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])+$/;
const ID = /^([0-9a-f]{4}:[0-9a-f]{4}|-)$/;

export function pciTarget(d: PciDevice): PciTarget {
  const hex4 = (s: string) => (/^0x[0-9a-f]{4}$/i.test(s.trim()) ? s.trim().slice(2).toLowerCase() : null);
  const [v, dev] = [hex4(d.vendor), hex4(d.device)];
  return checkTarget({ bdf: d.bdf, path: d.path, id: v && dev ? `${v}:${dev}` : '-' });
}

export function checkBdf(bdf: string): string {
  if (!BDF.test(bdf)) throw new Error(`not a PCI bus address: ${JSON.stringify(bdf)}`);
  return bdf;
}

/** Each value goes into a script: only bus addresses, sysfs paths and ids of the strict shapes above pass. */
export function checkTarget(t: PciTarget): PciTarget {
  checkBdf(t.bdf);
  if (!PATH.test(t.path) || !t.path.endsWith(`/${t.bdf}`)) throw new Error(`not the sysfs path of ${t.bdf}: ${JSON.stringify(t.path)}`);
  if (!ID.test(t.id)) throw new Error(`not a vendor:device id: ${JSON.stringify(t.id)}`);
  return t;
}

/** `same` for every target, before anything is written; if one fails, `message` and exit 1. */
export function sameLines(targets: readonly PciTarget[], message: string): string[] {
  return [
    'ok=1',
    ...targets.map(checkTarget).map((x) => `same ${x.bdf} ${x.path} ${x.id} || ok=0`),
    `[ "$ok" = 1 ] || { echo "${message}" >&2; exit 1; }`,
  ];
}
