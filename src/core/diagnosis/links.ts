// `pcie.link-degraded` (docs/platform.md §6): a link on the way between GPUs and NICs trained below what
// both of its ends can do — the most common hardware reason for "GPUDirect RDMA works but is slow". sysfs
// has both numbers without root (Documentation/ABI/testing/sysfs-bus-pci: max_link_speed/width, the
// capability; current_link_speed/width, what the link trained to), and each link is judged against the
// weaker of its two ends (pcieLinks.ts): a Gen4 NIC under a Gen5 port is not degraded.
// Width never changes with load, so fewer lanes is a warning whenever it shows. Speed does: NVIDIA GPUs
// and the ports above them drop to 2.5 GT/s when idle and train up under load (nvidia-smi -q "GPU Link
// Info": "Current" below "Max" at idle). A link with a GPU below it is slow only while that GPU is busy
// (utilization above 0 % or a process on it); idle, or with its load unread, it is information.
import type { PciDevice, PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { Finding } from './finding';
import { gpuFacts } from './gpuFacts';
import { PairPath, pathBridges } from './pciePaths';
import { PcieLink, facesDown, gpuLoads, gts, linkAbove } from './pcieLinks';
import { t } from '../l10n';

export interface DegradedLink {
  readonly link: PcieLink;
  readonly width: { current: number; max: number } | null;
  readonly speed: { current: string; max: string } | null;
}

/** The link against the weaker of its two ends; null when it trained fully or the numbers are not there. */
export function degradedLink(link: PcieLink): DegradedLink | null {
  const d = link.device;
  const current = d.currentLinkWidth ?? link.port?.currentLinkWidth ?? null;
  const max = link.maxWidth;
  const width = current !== null && max !== null && current > 0 && current < max ? { current, max } : null;
  const speedNow = d.currentLinkSpeed || link.port?.currentLinkSpeed || '';
  const [cur, top] = [gts(speedNow), link.maxSpeed === null ? null : gts(link.maxSpeed)];
  const speed = cur !== null && top !== null && cur < top ? { current: speedNow, max: link.maxSpeed as string } : null;
  return width || speed ? { link, width, speed } : null;
}

/** The links above GPUs, RDMA NICs and the switches on the GPU↔NIC paths, each once. */
function links(report: ProbeReport, sysfs: PciSysfs, paths: readonly PairPath[]): PcieLink[] {
  const out = new Map<string, { device: PciDevice; role: string }>();
  const names = new Map(gpuFacts(report, sysfs).map((g) => [g.busId, g.name]));
  sysfs.nvidia.forEach((p) => {
    const d = sysfs.devices.get(p);
    if (d && d.class.startsWith('0x03')) out.set(d.bdf, { device: d, role: names.get(d.bdf) ?? `GPU ${d.bdf}` });
  });
  for (const r of sysfs.rdma) {
    const d = sysfs.devices.get(r.path);
    if (d && !out.has(d.bdf)) out.set(d.bdf, { device: d, role: r.name });
  }
  // A port that faces down reports the link below it: that link is judged at the device below.
  for (const b of pathBridges(paths)) if (!out.has(b.bdf) && !facesDown(sysfs, b)) out.set(b.bdf, { device: b, role: 'switch' });
  const loads = gpuLoads(report);
  return [...out.values()].map((c) => linkAbove(sysfs, c.device, c.role, loads));
}

export function linkFindings(report: ProbeReport, paths: readonly PairPath[]): Finding[] {
  const sysfs = factOf(report, 'pci-sysfs');
  if (!sysfs) return [];
  const degraded = links(report, sysfs, paths)
    .map(degradedLink)
    .filter((d): d is DegradedLink => d !== null);
  // Speed alone, with GPUs below that are not shown busy: their idle power saving.
  const idle = degraded.filter((d) => d.width === null && d.link.load !== 'busy' && d.link.load !== 'no-gpu');
  const real = degraded.filter((d) => !idle.includes(d));
  return [...(real.length > 0 ? [finding(real, 'warning')] : []), ...(idle.length > 0 ? [finding(idle, 'info')] : [])];
}

function linkName(l: PcieLink): string {
  return `${l.role} ${l.device.bdf}${l.port ? ` ↔ ${l.port.bdf}` : ''}`;
}

function describe(d: DegradedLink): string {
  const parts = [d.width ? `x${d.width.current} of x${d.width.max}` : null, d.speed ? `${d.speed.current} of ${d.speed.max}` : null];
  const load = d.link.load === 'busy' ? ' (GPU busy)' : d.link.load === 'idle' ? ' (GPU idle)' : '';
  return `${linkName(d.link)}: ${parts.filter(Boolean).join(', ')}${load}`;
}

function evidenceOf(d: PciDevice): string {
  const width = `current_link_width ${d.currentLinkWidth ?? '?'} (max ${d.maxLinkWidth ?? '?'})`;
  const speed = `current_link_speed ${d.currentLinkSpeed || '?'} (max ${d.maxLinkSpeed || '?'})`;
  return `/sys/bus/pci/devices/${d.bdf}: ${width}, ${speed}`;
}

function finding(degraded: readonly DegradedLink[], severity: 'warning' | 'info'): Finding {
  const idle = severity === 'info';
  return {
    id: 'pcie.link-degraded',
    severity,
    title: idle
      ? t('GPU PCIe link below its top speed (likely idle power saving): {0}', degraded.map((l) => l.link.role).join(', '))
      : t('PCIe link trained below capability: {0}', degraded.map((l) => l.link.role).join(', ')),
    detail:
      `${degraded.map(describe).join('; ')}. ` +
      (idle
        ? t(
            'NVIDIA GPUs and the ports above them drop their link speed when idle and raise it under load; the lanes stay. Check "Link Gen Current" in nvidia-smi -q while a job runs: only a link that stays slow under load is degraded.',
          )
        : t(
            'Each link is compared with the weaker of its two ends\' maximum (sysfs max_link_width/max_link_speed of the device and of the port above it). A link at fewer lanes, or at a lower speed while busy, caps every transfer over it, GPUDirect RDMA included. Reseat the card or riser, check the slot\'s lane wiring and the BIOS link settings (a slot running x8, bifurcation, "Gen" limits), and compare with a healthy node.',
          )),
    evidence: degraded
      .slice(0, 4)
      .flatMap((d) => [evidenceOf(d.link.device), ...(d.link.port ? [evidenceOf(d.link.port)] : [])])
      .slice(0, 6),
    fixes: [],
    source: 'Linux Documentation/ABI/testing/sysfs-bus-pci (current_link_speed/width, max_link_speed/width); nvidia-smi -q "GPU Link Info"',
  };
}
