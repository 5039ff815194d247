// GPUDirect RDMA health as Prometheus gauges (README "Metrics" lists them): per host whether the probe
// ran and when, its findings; per GPU NCCL's verdict and the NIC and path it rests on; per GPU and
// RDMA NIC its PCIe link; the peer-memory modules. Labels that mean what DCGM exporter's mean carry its
// names (`gpu` the NVML index, `pci_bus_id` as NVML prints it, `UUID`, `Hostname`:
// NVIDIA/dcgm-exporter internal/pkg/rendermetrics/render_metrics.go), so dashboards join the two.
// A series is named by what identifies the thing, never by the answer: a GPU whose verdict changes
// stays one series whose value changes.
import type { HostSnapshot, SnapshotGpu } from '../watch/snapshot';
import { Labels, MetricFamily } from './exposition';

/** The labels that say which host a series is about: `host` (a remote host, a fleet) or `Hostname` (this machine, as DCGM exporter). */
export type HostLabels = (snapshot: HostSnapshot) => Labels;

type Sample = { labels: Labels; value: number };

const SEVERITIES = ['error', 'warning', 'info'] as const;

/** Unknown is never yes: a verdict resting on facts not read is NaN, which neither `== 1` nor `== 0` matches. */
export function gdrValue(gdr: boolean | null): number {
  return gdr === null ? NaN : gdr ? 1 : 0;
}

export function healthFamilies(snapshots: readonly HostSnapshot[], hostLabels: HostLabels): MetricFamily[] {
  const per = (fn: (s: HostSnapshot, host: Labels) => Sample[]) => snapshots.flatMap((s) => fn(s, hostLabels(s)));
  const reached = (fn: (s: HostSnapshot, host: Labels) => Sample[]) => per((s, host) => (s.error === null ? fn(s, host) : []));
  return [
    family(
      'gdr_doctor_up',
      "1 when gdr-doctor's probe of the host ran to its end; 0 when the host could not be reached or the probe was cut off.",
      per((s, host) => [{ labels: host, value: s.error === null && s.complete ? 1 : 0 }]),
    ),
    family(
      'gdr_doctor_last_run_timestamp_seconds',
      'When gdr-doctor last diagnosed the host (Unix time, seconds).',
      per((s, host) => [{ labels: host, value: s.collectedAt === null ? NaN : Math.floor(Date.parse(s.collectedAt) / 1000) }]),
    ),
    family(
      'gdr_doctor_findings',
      "1 for each finding gdr-doctor reports on the host (id and severity as in gdr-doctor's README).",
      reached((s, host) => s.findings.map((f) => ({ labels: { ...host, severity: f.severity, id: f.id }, value: 1 }))),
    ),
    family(
      'gdr_doctor_findings_by_severity',
      'How many findings of each severity gdr-doctor reports on the host.',
      reached((s, host) =>
        SEVERITIES.map((severity) => ({ labels: { ...host, severity }, value: s.findings.filter((f) => f.severity === severity).length })),
      ),
    ),
    ...gpuFamilies(reached),
    ...linkFamilies(reached),
    family(
      'gdr_doctor_peer_memory_module_loaded',
      'Whether the peer-memory kernel module is loaded (lsmod).',
      reached((s, host) => Object.entries(s.modules).map(([module, loaded]) => ({ labels: { ...host, module }, value: loaded ? 1 : 0 }))),
    ),
  ];
}

function gpuLabels(host: Labels, g: SnapshotGpu): Labels {
  return { ...host, gpu: String(g.index), pci_bus_id: g.pciBusId ?? '', ...(g.uuid !== null ? { UUID: g.uuid } : {}) };
}

function gpuFamilies(reached: (fn: (s: HostSnapshot, host: Labels) => Sample[]) => Sample[]): MetricFamily[] {
  return [
    family(
      'gdr_doctor_gpu_gdr',
      'Whether NCCL would use GPUDirect RDMA for this GPU (1 yes, 0 no, NaN unknown: a fact it rests on was not read).',
      reached((s, host) => s.gpus.map((g) => ({ labels: gpuLabels(host, g), value: gdrValue(g.gdr) }))),
    ),
    family(
      'gdr_doctor_gpu_nic_info',
      'The NIC port NCCL gives this GPU and its path class (PIX, PXB, PXN, P2C, PHB, SYS); always 1.',
      reached((s, host) =>
        s.gpus.flatMap((g) => g.nics.map((nic) => ({ labels: { ...gpuLabels(host, g), nic, path: g.path ?? '' }, value: 1 }))),
      ),
    ),
  ];
}

function linkFamilies(reached: (fn: (s: HostSnapshot, host: Labels) => Sample[]) => Sample[]): MetricFamily[] {
  const link = (name: string, help: string, value: (l: HostSnapshot['links'][number]) => number | null) =>
    family(
      name,
      help,
      reached((s, host) =>
        s.links.flatMap((l) => {
          const v = value(l);
          return v === null ? [] : [{ labels: { ...host, device: l.device, pci_bus_id: l.pciBusId }, value: v }];
        }),
      ),
    );
  return [
    link('gdr_doctor_pcie_link_width', 'The PCIe link width a GPU or RDMA NIC trained at (sysfs current_link_width).', (l) => l.width),
    link('gdr_doctor_pcie_link_max_width', 'The widest PCIe link the device supports (sysfs max_link_width).', (l) => l.maxWidth),
    link(
      'gdr_doctor_pcie_link_speed_gt_per_second',
      'The PCIe link speed a GPU or RDMA NIC trained at, GT/s (sysfs current_link_speed).',
      (l) => l.speed,
    ),
    link(
      'gdr_doctor_pcie_link_max_speed_gt_per_second',
      'The fastest PCIe link speed the device supports, GT/s (sysfs max_link_speed).',
      (l) => l.maxSpeed,
    ),
  ];
}

export function family(name: string, help: string, samples: readonly Sample[]): MetricFamily {
  return { name, help, type: 'gauge', samples };
}
