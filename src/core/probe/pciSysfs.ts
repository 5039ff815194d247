// The probe's read of the PCI tree in sysfs, where NCCL itself learns device locality
// (src/graph/xml.cc ncclTopoGetXmlFromSys; src/transport/net_ib/init.cc ncclIbGetPciPath): every RDMA
// device and NVIDIA GPU/NVSwitch with its real sysfs path, each PCI device on those paths with its
// class, ids, NUMA node and link speed/width, and every RDMA port's state. Read-only, no root.
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';
import { deviceNameProblem } from '../parsers/deviceName';
import { GidEntry, roceVersionOf } from '../parsers/showGids';

/** Most devices it prints: far above a real host (an NVL72 tray has a few dozen), a bound for a broken sysfs. */
const MAX_DEVICES = 512;

const ATTRS = ['class', 'vendor', 'device', 'numa_node', 'max_link_speed', 'max_link_width', 'current_link_speed', 'current_link_width'];

/** Most GID lines it prints: RoCE ports hold up to 256 entries each; a handful are populated on a real host. */
const MAX_GIDS = 1024;

/**
 * POSIX sh: for each RDMA device (`$i` its /sys/class/infiniband entry) and each NVIDIA display/3D
 * controller or NVSwitch (`$g`), `$p` is its resolved sysfs path; then `onRdma` or `onGpu` runs.
 * `cd -P … && pwd -P` resolves the symlinks as readlink -f would, without needing readlink.
 */
export function deviceLoops(onRdma: string, onGpu: string): string[] {
  return [
    `for i in /sys/class/infiniband/*; do [ -e "$i/device" ] || continue; p=$(cd -P "$i/device" 2>/dev/null && pwd -P) || continue; ${onRdma}; done`,
    'for g in /sys/bus/pci/devices/*; do [ -r "$g/vendor" ] || continue; read -r v < "$g/vendor"; [ "$v" = 0x10de ] || continue; ' +
      `read -r c < "$g/class"; case $c in 0x03*|0x0680*) ;; *) continue;; esac; p=$(cd -P "$g" 2>/dev/null && pwd -P) || continue; ${onGpu}; done`,
  ];
}

/** sh: each populated GID of an Ethernet (RoCE) port `$q` of device `$i`, with its RoCE type and netdev (as show_gids reads them). */
const GID_LINES =
  'if [ "$l" = Ethernet ]; then for e in "$q"/gids/*; do [ $k -lt ' +
  MAX_GIDS +
  ' ] || break; v=; read -r v 2>/dev/null < "$e" || continue; ' +
  'case $v in 0000:0000:0000:0000:0000:0000:0000:0000|fe80:0000:0000:0000:0000:0000:0000:0000) continue;; esac; x=${e##*/}; t=; d=; ' +
  'read -r t 2>/dev/null < "$q/gid_attrs/types/$x"; read -r d 2>/dev/null < "$q/gid_attrs/ndevs/$x"; k=$((k+1)); ' +
  'printf \'gid\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n\' "${i##*/}" "${q##*/}" "$x" "$v" "$t" "$d"; done; fi';

/** The IB port counters read (Documentation/ABI/testing/sysfs-class-infiniband, ports/N/counters). */
export const PORT_COUNTERS = ['symbol_error', 'link_downed', 'link_error_recovery', 'port_rcv_errors'] as const;

/** sh: `cnt NAME PORT` and PORT_COUNTERS of port `$q` of device `$i` (`$1` the line's kind: cnt or cnt2). */
const COUNTER_LINES =
  `cnt() { printf '%s\\t%s\\t%s' "$1" "\${i##*/}" "\${q##*/}"; for c in ${PORT_COUNTERS.join(' ')}; do v=; ` +
  '[ -r "$q/counters/$c" ] && read -r v < "$q/counters/$c"; printf \'\\t%s\' "$v"; done; printf \'\\n\'; }';

/**
 * sh: `aer PATH COR FATAL NONFATAL` (`$1` the kind: aer or aer2) from the TOTAL_ERR_* line of each of the
 * device's aer_dev_* files (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats); nothing where the
 * device has none (no AER capability, or a kernel before 5.1).
 */
const AER_LINES =
  'tot() { t=; [ -r "$1" ] || return 0; while read -r x y; do case $x in TOTAL_ERR_*) t=$y;; esac; done < "$1"; }; ' +
  'aer() { tot "$2/aer_dev_correctable"; c=$t; tot "$2/aer_dev_fatal"; f=$t; tot "$2/aer_dev_nonfatal"; u=$t; ' +
  '[ -n "$c$f$u" ] && printf \'%s\\t%s\\t%s\\t%s\\t%s\\n\' "$1" "$2" "$c" "$f" "$u"; return 0; }';

/**
 * POSIX sh; prints tab-separated lines `ib NAME PATH FW_VER`, `port NAME N STATE LINK_LAYER RATE`,
 * `gid NAME PORT INDEX GID TYPE NETDEV` (RoCE ports), `cnt NAME PORT` + PORT_COUNTERS, `gpu PATH`, and
 * `pci PATH` + one field per attribute of ATTRS for every PCI device on those paths (once each), each
 * followed by its `aer` line; then, a second later, the counters again as `cnt2` and `aer2` lines, so a
 * count that grows while the host is read shows.
 */
