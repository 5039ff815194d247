// The PCIe links of the GPU↔NIC fabric, each judged by both of its ends. A link joins a port that faces
// down (a root port or a switch's downstream port) and the device below it (an endpoint or a switch's
// upstream port); both report the same trained speed and width in sysfs (current_link_*: the Link Status
// register, PCIe Base Specification §7.5.3.8), and the link can train no higher than the weaker end's
// maximum (max_link_*: Link Capabilities). So a Gen4 NIC under a Gen5 port runs at full speed at Gen4,
// and a downstream port's own max says nothing about the link on its own. Which way a bridge faces is read
// from the tree: the first bridge below a root bus is a root port, and below a port that faces down sits
// an upstream port (the other end of its link), whose own children are the switch's downstream ports.
import type { PciDevice, PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { normalizeBusId } from './gpuFacts';

/** Whether the GPUs below a link are busy now (nvidia-smi -q utilization, running processes). */
export type Load = 'busy' | 'idle' | 'unknown' | 'no-gpu';

export interface PcieLink {
  /** The end below: an endpoint (GPU, NIC) or a switch's upstream port; its current_link_* is the link's. */
  readonly device: PciDevice;
  /** The port above it; null where sysfs gave none (the device sits on a root bus). */
  readonly port: PciDevice | null;
  /** `GPU0`, `mlx5_3`, or `switch` for a switch's upstream port. */
  readonly role: string;
  /** The lower of the two ends' maximum width and speed; null where neither end says. */
  readonly maxWidth: number | null;
  readonly maxSpeed: string | null;
  readonly load: Load;
}

export function gts(speed: string): number | null {
  const m = /^(\d+(?:\.\d+)?) GT\/s/.exec(speed.trim());
  return m ? Number(m[1]) : null;
}

const parentPath = (path: string): string => path.slice(0, path.lastIndexOf('/'));

function isBridge(sysfs: PciSysfs, d: PciDevice): boolean {
  if (d.class.startsWith('0x0604') || d.class.startsWith('0x0609')) return true;
  // A device with devices below it in the tree is a bridge, whatever its class read as.
  return d.class === '' && [...sysfs.devices.keys()].some((p) => p.startsWith(`${d.path}/`));
}

/** A root port or a switch downstream port: the link its current_link_* describes is the one below it. */
export function facesDown(sysfs: PciSysfs, d: PciDevice): boolean {
  if (!isBridge(sysfs, d)) return false;
  const parent = sysfs.devices.get(parentPath(d.path));
  if (!parent) return /\/pci[0-9a-f]{4}:[0-9a-f]{2}$/.test(parentPath(d.path));
  return !facesDown(sysfs, parent);
}

function lower<T>(a: T | null, b: T | null, value: (x: T) => number | null): T | null {
  const [va, vb] = [a === null ? null : value(a), b === null ? null : value(b)];
  if (va === null) return vb === null ? null : b;
  if (vb === null) return a;
  return vb < va ? b : a;
}

/** Per GPU bus address: busy (utilization above 0 % or a process on it), idle, or not printed. */
export function gpuLoads(report: ProbeReport): Map<string, Load> {
  const out = new Map<string, Load>();
  for (const g of factOf(report, 'smi-q')?.gpus ?? []) {
    const bdf = normalizeBusId(g.busId);
    if (!bdf) continue;
    const util = /^(\d+(?:\.\d+)?)\s*%$/.exec((g.utilizationGpu ?? '').trim());
    const running = (g.processes?.length ?? 0) > 0;
    out.set(bdf, running || (util !== null && Number(util[1]) > 0) ? 'busy' : util !== null ? 'idle' : 'unknown');
  }
  return out;
}

function loadBelow(sysfs: PciSysfs, d: PciDevice, loads: ReadonlyMap<string, Load>): Load {
  const gpus = sysfs.nvidia
    .map((p) => sysfs.devices.get(p))
    .filter((g): g is PciDevice => g !== undefined && g.class.startsWith('0x03') && (g.path === d.path || g.path.startsWith(`${d.path}/`)));
  if (gpus.length === 0) return 'no-gpu';
  const each = gpus.map((g) => loads.get(g.bdf) ?? 'unknown');
  return each.includes('busy') ? 'busy' : each.every((l) => l === 'idle') ? 'idle' : 'unknown';
}

/** The link above `d` (which must not face down), with both ends' limits and the load below it. */
export function linkAbove(sysfs: PciSysfs, d: PciDevice, role: string, loads: ReadonlyMap<string, Load>): PcieLink {
  const port = sysfs.devices.get(parentPath(d.path)) ?? null;
  const width = lower(d.maxLinkWidth, port?.maxLinkWidth ?? null, (w) => (w > 0 ? w : null));
  const speed = lower(d.maxLinkSpeed || null, port?.maxLinkSpeed || null, gts);
  return { device: d, port, role, maxWidth: width, maxSpeed: speed, load: loadBelow(sysfs, d, loads) };
}
