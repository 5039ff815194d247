// One host's GPUDirect RDMA health reduced to what is watched over time: the findings, each GPU's
// verdict with the NIC and path it rests on, the PCIe links of the GPUs and RDMA NICs, the versions
// (driver, kernel, OFED, firmware) and the peer-memory modules. Prometheus metrics (metrics/), `gdr-doctor
// diff` and the extension's Watch all read this, built from a live diagnosis or from a saved `--json`
// report alike, so they say the same thing about the same host.
import type { Severity } from '../diagnosis/finding';
import { factOf } from '../diagnosis/evidence';
import { gpuFacts, normalizeBusId } from '../diagnosis/gpuFacts';
import type { PciSysfs } from '../probe/pciSysfs';
import type { ProbeReport } from '../probe/runProbe';
import { gtPerSecond } from '../topology/pcie/link';

export interface SnapshotFinding {
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
}

export interface SnapshotGpu {
  /** `GPU0`, as the matrix and the pairs name it. */
  readonly gpu: string;
  /** NVML's index (DCGM exporter's `gpu` label). */
  readonly index: number;
  /** As NVML and DCGM exporter print it: `00000000:18:00.0`; null when no output gave it. */
  readonly pciBusId: string | null;
  readonly uuid: string | null;
  /** NCCL would use GPUDirect RDMA for it; null: unknown (never read as yes). */
  readonly gdr: boolean | null;
  /** `mlx5_0:1`, the NIC port(s) NCCL gives it. */
  readonly nics: readonly string[];
  /** NCCL's path class to them (PIX, PXB, PXN, P2C, PHB, SYS), else the matrix's token; null without a NIC. */
  readonly path: string | null;
}

export interface SnapshotLink {
  /** `GPU0` or the RDMA device `mlx5_0`. */
  readonly device: string;
  readonly kind: 'gpu' | 'nic';
  readonly pciBusId: string;
  readonly width: number | null;
  readonly maxWidth: number | null;
  /** GT/s. */
  readonly speed: number | null;
  readonly maxSpeed: number | null;
}

export interface HostSnapshot {
  readonly host: string;
  /** When the probe started, or the attempt to reach the host (ISO); null when not known. */
  readonly collectedAt: string | null;
  /** The probe ran to its end: every section arrived. */
  readonly complete: boolean;
  /** Why the host could not be diagnosed, when it could not. */
  readonly error: string | null;
  /** Knock-on findings included, each once per id and severity. */
  readonly findings: readonly SnapshotFinding[];
  readonly gpus: readonly SnapshotGpu[];
  readonly links: readonly SnapshotLink[];
  /** `driver`, `kernel`, `ofed`, `firmware mlx5_0`, `vbios GPU0` → the version read. */
  readonly versions: Readonly<Record<string, string>>;
  /** Peer-memory modules → loaded; absent when lsmod was not read. */
  readonly modules: Readonly<Record<string, boolean>>;
}

/** What a snapshot needs of a finding (a Finding is one). */
export interface FindingInput {
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
  readonly children?: readonly FindingInput[];
}

/** What a snapshot needs of the diagnosis: the shapes of `diagnose --json`'s `findings` and `pairs`. */
export interface SnapshotVerdicts {
  readonly findings: readonly FindingInput[];
  readonly pairs: readonly {
    readonly gpu: string;
    readonly gdr: boolean | null;
    readonly nics: readonly { readonly nic: string; readonly device: string | null; readonly port: number | null }[];
    readonly link: string | null;
    readonly ncclPath: string | null;
  }[];
}

const PEER_MEMORY_MODULES = ['nvidia_peermem', 'nv_peer_mem'];

export function hostSnapshot(report: ProbeReport, verdicts: SnapshotVerdicts): HostSnapshot {
  const sysfs = factOf(report, 'pci-sysfs') ?? null;
  const gpus = snapshotGpus(report, sysfs, verdicts.pairs);
  return {
    host: report.host,
    collectedAt: report.collectedAt,
    complete: report.finished && !report.timedOut && !report.connectionLost,
    error: null,
    findings: flatFindings(verdicts.findings),
    gpus,
    links: sysfs ? snapshotLinks(sysfs, gpus) : [],
    versions: versionsOf(report, gpus),
    modules: modulesOf(report),
  };
}

/** A host that could not be diagnosed: nothing but its name, when it was tried, and why. */
export function unreachedSnapshot(host: string, error: string, attemptedAt: string | null): HostSnapshot {
  return { host, collectedAt: attemptedAt, complete: false, error, findings: [], gpus: [], links: [], versions: {}, modules: {} };
}

function flatFindings(findings: SnapshotVerdicts['findings']): SnapshotFinding[] {
  const out = new Map<string, SnapshotFinding>();
  const add = (f: FindingInput) => {
    const key = `${f.severity} ${f.id}`;
    if (!out.has(key)) out.set(key, { id: f.id, severity: f.severity, title: f.title });
  };
  for (const f of findings) {
    add(f);
    for (const c of f.children ?? []) add(c);
  }
  return [...out.values()];
}

