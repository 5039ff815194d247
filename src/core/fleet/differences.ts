// What most hosts of a fleet share, and where one differs: nodes of one cluster are meant to be
// identical, and NCCL builds one ring or tree over all of them, so one odd node slows every job that
// lands on it while its own diagnosis may look fine. Each aspect (topology, firmware, link widths,
// ACS) reads a signature of each host — keys and values — and a host whose signature is not the one
// most hosts share gets that aspect's `fleet.*-differs` finding, one evidence line per differing key.
import { Diagnosis, Finding } from '../diagnosis';
import { ProbeReport } from '../probe/runProbe';
import { FleetHostResult } from './types';

/** One aspect of a host and its values: `fw mlx5_3` → `28.43.3608`, `link GPU2 mlx5_1` → `PXB`. */
export type Signature = ReadonlyMap<string, string>;

export interface FleetAspect {
  readonly id: string;
  /** undefined when the host's outputs do not show this aspect: it is compared with nobody. */
  signature(report: ProbeReport, diagnosis: Diagnosis | undefined): Signature | undefined;
  /** The evidence line for one key that differs; null to leave it out. */
  line(key: string, here: string | undefined, usual: string | undefined, on: string): string | null;
  finding(host: string, evidence: string[], total: number): Finding;
}

/**
 * Fewer hosts than this and a "majority" is one or two machines agreeing by chance: with two hosts
 * that differ there is no telling which one is odd, so nothing is said.
 */
const MIN_HOSTS = 3;

/** Host → finding, for the hosts whose signature of this aspect differs from the majority's. */
export function aspectFindings(results: readonly FleetHostResult[], aspect: FleetAspect): Map<string, Finding> {
  const read = results.flatMap((r) => {
    const signature = r.report ? aspect.signature(r.report, r.diagnosis) : undefined;
    return signature ? [{ host: r.host, signature }] : [];
  });
  const out = new Map<string, Finding>();
  const reference = majority(read.map((r) => r.signature));
  if (!reference) return out;
  for (const { host, signature } of read) {
    const lines = differences(
      aspect,
      signature,
      reference,
      read.map((r) => r.signature),
    );
    if (lines.length > 0) out.set(host, aspect.finding(host, lines, read.length));
  }
  return out;
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

/** One evidence line per key that differs, naming how many hosts show the reference's value. */
function differences(aspect: FleetAspect, sig: Signature, ref: Signature, all: readonly Signature[]): string[] {
  const agreeing = (key: string) => all.filter((s) => s.get(key) === ref.get(key)).length;
  return [...new Set([...ref.keys(), ...sig.keys()])].flatMap((key) => {
    const [here, usual] = [sig.get(key), ref.get(key)];
    if (here === usual) return [];
    const line = aspect.line(key, here, usual, `${agreeing(key)} of ${all.length} hosts`);
    return line === null ? [] : [line];
  });
}
