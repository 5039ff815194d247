// `fleet.topology-differs`: nodes of one cluster are meant to be identical, and NCCL builds one ring
// or tree over all of them, so one node with a NIC missing (a dead HCA, a card in the wrong slot)
// or a GPU behind a farther PCIe path slows every job that lands on it, while its own diagnosis may
// look fine. Each host's topology is compared with what most hosts show.
import { Diagnosis, Finding } from '../diagnosis';
import { factOf } from '../diagnosis/evidence';
import { SOURCES, sortFindings } from '../diagnosis/finding';
import { ProbeReport } from '../probe/runProbe';
import { statusOfProbe } from './status';
import { FleetHostResult } from './types';

export const TOPOLOGY_DIFFERS = 'fleet.topology-differs';

/** One aspect of a host's topology and its value: `nic mlx5_3` → `present`, `link GPU2 mlx5_1` → `PXB`. */
type Signature = ReadonlyMap<string, string>;

/**
 * Fewer hosts than this and a "majority" is one or two machines agreeing by chance: with two hosts
 * that differ there is no telling which one is odd, so nothing is said.
 */
const MIN_HOSTS = 3;

/** The hosts' results with a `fleet.topology-differs` finding added to each host that differs from most. */
export function withFleetFindings(results: readonly FleetHostResult[]): FleetHostResult[] {
  const findings = topologyFindings(results);
  return results.map((r) => {
    const finding = findings.get(r.host);
    const had = r.diagnosis?.findings.some((f) => f.id === TOPOLOGY_DIFFERS) ?? false;
    if (!r.report || !r.diagnosis || (!finding && !had)) return r;
    const kept = r.diagnosis.findings.filter((f) => f.id !== TOPOLOGY_DIFFERS);
    const diagnosis: Diagnosis = { ...r.diagnosis, findings: sortFindings(finding ? [...kept, finding] : kept) };
    // Only a status the probe decided changes; unreachable, timed-out and cancelled stay what they were.
    const status = r.status === 'ok' || r.status === 'findings' ? statusOfProbe(r.report, diagnosis) : r.status;
    return { ...r, diagnosis, status };
  });
}

/** Host → finding, for the hosts whose topology differs from the majority's. */
export function topologyFindings(results: readonly FleetHostResult[]): Map<string, Finding> {
  const read = results.flatMap((r) => {
    const signature = r.report ? signatureOf(r.report) : undefined;
    return signature ? [{ host: r.host, signature }] : [];
  });
  const out = new Map<string, Finding>();
  const reference = majority(read.map((r) => r.signature));
  if (!reference) return out;
  for (const { host, signature } of read) {
    const lines = differences(signature, reference, read.map((r) => r.signature));
    if (lines.length > 0) out.set(host, finding(host, lines, read.length));
  }
  return out;
}

/** undefined when topo was not read (or only in part): such a host is compared with nobody. */
function signatureOf(report: ProbeReport): Signature | undefined {
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

const keyOf = (s: Signature) => JSON.stringify([...s.entries()].sort());

/** The signature more than half of the hosts share, if any and if there are enough hosts to tell. */
function majority(signatures: readonly Signature[]): Signature | undefined {
  if (signatures.length < MIN_HOSTS) return undefined;
  const counts = new Map<string, { sig: Signature; n: number }>();
  for (const sig of signatures) {
    const k = keyOf(sig);
    counts.set(k, { sig, n: (counts.get(k)?.n ?? 0) + 1 });
  }
  const top = [...counts.values()].sort((a, b) => b.n - a.n)[0];
  return top.n * 2 > signatures.length ? top.sig : undefined;
}

/** One evidence line per aspect that differs, naming how many hosts show the reference's value. */
function differences(sig: Signature, ref: Signature, all: readonly Signature[]): string[] {
  const lines: string[] = [];
  const total = all.length;
  const agreeing = (key: string) => all.filter((s) => s.get(key) === ref.get(key)).length;
  const keys = [...new Set([...ref.keys(), ...sig.keys()])];
  for (const key of keys) {
    const [here, usual] = [sig.get(key), ref.get(key)];
    if (here === usual) continue;
    const [kind, a, b] = key.split(' ');
    const on = `${agreeing(key)} of ${total} hosts`;
    if (kind === 'nic') lines.push(`nvidia-smi topo -m: NIC ${a} ${here ? `present here, absent on ${on}` : `missing (present on ${on})`}`);
    else if (kind === 'link' && here !== undefined && usual !== undefined) lines.push(`nvidia-smi topo -m: ${a}–${b} is ${here} here, ${usual} on ${on}`);
    else if (kind === 'gpus') lines.push(`nvidia-smi topo -m: ${here} GPUs here, ${usual} on ${on}`);
    else if (kind === 'models') lines.push(`nvidia-smi --query-gpu: ${here ?? '(not read)'} here, ${usual ?? '(not read)'} on ${on}`);
    else if (kind === 'numa') lines.push(`numactl -H: ${here ?? '(not read)'} NUMA nodes here, ${usual ?? '(not read)'} on ${on}`);
  }
  return lines;
}

function finding(host: string, evidence: string[], total: number): Finding {
  return {
    id: TOPOLOGY_DIFFERS,
    severity: 'warning',
    title: 'Topology differs from the other hosts',
    detail:
      `${host}'s GPU/NIC topology is not the one most of the ${total} hosts compared share. Nodes meant to be identical ` +
      'should show the same devices and the same links: NCCL builds its rings and trees over every node of a job, and a ' +
      'missing NIC or a GPU behind a farther PCIe path (which may also turn GPUDirect RDMA off for it) slows every job ' +
      'that lands here. Check the missing or moved cards, their slots and the BIOS PCIe settings against a healthy node.',
    evidence,
    fixes: [],
    source: `${SOURCES.nvidiaSmiTopo}; ${SOURCES.ncclGdr}`,
  };
}
