// The fleet as the CLI prints it: one summary line, then one block per group in `clush -b`'s shape
// (a rule, the folded hosts with their count, a rule, what they share), outliers first; and the
// JSON of `diagnose --json` for many hosts: the grouping plus one report per host.
import { Finding } from '../diagnosis';
import { diagnosisJson } from '../report/diagnosisReport';
import { FleetGroup, fleetSummaryLine } from './grouping';
import { HostListError, foldHostList } from '../parsers/hostlist';
import { FleetHostResult } from './types';
import { t } from '../l10n';

export { fleetSummaryLine } from './grouping';

/** clush -b's rule line. */
const RULE = '-'.repeat(15);

export interface FleetSummaryOptions {
  /** The caller prints every host's own report after the summary: a closing rule separates them. */
  readonly each?: boolean;
}

export function formatFleetSummary(
  results: readonly FleetHostResult[],
  groups: readonly FleetGroup[],
  options: FleetSummaryOptions = {},
): string {
  const byHost = new Map(results.map((r) => [r.host, r]));
  const lines = [fleetSummaryLine(groups)];
  for (const g of groups) {
    const first = byHost.get(g.hosts[0]);
    lines.push('', RULE, `${folded(g.hosts)} (${g.hosts.length})`, RULE, ...groupLines(g, first, results));
  }
  if (options.each) lines.push('', RULE);
  return `${lines.join('\n')}\n`;
}

function groupLines(g: FleetGroup, first: FleetHostResult | undefined, results: readonly FleetHostResult[]): string[] {
  if (g.status === 'ok') return [t('healthy: no errors or warnings')];
  if (g.status === 'findings') return g.findingIds.map((id) => findingLine(id, results, g.hosts));
  const message = first?.error?.message ?? t('no message');
  // SSH errors already start with the host (ConnectError); a relay's message may not.
  const said = first && !message.startsWith(`${first.host}:`) ? `${first.host}: ${message}` : message;
  return [`${g.label}${g.hosts.length > 1 ? t(' (first of {0})', g.hosts.length) : ''}: ${said}`];
}

/** `error   peermem.not-loaded: <title>`, the title as the group's first host with that finding has it. */
function findingLine(id: string, results: readonly FleetHostResult[], hosts: readonly string[]): string {
  const members = new Set(hosts);
  let found: Finding | undefined;
  for (const r of results) {
    if (!members.has(r.host)) continue;
    found = r.diagnosis?.findings.find((f) => f.id === id);
    if (found) break;
  }
  return found ? `${found.severity.padEnd(7)} ${id}: ${found.title}` : id;
}

export function fleetJson(results: readonly FleetHostResult[], groups: readonly FleetGroup[]) {
  return { ...fleetJsonHead(groups), hosts: results.map(fleetHostJson) };
}

/** fleetJson() without its `hosts`: a writer can add them one at a time (a large fleet's JSON passes V8's longest string). */
export function fleetJsonHead(groups: readonly FleetGroup[]) {
  return {
    summary: fleetSummaryLine(groups),
    groups: groups.map((g) => ({ label: g.label, status: g.status, findingIds: g.findingIds, hosts: g.hosts, folded: folded(g.hosts) })),
  };
}

/** One element of fleetJson()'s `hosts`. */
export function fleetHostJson(r: FleetHostResult) {
  return {
    host: r.host,
    status: r.status,
    path: r.path,
    durationMs: r.durationMs,
    ...(r.error ? { error: r.error } : {}),
    ...(r.report && r.diagnosis ? { report: diagnosisJson(r.report, r.diagnosis, r.target) } : {}),
  };
}

/** Folded like `nodeset -f`; a name outside the host-list alphabet (an odd SSH alias) is listed as is rather than fail the report. */
function folded(hosts: readonly string[]): string {
  try {
    return foldHostList(hosts);
  } catch (e) {
    if (e instanceof HostListError) return hosts.join(',');
    throw e;
  }
}
