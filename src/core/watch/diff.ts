// What changed on a host between two diagnoses (`gdr-doctor diff`, the extension's Watch): findings
// that appeared, went or changed severity, GPUs whose verdict (or NIC, or path) changed, PCIe links,
// versions and firmware, the peer-memory modules; and whether it got worse. Worse is what breaks or
// slows GPUDirect RDMA: a host no longer diagnosed, a new error or warning, a severity raised, a GPU
// that lost GPUDirect RDMA (to no, or to unknown: unknown is never yes) or vanished, a link narrower,
// a NIC's link slower. A GPU's link speed is not compared at all: GPUs lower their PCIe speed when idle
// and raise it under load (the pcie.link-degraded rule, src/core/diagnosis/links.ts, says the same), so
// it changes between any two runs; its width is. Versions and modules are told, not judged: their
// effect shows in the findings.
import type { Severity } from '../diagnosis/finding';
import type { HostSnapshot, SnapshotFinding, SnapshotGpu, SnapshotLink } from './snapshot';

export interface SeverityChange {
  readonly id: string;
  readonly title: string;
  readonly from: Severity;
  readonly to: Severity;
}

export interface GpuChange {
  readonly gpu: string;
  /** null: the GPU was not there (or not read). */
  readonly from: Pick<SnapshotGpu, 'gdr' | 'nics' | 'path'> | null;
  readonly to: Pick<SnapshotGpu, 'gdr' | 'nics' | 'path'> | null;
}

export interface LinkChange {
  readonly device: string;
  readonly kind: SnapshotLink['kind'];
  readonly field: 'width' | 'speed';
  readonly from: number | null;
  readonly to: number | null;
}

export interface ValueChange<T> {
  readonly key: string;
  readonly from: T | null;
  readonly to: T | null;
}

export interface HostDiff {
  readonly host: string;
  /** `both`: in both documents; `added`/`removed`: in the new or the old one only. */
  readonly presence: 'both' | 'added' | 'removed';
  readonly from: string | null;
  readonly to: string | null;
  /** Diagnosed to the end before and now, when that changed. */
  readonly diagnosed: ValueChange<boolean> | null;
  readonly appeared: readonly SnapshotFinding[];
  readonly went: readonly SnapshotFinding[];
  readonly severityChanged: readonly SeverityChange[];
  readonly gpus: readonly GpuChange[];
  readonly links: readonly LinkChange[];
  readonly versions: readonly ValueChange<string>[];
  readonly modules: readonly ValueChange<boolean>[];
  readonly worse: boolean;
}

