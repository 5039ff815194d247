// `pcie.link-degraded` (docs/platform.md §6): a GPU, a NIC, or a bridge between them trained its PCIe
// link below what it and its slot can do — the most common hardware reason for "GPUDirect RDMA works
// but is slow". sysfs has both numbers without root: max_link_speed/width (the capability) and
// current_link_speed/width (what the link trained to), Documentation/ABI/testing/sysfs-bus-pci.
// NVIDIA GPUs lower their link speed (not width) when idle to save power (nvidia-smi -q shows it as
// "Link Gen Current" below "Max"), so a GPU's speed alone is only worth a note; width never changes so.
import type { PciDevice, PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { factOf } from './evidence';
import { Finding } from './finding';
import { gpuFacts } from './gpuFacts';
import { PairPath, pathBridges } from './pciePaths';
import { t } from '../l10n';

export interface DegradedLink {
  readonly device: PciDevice;
  /** `GPU0`, `mlx5_3`, or `bridge`. */
  readonly role: string;
  readonly width: { current: number; max: number } | null;
  readonly speed: { current: string; max: string } | null;
  /** The slot (upstream port) cannot do more: the device's own maximum is out of reach there. */
  readonly slotLimit: string | null;
}

function gts(speed: string): number | null {
  const m = /^(\d+(?:\.\d+)?) GT\/s/.exec(speed.trim());
  return m ? Number(m[1]) : null;
}

/** The device's link against its own maximum; null when it trained fully or the numbers are not there. */
export function degradedLink(sysfs: PciSysfs, d: PciDevice, role: string): DegradedLink | null {
  const width = d.currentLinkWidth !== null && d.maxLinkWidth !== null && d.currentLinkWidth > 0 && d.currentLinkWidth < d.maxLinkWidth
    ? { current: d.currentLinkWidth, max: d.maxLinkWidth } : null;
  const [cur, max] = [gts(d.currentLinkSpeed), gts(d.maxLinkSpeed)];
  const speed = cur !== null && max !== null && cur < max ? { current: d.currentLinkSpeed, max: d.maxLinkSpeed } : null;
  if (!width && !speed) return null;
  const port = sysfs.devices.get(d.path.slice(0, d.path.lastIndexOf('/')));
  const portWidth = port?.maxLinkWidth ?? null;
  const portSpeed = port ? gts(port.maxLinkSpeed) : null;
  const slot = [
    width && portWidth !== null && portWidth <= width.current ? `x${portWidth}` : null,
    speed && portSpeed !== null && cur !== null && portSpeed <= cur ? port?.maxLinkSpeed ?? null : null,
  ].filter((s): s is string => s !== null);
  return { device: d, role, width, speed, slotLimit: slot.length > 0 ? `its upstream port ${port?.bdf} supports at most ${slot.join(', ')}` : null };
}

/** GPUs, RDMA NICs and the bridges on the GPU↔NIC paths, each with its role. */
function candidates(report: ProbeReport, sysfs: PciSysfs, paths: readonly PairPath[]): { device: PciDevice; role: string }[] {
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
  for (const b of pathBridges(paths)) if (!out.has(b.bdf)) out.set(b.bdf, { device: b, role: 'bridge' });
  return [...out.values()];
}

export function linkFindings(report: ProbeReport, paths: readonly PairPath[]): Finding[] {
  const sysfs = factOf(report, 'pci-sysfs');
  if (!sysfs) return [];
  const degraded = candidates(report, sysfs, paths).map((c) => degradedLink(sysfs, c.device, c.role)).filter((d): d is DegradedLink => d !== null);
  // A GPU's lower speed at full width is its idle power saving, unless the slot caps it.
  const real = degraded.filter((d) => d.width !== null || !d.role.startsWith('GPU') || d.slotLimit !== null);
  const idle = degraded.filter((d) => !real.includes(d));
  return [...(real.length > 0 ? [finding(real, 'warning')] : []), ...(idle.length > 0 ? [finding(idle, 'info')] : [])];
}

function describe(d: DegradedLink): string {
  const parts = [d.width ? `x${d.width.current} of x${d.width.max}` : null, d.speed ? `${d.speed.current} of ${d.speed.max}` : null].filter(Boolean);
  return `${d.role} ${d.device.bdf}: ${parts.join(', ')}${d.slotLimit ? ` (${d.slotLimit})` : ''}`;
}

function finding(links: readonly DegradedLink[], severity: 'warning' | 'info'): Finding {
  const idle = severity === 'info';
  return {
    id: 'pcie.link-degraded',
    severity,
    title: idle ? t('GPU PCIe link below its top speed (likely idle power saving): {0}', links.map((l) => l.role).join(', ')) : t('PCIe link trained below capability: {0}', links.map((l) => l.role).join(', ')),
    detail: `${links.map(describe).join('; ')}. ` + (idle
      ? t('NVIDIA GPUs drop their link speed when idle and raise it under load; check "Link Gen Current" in nvidia-smi -q while a job runs. If it stays low, treat it as below.')
      : t('A link at fewer lanes or a lower generation than both ends support caps every transfer over it, GPUDirect RDMA included. Reseat the card or riser, check the slot\'s lane wiring and the BIOS link settings (a slot running x8, bifurcation, "Gen" limits), and compare with a healthy node.')),
    evidence: links.slice(0, 6).map((l) => `/sys/bus/pci/devices/${l.device.bdf}: current_link_width ${l.device.currentLinkWidth ?? '?'} (max ${l.device.maxLinkWidth ?? '?'}), current_link_speed ${l.device.currentLinkSpeed || '?'} (max ${l.device.maxLinkSpeed || '?'})`),
    fixes: [],
    source: 'Linux Documentation/ABI/testing/sysfs-bus-pci (current_link_speed/width, max_link_speed/width); nvidia-smi -q "GPU Link Info"',
  };
}