export const PCI_SYSFS_COMMAND = [
  'n=0; k=0; seen=" "',
  COUNTER_LINES,
  AER_LINES,
  'emit() { d=$1; while :; do b=${d##*/}; case $b in ????:??:??.?) ;; *) break;; esac; case $seen in *" $d "*) break;; esac; ' +
    'n=$((n+1)); [ $n -le ' +
    MAX_DEVICES +
    ' ] || break; seen="$seen$d "; printf \'pci\\t%s\' "$d"; ' +
    `for a in ${ATTRS.join(' ')}; do v=; [ -r "$d/$a" ] && read -r v < "$d/$a"; printf '\\t%s' "$v"; done; printf '\\n'; aer aer "$d"; d=\${d%/*}; done; }`,
  ...deviceLoops(
    'f=; [ -r "$i/fw_ver" ] && read -r f < "$i/fw_ver"; printf \'ib\\t%s\\t%s\\t%s\\n\' "${i##*/}" "$p" "$f"; for q in "$i"/ports/*; do [ -d "$q" ] || continue; s=; l=; r=; ' +
      '[ -r "$q/state" ] && read -r s < "$q/state"; [ -r "$q/link_layer" ] && read -r l < "$q/link_layer"; [ -r "$q/rate" ] && read -r r < "$q/rate"; ' +
      'printf \'port\\t%s\\t%s\\t%s\\t%s\\t%s\\n\' "${i##*/}" "${q##*/}" "$s" "$l" "$r"; if [ -d "$q/counters" ]; then cnt cnt; fi; ' +
      `${GID_LINES}; done; emit "$p"`,
    'printf \'gpu\\t%s\\n\' "$p"; emit "$p"',
  ),
  // The second reading: a second later, the same counters of the same ports and devices.
  'sleep 1',
  'for i in /sys/class/infiniband/*; do for q in "$i"/ports/*; do [ -d "$q/counters" ] && cnt cnt2; done; done',
  'for d in $seen; do aer aer2 "$d"; done',
].join('\n');

export interface PciDevice {
  /** Resolved sysfs path: `/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0`. */
  readonly path: string;
  readonly bdf: string;
  /** `0x030200`; "" when unreadable. */
  readonly class: string;
  readonly vendor: string;
  readonly device: string;
  /** null when unreadable; -1 as the kernel prints it when the platform gives none. */
  readonly numaNode: number | null;
  readonly maxLinkSpeed: string;
  readonly maxLinkWidth: number | null;
  readonly currentLinkSpeed: string;
  readonly currentLinkWidth: number | null;
}

/** A device on a path whose sysfs attributes were not read (a bridge above the devices the probe lists). */
export function unreadPciDevice(path: string, bdf: string): PciDevice {
  return {
    path,
    bdf,
    class: '',
    vendor: '',
    device: '',
    numaNode: null,
    maxLinkSpeed: '',
    maxLinkWidth: null,
    currentLinkSpeed: '',
    currentLinkWidth: null,
  };
}

export interface RdmaPort {
  readonly port: number;
  /** `ACTIVE`, `DOWN`, `INIT`… (the name after `4: ` in the state file); "" when unreadable. */
  readonly state: string;
  /** `InfiniBand`, `Ethernet`; "" when unreadable. */
  readonly linkLayer: string;
  /** `400 Gb/sec (4X NDR)`. */
  readonly rate: string;
  /** Populated GID entries of a RoCE (Ethernet) port; [] for InfiniBand ports and when none was read. */
  readonly gids: GidEntry[];
}

export interface RdmaSysfsDevice {
  readonly name: string;
  readonly path: string;
  /** /sys/class/infiniband/<dev>/fw_ver (`28.39.1002`); null when not read. */
  readonly fwVer: string | null;
  readonly ports: RdmaPort[];
}

/** Error counters read twice, a second apart: `later` null where the second reading is missing. */
export interface CounterReading<T> {
  readonly now: T;
  readonly later: T | null;
}

/** TOTAL_ERR_COR, TOTAL_ERR_FATAL, TOTAL_ERR_NONFATAL; null where a file was not there. */
export interface AerCounts {
  readonly correctable: number | null;
  readonly fatal: number | null;
  readonly nonfatal: number | null;
}

/** PORT_COUNTERS by name; null where unreadable. */
export type PortCounts = Readonly<Record<(typeof PORT_COUNTERS)[number], number | null>>;

export interface PciSysfs {
  /** AER counters by device path (only devices that have them). */
  readonly aer?: ReadonlyMap<string, CounterReading<AerCounts>>;
  /** IB port error counters by `device:port`. */
  readonly portCounters?: ReadonlyMap<string, CounterReading<PortCounts>>;
  readonly rdma: RdmaSysfsDevice[];
  /** Paths of NVIDIA display/3D controllers and NVSwitches (class 0x03…, 0x0680…). */
  readonly nvidia: string[];
  readonly devices: ReadonlyMap<string, PciDevice>;
}

