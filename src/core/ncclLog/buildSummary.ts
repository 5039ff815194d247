// Turns what NcclLogSummarizer gathered into the job's summary: hosts in name order, each with its
// GPUs, NICs and the reasons GPU Direct RDMA was off; the verdict; the findings.
import { ncclLogFindings } from './findings';
import type { HostState } from './hostState';
import { atLeast, parseNcclVersion } from '../topology/nccl/version';
import { pairDisabledReason, unexplainedReason } from './reasons';
import type { SummaryState } from './summaryState';
import type { NcclConnectionCount, NcclLogHca, NcclLogHost, NcclLogReason, NcclLogSummary, NcclLogVerdict } from './types';

export function buildSummary(s: SummaryState): NcclLogSummary {
  const first = s.versions.entries().next();
  const ncclVersion = first.done ? null : first.value[0];
  const cudaVersion = first.done ? null : first.value[1].cuda;
  const hosts = [...s.hosts.values()].sort((a, b) => naturalCompare(a.name, b.name)).map((h) => hostSummary(h, ncclVersion));
  // Hosts past the limit are not listed, but their connections count.
  const netConnections = sum([...hosts.map((h) => h.netConnections), { total: s.more.total, gdrdma: s.more.gdrdma }]);
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
    rayFolded: s.rayFolded,
    dropped: { ...s.budget.dropped },
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
  const gpus = h.gpus
    .all()
    .sort((a, b) => (a.nvmlDev ?? a.dev) - (b.nvmlDev ?? b.dev) || a.dev - b.dev || (a.busId ?? '').localeCompare(b.busId ?? ''))
    .map((g) => ({
      dev: g.dev,
      busId: g.busId,
      nvmlDev: g.nvmlDev,
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
  for (const p of h.disabledPairs.values()) {
    const index = pairHcaIndex(p.hca, ncclVersion);
    const hca = index === null ? p.hca : (h.nicName(p.pid, 'IB', index) ?? p.hca);
    list.push({ reason: pairDisabledReason({ ...p, hca }, ncclVersion), evidence: p.ref });
  }
  if (list.length === 0 && h.total > h.gdrdma && h.firstWithoutGdrdma !== null) {
    list.push({ reason: unexplainedReason(h.total - h.gdrdma, h.total), evidence: h.firstWithoutGdrdma });
  }
  return list;
}

/**
 * The NIC number a "GPU Direct RDMA Disabled for GPU … / HCA <n>" line names (src/graph/paths.cc
 * ncclTopoCheckGdr): `%d`, the index, up to 2.20; `%lx` of the net's topology id (the system id in the top
 * byte, the index below) in 2.21–2.28; "NET/<system>-<index>" in decimal from 2.29. null when the log's
 * version leaves a number of two digits or more open (10 is ten up to 2.20, sixteen after).
 */
export function pairHcaIndex(printed: string, ncclVersion: string | null): number | null {
  const dash = /^\d+-(\d+)$/.exec(printed);
  if (dash) return Number(dash[1]);
  if (!/^[0-9a-f]{1,16}$/i.test(printed)) return null;
  const v = ncclVersion === null ? null : parseNcclVersion(ncclVersion);
  const hex = v === null ? /[a-f]/i.test(printed) || null : atLeast(v, 2, 21);
  if (hex === null) return printed.length === 1 ? Number(printed) : null;
  return hex ? Number(BigInt(`0x${printed}`) & LOCAL_ID_MASK) : Number(printed);
}

/** NCCL_TOPO_ID_LOCAL_ID (src/graph/topo.h, 2.21+): the index below the system id's byte. */
const LOCAL_ID_MASK = 0x00ff_ffff_ffff_ffffn;

/** The job's HCAs by name: GDR false if any host's Disabled line names it, true if only Enabled lines do. */
function jobHcas(hosts: readonly NcclLogHost[]): NcclLogHca[] {
  const byName = new Map<string, { name: string; net: string; gdr: boolean | null; dmabuf: true | null }>();
  for (const hca of hosts.flatMap((h) => h.hcas)) {
    const seen = byName.get(hca.name);
    if (!seen) byName.set(hca.name, { name: hca.name, net: hca.net, gdr: hca.gdr, dmabuf: hca.dmabuf });
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