export interface ReportDiff {
  readonly hosts: readonly HostDiff[];
  readonly worse: boolean;
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

export function diffSnapshots(old: readonly HostSnapshot[], now: readonly HostSnapshot[]): ReportDiff {
  const before = new Map(old.map((s) => [s.host, s]));
  const after = new Map(now.map((s) => [s.host, s]));
  const hosts: HostDiff[] = [];
  for (const s of now) hosts.push(before.has(s.host) ? diffHost(before.get(s.host) as HostSnapshot, s) : alone(s, 'added'));
  for (const s of old) if (!after.has(s.host)) hosts.push(alone(s, 'removed'));
  return { hosts, worse: hosts.some((h) => h.worse) };
}

/** Whether a diff has anything to tell. */
export function hasChanges(d: HostDiff): boolean {
  return (
    d.presence !== 'both' ||
    d.diagnosed !== null ||
    [d.appeared, d.went, d.severityChanged, d.gpus, d.links, d.versions, d.modules].some((list) => list.length > 0)
  );
}

function alone(s: HostSnapshot, presence: 'added' | 'removed'): HostDiff {
  const at = s.collectedAt;
  return { ...EMPTY, host: s.host, presence, from: presence === 'removed' ? at : null, to: presence === 'added' ? at : null };
}

const EMPTY = {
  diagnosed: null,
  appeared: [],
  went: [],
  severityChanged: [],
  gpus: [],
  links: [],
  versions: [],
  modules: [],
  worse: false,
};

export function diffHost(old: HostSnapshot, now: HostSnapshot): HostDiff {
  const was = old.error === null && old.complete;
  const is = now.error === null && now.complete;
  const base = { host: now.host, presence: 'both' as const, from: old.collectedAt, to: now.collectedAt };
  const diagnosed = was === is ? null : { key: 'diagnosed', from: was, to: is };
  // A host not reached has nothing to compare: only that it was not reached.
  if (old.error !== null || now.error !== null) return { ...EMPTY, ...base, diagnosed, worse: was && !is };
  const findings = diffFindings(old.findings, now.findings);
  const gpus = diffGpus(old.gpus, now.gpus);
  const links = diffLinks(old.links, now.links);
  const worse =
    (was && !is) ||
    findings.appeared.some((f) => f.severity !== 'info') ||
    findings.severityChanged.some((c) => RANK[c.to] > RANK[c.from]) ||
    gpus.some((g) => g.from?.gdr === true && g.to?.gdr !== true) ||
    links.some((l) => l.from !== null && (l.to === null || l.to < l.from));
  return {
    ...base,
    diagnosed,
    ...findings,
    gpus,
    links,
    versions: diffRecords(old.versions, now.versions),
    modules: diffRecords(old.modules, now.modules),
    worse,
  };
}

function diffFindings(old: readonly SnapshotFinding[], now: readonly SnapshotFinding[]) {
  const ids = (list: readonly SnapshotFinding[]) => new Map(list.map((f) => [f.id, f]));
  const before = ids(old);
  const after = ids(now);
  const severityChanged: SeverityChange[] = [];
  for (const f of now) {
    const was = before.get(f.id);
    if (was && was.severity !== f.severity && after.get(f.id) === f)
      severityChanged.push({ id: f.id, title: f.title, from: was.severity, to: f.severity });
  }
  return {
    appeared: now.filter((f) => !before.has(f.id)),
    went: old.filter((f) => !after.has(f.id)),
    severityChanged,
  };
}

function diffGpus(old: readonly SnapshotGpu[], now: readonly SnapshotGpu[]): GpuChange[] {
  const state = (g: SnapshotGpu | undefined) => (g ? { gdr: g.gdr, nics: g.nics, path: g.path } : null);
  const key = (g: ReturnType<typeof state>) => JSON.stringify(g && [g.gdr, [...g.nics].sort(), g.path]);
  const names = [...new Set([...old.map((g) => g.gpu), ...now.map((g) => g.gpu)])];
  return names
    .map((gpu) => ({ gpu, from: state(old.find((g) => g.gpu === gpu)), to: state(now.find((g) => g.gpu === gpu)) }))
    .filter((c) => key(c.from) !== key(c.to));
}

function diffLinks(old: readonly SnapshotLink[], now: readonly SnapshotLink[]): LinkChange[] {
  const out: LinkChange[] = [];
  const devices = [...new Set([...old.map((l) => l.device), ...now.map((l) => l.device)])];
  for (const device of devices) {
    const a = old.find((l) => l.device === device);
    const b = now.find((l) => l.device === device);
    const kind = (b ?? a)?.kind ?? 'nic';
    for (const field of kind === 'gpu' ? (['width'] as const) : (['width', 'speed'] as const)) {
      const from = a?.[field] ?? null;
      const to = b?.[field] ?? null;
      if (from !== to) out.push({ device, kind, field, from, to });
    }
  }
  return out;
}

function diffRecords<T extends string | boolean>(old: Readonly<Record<string, T>>, now: Readonly<Record<string, T>>): ValueChange<T>[] {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])];
  return keys
    .map((key) => ({ key, from: Object.hasOwn(old, key) ? old[key] : null, to: Object.hasOwn(now, key) ? now[key] : null }))
    .filter((c) => c.from !== c.to);
}