const WHAT = 'PCI sysfs read';
const BDF = /^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

export function parsePciSysfs(text: string): Parsed<PciSysfs> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const out = {
    rdma: [] as { name: string; path: string; fwVer: string | null; ports: RdmaPort[] }[],
    nvidia: [] as string[],
    devices: new Map<string, PciDevice>(),
    aer: new Map<string, CounterReading<AerCounts>>(),
    portCounters: new Map<string, CounterReading<PortCounts>>(),
  };
  for (let i = 0; i < read.value.length; i++) {
    const line = read.value[i];
    if (line.trim() === '') continue;
    const problem = readLine(line.split('\t'), out);
    if (problem) return fail(i + 1, `${WHAT}: ${problem}, found ${quote(line)}`);
  }
  return ok(out);
}

type Building = {
  rdma: { name: string; path: string; fwVer: string | null; ports: RdmaPort[] }[];
  nvidia: string[];
  devices: Map<string, PciDevice>;
  aer: Map<string, CounterReading<AerCounts>>;
  portCounters: Map<string, CounterReading<PortCounts>>;
};

const count = (s: string | undefined): number | null => (s !== undefined && /^\d{1,15}$/.test(s.trim()) ? Number(s.trim()) : null);

/** `aer`/`aer2` and `cnt`/`cnt2` lines: the first and the second reading of error counters. */
function counterLine(f: readonly string[], out: Building): string | null {
  if ((f[0] === 'aer' || f[0] === 'aer2') && f.length === 5 && f[1].startsWith('/sys/')) {
    const counts = { correctable: count(f[2]), fatal: count(f[3]), nonfatal: count(f[4]) };
    const known = out.aer.get(f[1]);
    if (f[0] === 'aer') out.aer.set(f[1], { now: counts, later: null });
    else if (known) out.aer.set(f[1], { ...known, later: counts });
    return null;
  }
  if ((f[0] === 'cnt' || f[0] === 'cnt2') && f.length === 3 + PORT_COUNTERS.length && /^\d+$/.test(f[2])) {
    const counts = Object.fromEntries(PORT_COUNTERS.map((c, i) => [c, count(f[3 + i])])) as PortCounts;
    const key = `${f[1]}:${f[2]}`;
    const known = out.portCounters.get(key);
    if (f[0] === 'cnt') out.portCounters.set(key, { now: counts, later: null });
    else if (known) out.portCounters.set(key, { ...known, later: counts });
    return null;
  }
  return 'expected an "ib", "port", "gid", "cnt", "gpu", "pci" or "aer" line';
}

/** One line into `out`; the problem in words when it is not one the script prints. */
function readLine(f: readonly string[], out: Building): string | null {
  // `ib NAME PATH` without FW_VER: a probe from before fw_ver was read (a saved folder).
  if (f[0] === 'ib' && (f.length === 3 || f.length === 4) && f[2].startsWith('/sys/')) {
    const badName = deviceNameProblem(f[1]);
    if (badName !== null) return badName;
    out.rdma.push({ name: f[1], path: f[2], fwVer: f[3]?.trim() || null, ports: [] });
  } else if (f[0] === 'port' && f.length === 6 && /^\d+$/.test(f[2])) {
    const dev = out.rdma.find((d) => d.name === f[1]);
    if (!dev) return `a port of ${quote(f[1])} before its "ib" line`;
    dev.ports.push({ port: Number(f[2]), state: f[3].replace(/^\d+:\s*/, ''), linkLayer: f[4], rate: f[5], gids: [] });
  } else if (f[0] === 'gid' && f.length === 7 && /^\d+$/.test(f[2]) && /^\d+$/.test(f[3])) {
    const port = out.rdma.find((d) => d.name === f[1])?.ports.find((p) => p.port === Number(f[2]));
    if (!port) return `a GID of ${quote(`${f[1]} port ${f[2]}`)} before its "port" line`;
    port.gids.push({
      device: f[1],
      port: port.port,
      index: Number(f[3]),
      gid: f[4].trim().toLowerCase(),
      roceVersion: roceVersionOf(f[5]),
      netdev: f[6].trim() || null,
    });
  } else if (f[0] === 'gpu' && f.length === 2 && f[1].startsWith('/sys/')) out.nvidia.push(f[1]);
  else if (f[0] === 'pci' && f.length === 2 + ATTRS.length) {
    const device = pciDevice(f);
    if (!device) return 'expected a PCI device path ending in a bus address';
    out.devices.set(device.path, device);
  } else return counterLine(f, out);
  return null;
}

function pciDevice(f: readonly string[]): PciDevice | null {
  const path = f[1];
  const bdf = path.slice(path.lastIndexOf('/') + 1);
  if (!path.startsWith('/sys/') || !BDF.test(bdf)) return null;
  const int = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : null);
  return {
    path,
    bdf: bdf.toLowerCase(),
    class: f[2],
    vendor: f[3],
    device: f[4],
    numaNode: int(f[5]),
    maxLinkSpeed: f[6],
    maxLinkWidth: int(f[7]),
    currentLinkSpeed: f[8],
    currentLinkWidth: int(f[9]),
  };
}
