// Hosts grouped the way `clush -b` groups identical output: the same status and the same errors and
// warnings make one group, so 64 nodes read as "60 healthy, 3 with peermem.not-loaded, 1 unreachable"
// and the odd ones out come first. Info findings do not split groups (they differ harmlessly).
import { FleetHostResult, FleetHostStatus } from './types';
import { t } from '../l10n';

export interface FleetGroup {
  /** Stable identity of the group: status plus finding ids or the failed step. */
  readonly key: string;
  readonly status: FleetHostStatus;
  /** Error and warning finding ids the group's hosts share, errors first; [] for other statuses. */
  readonly findingIds: readonly string[];
  /** In the order the results came. */
  readonly hosts: readonly string[];
  /** `healthy`, `peermem.not-loaded, nic.far`, `unreachable (auth)`. */
  readonly label: string;
}

/** Outliers first: fewer hosts first; among equals, hosts that never answered, then findings, then healthy. */
const RANK: Record<FleetHostStatus, number> = { unreachable: 0, 'timed-out': 0, cancelled: 0, findings: 1, ok: 2 };

const WORD: Record<FleetHostStatus, string> = { ok: 'healthy', findings: 'findings', unreachable: 'unreachable', 'timed-out': 'timed out', cancelled: 'cancelled' };

export function groupFleet(results: readonly FleetHostResult[]): FleetGroup[] {
  const groups = new Map<string, { status: FleetHostStatus; findingIds: string[]; step?: string; hosts: string[] }>();
  for (const r of results) {
    const findingIds = r.status === 'ok' || r.status === 'findings' ? problemIds(r) : [];
    const step = r.status === 'ok' || r.status === 'findings' ? undefined : r.error?.step;
    const key = [r.status, step ?? '', ...[...findingIds].sort()].join('|');
    const group = groups.get(key) ?? { status: r.status, findingIds, step, hosts: [] };
    group.hosts.push(r.host);
    groups.set(key, group);
  }
  return [...groups.entries()]
    .map(([key, g]) => ({ key, status: g.status, findingIds: g.findingIds, hosts: g.hosts, label: labelOf(g.status, g.findingIds, g.step) }))
    .sort((a, b) => a.hosts.length - b.hosts.length || RANK[a.status] - RANK[b.status] || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/** `60 hosts healthy · 3 hosts peermem.not-loaded · 1 unreachable (auth)`: healthy first, then by size. */
export function fleetSummaryLine(groups: readonly FleetGroup[]): string {
  if (groups.length === 0) return t('no hosts');
  const ordered = [...groups].sort((a, b) => RANK[b.status] - RANK[a.status] || b.hosts.length - a.hosts.length);
  return ordered
    .map((g) => {
      const n = g.hosts.length;
      return RANK[g.status] === 0 ? `${n} ${g.label}` : n === 1 ? t('1 host {0}', g.label) : t('{0} hosts {1}', n, g.label);
    })
    .join(' · ');
}

/** Distinct error/warning ids in the host's (sorted: errors first) findings. */
function problemIds(r: FleetHostResult): string[] {
  return [...new Set((r.diagnosis?.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.id))];
}

function labelOf(status: FleetHostStatus, findingIds: readonly string[], step: string | undefined): string {
  if (status === 'findings' && findingIds.length > 0) return findingIds.join(', ');
  return step && step !== 'deadline' && step !== 'cancelled' ? `${WORD[status]} (${step})` : WORD[status];
}