function snapshotGpus(report: ProbeReport, sysfs: PciSysfs | null, pairs: SnapshotVerdicts['pairs']): SnapshotGpu[] {
  const table = gpuFacts(report, sysfs);
  const smi = factOf(report, 'smi-q')?.gpus ?? [];
  const names = new Set([...table.map((g) => g.name), ...pairs.map((p) => p.gpu)]);
  return [...names].map((name) => {
    const g = table.find((x) => x.name === name);
    const pair = pairs.find((p) => p.gpu === name);
    const busId = g?.busId ?? null;
    const uuid = smi.find((s) => busId !== null && normalizeBusId(s.busId) === busId)?.uuid ?? null;
    return {
      gpu: name,
      index: g?.dev ?? indexOfName(name),
      pciBusId: busId === null ? null : nvmlBusId(busId),
      uuid,
      gdr: pair ? pair.gdr : null,
      nics: pair ? pair.nics.map((n) => (n.port === null ? (n.device ?? n.nic) : `${n.device ?? n.nic}:${n.port}`)) : [],
      path: pair ? (pair.ncclPath ?? pair.link) : null,
    };
  });
}

function indexOfName(name: string): number {
  const m = /^GPU(\d+)$/.exec(name);
  return m ? Number(m[1]) : -1;
}

/** `0000:2a:00.0` → `00000000:2A:00.0`, the form NVML prints (nvmlPciInfo_t.busId) and DCGM exporter labels. */
export function nvmlBusId(bdf: string): string {
  const [domain, ...rest] = bdf.split(':');
  return `${domain.padStart(8, '0')}:${rest.join(':')}`.toUpperCase();
}

function snapshotLinks(sysfs: PciSysfs, gpus: readonly SnapshotGpu[]): SnapshotLink[] {
  const links = new Map<string, SnapshotLink>();
  const add = (path: string, device: string, kind: SnapshotLink['kind']) => {
    const d = sysfs.devices.get(path);
    if (!d || links.has(d.bdf)) return;
    if (d.currentLinkWidth === null && d.maxLinkWidth === null && d.currentLinkSpeed === '' && d.maxLinkSpeed === '') return;
    const speed = gtPerSecond(d.currentLinkSpeed);
    const maxSpeed = gtPerSecond(d.maxLinkSpeed);
    links.set(d.bdf, { device, kind, pciBusId: nvmlBusId(d.bdf), width: d.currentLinkWidth, maxWidth: d.maxLinkWidth, speed, maxSpeed });
  };
  const byBusId = new Map(gpus.filter((g) => g.pciBusId !== null).map((g) => [g.pciBusId, g.gpu]));
  for (const path of sysfs.nvidia) {
    const d = sysfs.devices.get(path);
    if (!d?.class.startsWith('0x03')) continue; // GPUs, not NVSwitches
    add(path, byBusId.get(nvmlBusId(d.bdf)) ?? nvmlBusId(d.bdf), 'gpu');
  }
  for (const r of sysfs.rdma) add(r.path, r.name, 'nic');
  return [...links.values()];
}

function versionsOf(report: ProbeReport, gpus: readonly SnapshotGpu[]): Record<string, string> {
  const out: Record<string, string> = {};
  const set = (key: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value.trim() !== '') out[key] = value.trim();
  };
  set('driver', factOf(report, 'nvidia-version')?.driverVersion ?? factOf(report, 'gpus')?.gpus[0]?.driverVersion);
  set('kernel', factOf(report, 'uname')?.release);
  set('ofed', factOf(report, 'ofed')?.raw);
  const ibv = factOf(report, 'ibv')?.devices ?? [];
  const sysfsRdma = factOf(report, 'pci-sysfs')?.rdma ?? [];
  for (const d of sysfsRdma) set(`firmware ${d.name}`, d.fwVer);
  for (const d of ibv) if (!(`firmware ${d.hca_id}` in out)) set(`firmware ${d.hca_id}`, stringField(d['fw_ver']));
  const smi = factOf(report, 'smi-q')?.gpus ?? [];
  for (const g of gpus) {
    const busId = normalizeBusId(g.pciBusId);
    set(`vbios ${g.gpu}`, smi.find((x) => busId !== null && normalizeBusId(x.busId) === busId)?.vbiosVersion);
  }
  return out;
}

function stringField(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function modulesOf(report: ProbeReport): Record<string, boolean> {
  const lsmod = factOf(report, 'lsmod');
  if (!lsmod) return {};
  const loaded = new Set(lsmod.modules.map((m) => m.name));
  return Object.fromEntries(PEER_MEMORY_MODULES.map((m) => [m, loaded.has(m)]));
}
