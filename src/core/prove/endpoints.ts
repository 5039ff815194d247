// The two ends of each GPU's measurement, from a diagnosed host: the GPU's NIC port as the NCCL
// model decides it (docs/nccl-gdr.md §6), its line rate, the NUMA node to pin to (docs/perftest.md
// §1), and for one host the port that plays the server.
import { Diagnosis, GpuNicPair } from '../diagnosis';
import { factOf } from '../diagnosis/evidence';
import { rdmaPorts, RdmaPortView } from '../diagnosis/rdmaPorts';
import { ProbeReport } from '../probe/runProbe';
import { SmiGpu } from '../parsers/smiQuery';
import { ProveEndpoint } from './types';
import { gpuFacts } from '../diagnosis/gpuFacts';
import { readPerftestCheck } from './checks';
import { t } from '../l10n';

export interface DiagnosedHost {
  /** The host as the user named it. */
  readonly host: string;
  readonly report: ProbeReport;
  readonly diagnosis: Diagnosis;
}

/** A GPU's endpoint, or why it has none. */
export type EndpointOf =
  { readonly ok: true; readonly endpoint: ProveEndpoint; readonly pair: GpuNicPair } | { readonly ok: false; readonly reason: string };

export function gpuIndex(gpu: string): number | null {
  const m = /^GPU(\d+)$/.exec(gpu);
  return m ? Number(m[1]) : null;
}

export function endpointOf(h: DiagnosedHost, pair: GpuNicPair): EndpointOf {
  const index = gpuIndex(pair.gpu);
  const nic = pair.nics[0];
  if (index === null) return { ok: false, reason: t('{0}: {1} has no GPU index', h.host, pair.gpu) };
  if (!nic || nic.device === null) return { ok: false, reason: t('{0}: {1} has no usable RDMA NIC ({2})', h.host, pair.gpu, pair.reason) };
  const ports = rdmaPorts(h.report) ?? [];
  const port = ports.find((p) => p.device === nic.device && (nic.port === null || p.port === nic.port));
  if (port && port.active === false)
    return {
      ok: false,
      reason: t(
        "{0}: {1}'s NIC {2} port {3} is not active ({4})",
        h.host,
        pair.gpu,
        nic.device,
        port.port,
        port.state ?? t('state unknown'),
      ),
    };
  return { ok: true, pair, endpoint: endpoint(h, pair, index, nic.device, port?.port ?? nic.port ?? 1, port) };
}

function endpoint(
  h: DiagnosedHost,
  pair: GpuNicPair,
  index: number,
  device: string,
  portNo: number,
  port: RdmaPortView | undefined,
): ProveEndpoint {
  const nicNode = nicNumaNode(h.report, device);
  const gpuNode = pair.numaNode !== null && /^\d+$/.test(pair.numaNode) ? Number(pair.numaNode) : null;
  return {
    host: h.host,
    gpu: pair.gpu,
    gpuIndex: index,
    gpuName: smiGpu(h.report, index)?.productName ?? gpuQueryName(h.report, index),
    gpuBusId: gpuFacts(h.report, factOf(h.report, 'pci-sysfs') ?? null).find((g) => g.dev === index)?.busId ?? null,
    cudaByBusId: readPerftestCheck(h.report)?.cudaBusId === true,
    device,
    port: portNo,
    linkLayer: port?.linkLayer ?? null,
    lineRateGbps: port?.speedMbps === null || port?.speedMbps === undefined ? null : port.speedMbps / 1000,
    numaNode: nicNode ?? gpuNode,
    numaSource: nicNode !== null ? 'nic' : gpuNode !== null ? 'gpu' : null,
  };
}

/** The NUMA node of the NIC's PCI device in sysfs; null when unread or -1 (the platform gives none). */
function nicNumaNode(report: ProbeReport, device: string): number | null {
  const sysfs = factOf(report, 'pci-sysfs');
  const path = sysfs?.rdma.find((d) => d.name === device)?.path;
  const node = path ? sysfs?.devices.get(path)?.numaNode : null;
  return node !== null && node !== undefined && node >= 0 ? node : null;
}

/** The GPU's section of `nvidia-smi -q`: by bus id where the GPU query gave one, else by order (nvidia-smi lists GPUs by index). */
export function smiGpu(report: ProbeReport, index: number): SmiGpu | undefined {
  const gpus = factOf(report, 'smi-q')?.gpus ?? [];
  const busId = factOf(report, 'gpus')?.gpus.find((g) => g.index === index)?.pciBusId;
  return busId ? gpus.find((g) => g.busId.toLowerCase() === busId.toLowerCase()) : gpus[index];
}

function gpuQueryName(report: ProbeReport, index: number): string | null {
  return factOf(report, 'gpus')?.gpus.find((g) => g.index === index)?.name ?? null;
}

/** Every GPU of the host that has an endpoint, and the reasons of those that have none. */
export function hostEndpoints(h: DiagnosedHost): {
  endpoints: Map<string, { endpoint: ProveEndpoint; pair: GpuNicPair }>;
  missing: { gpu: string; reason: string }[];
} {
  const endpoints = new Map<string, { endpoint: ProveEndpoint; pair: GpuNicPair }>();
  const missing: { gpu: string; reason: string }[] = [];
  for (const pair of h.diagnosis.pairs) {
    const e = endpointOf(h, pair);
    if (e.ok) endpoints.set(pair.gpu, { endpoint: e.endpoint, pair: e.pair });
    else missing.push({ gpu: pair.gpu, reason: e.reason });
  }
  return { endpoints, missing };
}

/**
 * The server end of a one-host measurement: another active port of the same link layer, preferring
 * one that NCCL gives to some GPU (that GPU then serves, next to its NIC); else the same port and GPU.
 */
export function loopbackPartner(
  client: ProveEndpoint,
  all: ReadonlyMap<string, { endpoint: ProveEndpoint }>,
  h: DiagnosedHost,
): { server: ProveEndpoint; kind: 'other-port' | 'same-port' } {
  const same = (e: ProveEndpoint) => e.device === client.device && e.port === client.port;
  const served = [...all.values()].map((x) => x.endpoint).filter((e) => !same(e) && e.linkLayer === client.linkLayer);
  if (served.length > 0) return { server: served[0], kind: 'other-port' };
  const other = (rdmaPorts(h.report) ?? []).find(
    (p) => p.active === true && p.linkLayer === client.linkLayer && !(p.device === client.device && p.port === client.port),
  );
  if (other) {
    return {
      kind: 'other-port',
      server: {
        ...client,
        device: other.device,
        port: other.port,
        lineRateGbps: other.speedMbps === null ? null : other.speedMbps / 1000,
        numaNode: nicNumaNode(h.report, other.device) ?? client.numaNode,
      },
    };
  }
  return { server: client, kind: 'same-port' };
}
