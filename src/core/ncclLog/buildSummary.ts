// Turns what NcclLogSummarizer gathered into the job's summary: hosts in name order, each with its
// GPUs, NICs and the reasons GPU Direct RDMA was off; the verdict; the findings.
import { ncclLogFindings } from './findings';
import type { HostState } from './hostState';
import { pairDisabledReason, unexplainedReason } from './reasons';
import type { SummaryState } from './summaryState';
import type { NcclConnectionCount, NcclLogHca, NcclLogHost, NcclLogReason, NcclLogSummary, NcclLogVerdict } from './types';

export function buildSummary(s: SummaryState): NcclLogSummary {
  const first = s.versions.entries().next();
  const ncclVersion = first.done ? null : first.value[0];
  const cudaVersion = first.done ? null : first.value[1].cuda;
  const hosts = [...s.hosts.values()].sort((a, b) => naturalCompare(a.name, b.name)).map((h) => hostSummary(h, ncclVersion));
  const netConnections = sum(hosts.map((h) => h.netConnections));
  const withoutFindings = {
    ncclVersion,
    cudaVersion,
    network: s.network ?? s.netFromConnections ?? (hosts.some((h) => h.network === 'Socket') ? 'Socket' : null),
    hcas: jobHcas(hosts),
    netConnections,
    verdict: verdict(netConnections, s.connectionLines),
    hosts,
    warnings: [...s.warnings].map(([text, w]) => ({ text, count: w.count, first: w.first })),
    env: Object.fromEntries(s.env),
    files: s.files,
  };
  return { ...withoutFindings, findings: ncclLogFindings(withoutFindings, s) };
}

/** gdr: every network connection used GDRDMA; no-gdr: none; mixed: some; no-net: connections, none
 * through the network; unknown: not one connection line. */
export function verdict(net: NcclConnectionCount, connectionLines: number): NcclLogVerdict {
  if (connectionLines === 0) return 'unknown';
  if (net.total === 0) return 'no-net';
  if (net.gdrdma === net.total) return 'gdr';
  return net.gdrdma === 0 ? 'no-gdr' : 'mixed';
}

function hostSummary(h: HostState, ncclVersion: string | null): NcclLogHost {
  const gpus = [...h.gpus.values()]
    .sort((a, b) => a.dev - b.dev)
    .map((g) => ({
      dev: g.dev,
      busId: g.busId,
      ranks: [...g.ranks].sort((a, b) => a - b),
      dmabuf: g.dmabuf,
      netConnections: { total: g.total, gdrdma: g.gdrdma },
      nics: [...g.nics].map(([name, u]) => ({ name, connections: u.connections, gdrdma: u.gdrdma, pxn: u.pxn })),
      firstGdrdma: g.firstGdrdma,
      firstWithoutGdrdma: g.firstWithoutGdrdma,
    }));
  return {
    name: h.name,
    ranks: [...h.ranks].sort((a, b) => a - b),
    network: h.effectiveNetwork(),
    netConnections: { total: h.total, gdrdma: h.gdrdma },
    gpus,
    hcas: [...h.hcas.values()].sort((a, b) => naturalCompare(a.name, b.name)).map((x) => ({ ...x })),
    gdrOffReasons: reasons(h, ncclVersion),
  };
}

function reasons(h: HostState, ncclVersion: string | null): NcclLogReason[] {
  const list: NcclLogReason[] = [...h.reasons].map(([reason, evidence]) => ({ reason, evidence }));
  for (const p of h.disabledPairs.values()) list.push({ reason: pairDisabledReason(p, ncclVersion), evidence: p.ref });
  if (list.length === 0 && h.total > h.gdrdma && h.firstWithoutGdrdma !== null) {
    list.push({ reason: unexplainedReason(h.total - h.gdrdma, h.total), evidence: h.firstWithoutGdrdma });
  }
  return list;
}

/** The job's HCAs by name: GDR false if any host's Disabled line names it, true if only Enabled lines do. */
function jobHcas(hosts: readonly NcclLogHost[]): NcclLogHca[] {
  const byName = new Map<string, { name: string; gdr: boolean | null; dmabuf: true | null }>();
  for (const hca of hosts.flatMap((h) => h.hcas)) {
    const seen = byName.get(hca.name);
    if (!seen) byName.set(hca.name, { name: hca.name, gdr: hca.gdr, dmabuf: hca.dmabuf });
    else {
      seen.gdr = seen.gdr === false || hca.gdr === false ? false : (seen.gdr ?? hca.gdr);
      seen.dmabuf = seen.dmabuf ?? hca.dmabuf;
    }
  }
  return [...byName.values()].sort((a, b) => naturalCompare(a.name, b.name));
}

function sum(counts: readonly NcclConnectionCount[]): NcclConnectionCount {
  return counts.reduce((a, c) => ({ total: a.total + c.total, gdrdma: a.gdrdma + c.gdrdma }), { total: 0, gdrdma: 0 });
}

/** `node2` before `node10`, `mlx5_2` before `mlx5_10`. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
