// A PCIe link as sysfs shows it on the device at its lower end (current_link_speed/width against
// max_link_speed/width, Documentation/ABI/testing/sysfs-bus-pci), in the words engineers use:
// `Gen5 x16`. A link trains to the fastest speed and widest width both ends support, so current below
// max on the device itself means the link came up slower or narrower than the device can run.
import type { PciDevice } from '../../probe/pciSysfs';

export interface PcieLink {
  /** As sysfs prints it: `32.0 GT/s PCIe`; "" when unreadable. */
  readonly speed: string;
  readonly width: number | null;
  readonly maxSpeed: string;
  readonly maxWidth: number | null;
  /** Current speed or width below the device's maximum. */
  readonly degraded: boolean;
  /** The lower speed alone (width intact): GPUs lower their link speed when idle to save power. */
  readonly speedOnly: boolean;
}

/** Transfer rate (GT/s) → PCIe generation. */
const GENERATION: readonly [number, number][] = [
  [2.5, 1],
  [5, 2],
  [8, 3],
  [16, 4],
  [32, 5],
  [64, 6],
  [128, 7],
];

export function pcieLinkOf(d: PciDevice): PcieLink | null {
  if (d.currentLinkSpeed === '' && d.maxLinkSpeed === '' && d.currentLinkWidth === null && d.maxLinkWidth === null) return null;
  const cur = gtPerSecond(d.currentLinkSpeed);
  const max = gtPerSecond(d.maxLinkSpeed);
  const slower = cur !== null && max !== null && cur < max;
  // Width 0 is what a link that is down reads; that is below any maximum too.
  const narrower = d.currentLinkWidth !== null && d.maxLinkWidth !== null && d.currentLinkWidth < d.maxLinkWidth;
  return {
    speed: d.currentLinkSpeed,
    width: d.currentLinkWidth,
    maxSpeed: d.maxLinkSpeed,
    maxWidth: d.maxLinkWidth,
    degraded: slower || narrower,
    speedOnly: slower && !narrower,
  };
}

/** `Gen5 x16`; a degraded link also names its maximum: `Gen4 x8 (max Gen5 x16)`. */
export function linkText(link: PcieLink): string {
  const now = speedWidth(link.speed, link.width);
  return link.degraded ? `${now} (max ${speedWidth(link.maxSpeed, link.maxWidth)})` : now;
}

/** `Gen5 x16` for a speed and width as sysfs prints them. */
export function speedWidth(speed: string, width: number | null): string {
  const gts = gtPerSecond(speed);
  const gen = gts === null ? undefined : GENERATION.find(([rate]) => rate === gts)?.[1];
  const s = gen !== undefined ? `Gen${gen}` : gts !== null ? `${gts} GT/s` : 'speed ?';
  return `${s} x${width ?? '?'}`;
}

/** `32.0 GT/s PCIe`, `8 GT/s` → 32, 8; null when unreadable (`Unknown`, ""). */
export function gtPerSecond(speed: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*GT\/s/.exec(speed.trim());
  return m ? Number(m[1]) : null;
}
