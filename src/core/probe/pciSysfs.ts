// The probe's read of the PCI tree in sysfs, where NCCL itself learns device locality
// (src/graph/xml.cc ncclTopoGetXmlFromSys; src/transport/net_ib/init.cc ncclIbGetPciPath): every RDMA
// device and NVIDIA GPU/NVSwitch with its real sysfs path, each PCI device on those paths with its
// class, ids, NUMA node and link speed/width, and every RDMA port's state. Read-only, no root.
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';

/** Most devices it prints: far above a real host (an NVL72 tray has a few dozen), a bound for a broken sysfs. */
const MAX_DEVICES = 512;

const ATTRS = ['class', 'vendor', 'device', 'numa_node', 'max_link_speed', 'max_link_width', 'current_link_speed', 'current_link_width'];

/**
 * POSIX sh; prints tab-separated lines `ib NAME PATH`, `port NAME N STATE LINK_LAYER RATE`, `gpu PATH`,
 * and `pci PATH` + one field per attribute of ATTRS for every PCI device on those paths (once each).
 * `cd -P … && pwd -P` resolves the symlinks as readlink -f would, without needing readlink.
 */
export const PCI_SYSFS_COMMAND = [
  'n=0; seen=" "',
  'emit() { d=$1; while :; do b=${d##*/}; case $b in ????:??:??.?) ;; *) break;; esac; case $seen in *" $d "*) break;; esac; ' +
    'n=$((n+1)); [ $n -le ' + MAX_DEVICES + ' ] || break; seen="$seen$d "; printf \'pci\\t%s\' "$d"; ' +
    `for a in ${ATTRS.join(' ')}; do v=; [ -r "$d/$a" ] && read -r v < "$d/$a"; printf '\\t%s' "$v"; done; printf '\\n'; d=\${d%/*}; done; }`,
  'for i in /sys/class/infiniband/*; do [ -e "$i/device" ] || continue; p=$(cd -P "$i/device" 2>/dev/null && pwd -P) || continue; ' +
    'printf \'ib\\t%s\\t%s\\n\' "${i##*/}" "$p"; for q in "$i"/ports/*; do [ -d "$q" ] || continue; s=; l=; r=; ' +
    '[ -r "$q/state" ] && read -r s < "$q/state"; [ -r "$q/link_layer" ] && read -r l < "$q/link_layer"; [ -r "$q/rate" ] && read -r r < "$q/rate"; ' +
    'printf \'port\\t%s\\t%s\\t%s\\t%s\\t%s\\n\' "${i##*/}" "${q##*/}" "$s" "$l" "$r"; done; emit "$p"; done',
  'for g in /sys/bus/pci/devices/*; do [ -r "$g/vendor" ] || continue; read -r v < "$g/vendor"; [ "$v" = 0x10de ] || continue; ' +
    'read -r c < "$g/class"; case $c in 0x03*|0x0680*) ;; *) continue;; esac; p=$(cd -P "$g" 2>/dev/null && pwd -P) || continue; ' +
    'printf \'gpu\\t%s\\n\' "$p"; emit "$p"; done',
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

export interface RdmaPort {
  readonly port: number;
  /** `ACTIVE`, `DOWN`, `INIT`… (the name after `4: ` in the state file); "" when unreadable. */
  readonly state: string;
  /** `InfiniBand`, `Ethernet`; "" when unreadable. */
  readonly linkLayer: string;
  /** `400 Gb/sec (4X NDR)`. */
  readonly rate: string;
}

export interface RdmaSysfsDevice {
  readonly name: string;
  readonly path: string;
  readonly ports: RdmaPort[];
}

export interface PciSysfs {
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
  const rdma: { name: string; path: string; ports: RdmaPort[] }[] = [];
  const nvidia: string[] = [];
  const devices = new Map<string, PciDevice>();
  for (let i = 0; i < read.value.length; i++) {
    const line = read.value[i];
    if (line.trim() === '') continue;
    const f = line.split('\t');
    const bad = (why: string) => fail(i + 1, `${WHAT}: ${why}, found ${quote(line)}`);
    if (f[0] === 'ib' && f.length === 3 && f[2].startsWith('/sys/')) rdma.push({ name: f[1], path: f[2], ports: [] });
    else if (f[0] === 'port' && f.length === 6 && /^\d+$/.test(f[2])) {
      const dev = rdma.find((d) => d.name === f[1]);
      if (!dev) return bad(`a port of ${quote(f[1])} before its "ib" line`);
      dev.ports.push({ port: Number(f[2]), state: f[3].replace(/^\d+:\s*/, ''), linkLayer: f[4], rate: f[5] });
    } else if (f[0] === 'gpu' && f.length === 2 && f[1].startsWith('/sys/')) nvidia.push(f[1]);
    else if (f[0] === 'pci' && f.length === 2 + ATTRS.length) {
      const device = pciDevice(f);
      if (!device) return bad('expected a PCI device path ending in a bus address');
      devices.set(device.path, device);
    } else return bad('expected an "ib", "port", "gpu" or "pci" line');
  }
  return ok({ rdma, nvidia, devices });
}

function pciDevice(f: readonly string[]): PciDevice | null {
  const path = f[1];
  const bdf = path.slice(path.lastIndexOf('/') + 1);
  if (!path.startsWith('/sys/') || !BDF.test(bdf)) return null;
  const int = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : null);
  return {
    path, bdf: bdf.toLowerCase(), class: f[2], vendor: f[3], device: f[4], numaNode: int(f[5]),
    maxLinkSpeed: f[6], maxLinkWidth: int(f[7]), currentLinkSpeed: f[8], currentLinkWidth: int(f[9]),
  };
}
