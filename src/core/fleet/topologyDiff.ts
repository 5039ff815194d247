// `fleet.topology-differs`, and the fleet comparison as a whole: a missing NIC (a dead HCA, a card in
// the wrong slot) or a GPU behind a farther PCIe path on one node slows every job that lands on it.
// The PCIe aspects (firmware, link widths, ACS) are in pcieDiff.ts; differences.ts holds the majority.
import { Diagnosis, Finding } from '../diagnosis';
import { factOf } from '../diagnosis/evidence';
import { SOURCES, sortFindings } from '../diagnosis/finding';
import { ProbeReport } from '../probe/runProbe';
import { FleetAspect, Signature, aspectFindings } from './differences';
import { PCIE_ASPECTS } from './pcieDiff';
import { statusOfProbe } from './status';
import { FleetHostResult } from './types';
import { t } from '../l10n';

export const TOPOLOGY_DIFFERS = 'fleet.topology-differs';

const TOPOLOGY: FleetAspect = {
  id: TOPOLOGY_DIFFERS,
  signature: topologySignature,
  line: (key, here, usual, on) => {
    const [kind, a, b] = key.split(' ');
    if (kind === 'nic') return `nvidia-smi topo -m: NIC ${a} ${here ? `present here, absent on ${on}` : `missing (present on ${on})`}`;
    if (kind === 'link' && here !== undefined && usual !== undefined) return `nvidia-smi topo -m: ${a}–${b} is ${here} here, ${usual} on ${on}`;
    if (kind === 'gpus') return `nvidia-smi topo -m: ${here} GPUs here, ${usual} on ${on}`;
    if (kind === 'models') return `nvidia-smi --query-gpu: ${here ?? '(not read)'} here, ${usual ?? '(not read)'} on ${on}`;
    if (kind === 'numa') return `numactl -H: ${here ?? '(not read)'} NUMA nodes here, ${usual ?? '(not read)'} on ${on}`;
    return null;
  },
  finding: (host, evidence, total) => ({
    id: TOPOLOGY_DIFFERS,
    severity: 'warning',
    title: t('Topology differs from the other hosts'),
    detail: t('{0}\'s GPU/NIC topology is not the one most of the {1} hosts compared share. Nodes meant to be identical should show the same devices and the same links: NCCL builds its rings and trees over every node of a job, and a missing NIC or a GPU behind a farther PCIe path (which may also turn GPUDirect RDMA off for it) slows every job that lands here. Check the missing or moved cards, their slots and the BIOS PCIe settings against a healthy node.', host, total),
    evidence,
    fixes: [],
    source: `${SOURCES.nvidiaSmiTopo}; ${SOURCES.ncclGdr}`,
  }),
};

const ASPECTS: readonly FleetAspect[] = [TOPOLOGY, ...PCIE_ASPECTS];
const IDS = new Set(ASPECTS.map((a) => a.id));

/** The hosts' results with a `fleet.*-differs` finding added to each host that differs from most, per aspect. */
export function withFleetFindings(results: readonly FleetHostResult[]): FleetHostResult[] {
  const byAspect = ASPECTS.map((a) => aspectFindings(results, a));
  return results.map((r) => {
    const found = byAspect.flatMap((m) => m.get(r.host) ?? []);
    const had = r.diagnosis?.findings.some((f) => IDS.has(f.id)) ?? false;
    if (!r.report || !r.diagnosis || (found.length === 0 && !had)) return r;
    const kept = r.diagnosis.findings.filter((f) => !IDS.has(f.id));
    const diagnosis: Diagnosis = { ...r.diagnosis, findings: sortFindings([...kept, ...found]) };
    // Only a status the probe decided changes; unreachable, timed-out and cancelled stay what they were.
    const status = r.status === 'ok' || r.status === 'findings' ? statusOfProbe(r.report, diagnosis) : r.status;
    return { ...r, diagnosis, status };
  });
}

/** Host → finding, for the hosts whose topology differs from the majority's. */
export function topologyFindings(results: readonly FleetHostResult[]): Map<string, Finding> {
  return aspectFindings(results, TOPOLOGY);
}

/** undefined when topo was not read (or only in part): such a host is compared with nobody. */
function topologySignature(report: ProbeReport): Signature | undefined {
  const topo = factOf(report, 'topo');
  if (!topo || report.facts.topo?.partial) return undefined;
  const sig = new Map<string, string>([['gpus', String(topo.gpus.length)]]);
  const models = factOf(report, 'gpus')?.gpus.map((g) => g.name ?? '?');
  if (models && models.length > 0) sig.set('models', [...models].sort().join(', '));
  const nics = topo.nics.map((n) => ({ column: n.name, device: n.device ?? n.name }));
  for (const nic of nics) sig.set(`nic ${nic.device}`, 'present');
  for (const gpu of topo.gpus) {
    for (const nic of nics) sig.set(`link ${gpu.name} ${nic.device}`, topo.links[gpu.name]?.[nic.column] ?? '?');
  }
  const numa = factOf(report, 'numactl');
  if (numa?.numaAvailable) sig.set('numa', String(numa.nodes.length));
  return sig;
}
