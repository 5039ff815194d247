// Which measurements a proof runs, in order (docs/perftest.md §1): per GPU, host memory, then
// peermem, then dmabuf. Host memory does not involve the GPU, so it is measured once per pair of
// ports and shared by the GPUs behind the same NIC.
import { GpuNicPair } from '../diagnosis';
import { DiagnosedHost, hostEndpoints, loopbackPartner } from './endpoints';
import { PerftestCheck } from './checks';
import { GpuPairing, ProveEndpoint, ProveMode, ProveOptions } from './types';
import { t } from '../l10n';

export interface Measurement {
  /** `m1`, `m2`… in run order. */
  readonly id: string;
  readonly gpu: string;
  readonly mode: ProveMode;
  readonly client: ProveEndpoint;
  readonly server: ProveEndpoint;
  /** Seconds each side may run before `timeout` stops it. */
  readonly limitS: number;
}

export interface PlannedGpu extends GpuPairing {
  readonly notes: string[];
  /** Per mode: the measurement that gives its result (host memory may be another GPU's). */
  readonly measurementOf: ReadonlyMap<ProveMode, string>;
}

export interface ProvePlan {
  readonly gpus: PlannedGpu[];
  readonly measurements: Measurement[];
  /** GPUs left out, and why. */
  readonly skipped: string[];
}

/** CUDA context creation and the out-of-band exchange, on top of the measured seconds. */
const SETUP_SLACK_S = 45;

export function planProof(
  host: DiagnosedHost,
  peer: DiagnosedHost | null,
  options: ProveOptions,
  modes: readonly ProveMode[],
  checks: ReadonlyMap<string, PerftestCheck>,
): ProvePlan {
  const own = hostEndpoints(host);
  const other = peer ? hostEndpoints(peer) : null;
  const asked = (gpu: string) => options.gpus === null || options.gpus.some((i) => `GPU${i}` === gpu);
  const skipped = own.missing.filter((m) => asked(m.gpu)).map((m) => m.reason);
  const gpus: PlannedGpu[] = [];
  const measurements: Measurement[] = [];
  const hostRuns = new Map<string, string>();
  for (const [gpu, { endpoint: client, pair }] of own.endpoints) {
    if (!asked(gpu)) continue;
    const end = serverEnd(client, own.endpoints, host, other, peer);
    if ('reason' in end) {
      skipped.push(end.reason);
      continue;
    }
    const measurementOf = new Map<ProveMode, string>();
    for (const mode of modes) {
      const key = `${client.device}:${client.port}>${end.server.host}/${end.server.device}:${end.server.port}`;
      if (mode === 'host' && hostRuns.has(key)) {
        measurementOf.set(mode, hostRuns.get(key) as string);
        continue;
      }
      const id = `m${measurements.length + 1}`;
      measurements.push({ id, gpu, mode, client, server: end.server, limitS: options.timeoutS ?? options.durationS + SETUP_SLACK_S });
      measurementOf.set(mode, id);
      if (mode === 'host') hostRuns.set(key, id);
    }
    gpus.push({
      gpu,
      client,
      server: end.server,
      loopback: end.loopback,
      notes: notes(pair, client, end.server, end.loopback, checks),
      measurementOf,
    });
  }
  const known = new Set(host.diagnosis.pairs.map((p) => p.gpu));
  for (const i of options.gpus ?? []) if (!known.has(`GPU${i}`)) skipped.push(t('{0}: there is no GPU{1}', host.host, i));
  return { gpus, measurements, skipped };
}

type ServerEnd = { server: ProveEndpoint; loopback: 'other-port' | 'same-port' | null } | { reason: string };

function serverEnd(
  client: ProveEndpoint,
  own: ReadonlyMap<string, { endpoint: ProveEndpoint }>,
  host: DiagnosedHost,
  other: ReturnType<typeof hostEndpoints> | null,
  peer: DiagnosedHost | null,
): ServerEnd {
  if (!other || !peer) {
    const p = loopbackPartner(client, own, host);
    return { server: p.server, loopback: p.kind };
  }
  const counterpart = other.endpoints.get(client.gpu)?.endpoint;
  if (!counterpart) return { reason: t('{0}: {1} has no {0} with an RDMA NIC to measure against', client.gpu, peer.host) };
  return { server: counterpart, loopback: null };
}

function notes(
  pair: GpuNicPair,
  client: ProveEndpoint,
  server: ProveEndpoint,
  loopback: PlannedGpu['loopback'],
  checks: ReadonlyMap<string, PerftestCheck>,
): string[] {
  const out: string[] = [];
  if (pair.proxyGpu)
    out.push(
      t(
        "NCCL relays {0}'s sends through {1} over NVLink (PXN) to {2}; this measures {0}'s own memory over {2}",
        pair.gpu,
        pair.proxyGpu,
        client.device,
      ),
    );
  if (loopback === 'same-port')
    out.push(
      t(
        'one active {0} port on {1} for {2}: both ends use {2} port {3}, which loops the traffic back inside the HCA (the cable is not measured)',
        client.linkLayer ?? 'RDMA',
        client.host,
        client.device,
        client.port,
      ),
    );
  for (const e of client === server ? [client] : [client, server]) {
    if (checks.get(e.host)?.numactl === null) out.push(t('{0}: not pinned to a NUMA node: numactl is not installed', e.host));
    else if (e.numaNode === null) out.push(t('{0}: {1} not pinned: its NUMA node is unknown', e.host, e.device));
    else if (e.numaSource === 'gpu')
      out.push(t("{0}: {1} pinned to NUMA node {2}, the GPU's (the NIC's was not read)", e.host, e.device, e.numaNode));
  }
  if (client.linkLayer !== null && server.linkLayer !== null && client.linkLayer !== server.linkLayer)
    out.push(
      t(
        '{0} is {1} and {2} {3}: RDMA cannot connect ports of different link layers',
        client.device,
        client.linkLayer,
        server.device,
        server.linkLayer,
      ),
    );
  return out;
}
