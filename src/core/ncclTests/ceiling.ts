// What the nodes' NICs allow an nccl-tests run (docs/nccl-tests.md §2): bus bandwidth is comparable with
// the hardware's bottleneck (nccl-tests doc/PERFORMANCE.md), and across nodes that is the network. For
// all_reduce and all_gather, per node the sum of the line rates of the ports NCCL gives the job's GPUs
// (the NCCL model's GPU↔NIC pairs, docs/nccl-gdr.md §5); the slowest node bounds the run. For sendrecv,
// one GPU's traffic goes through its own NIC: the slowest such port. Gb/s ÷ 8 = GB/s, as nccl-tests prints.
import type { Diagnosis } from '../diagnosis';
import { rdmaPorts } from '../diagnosis/rdmaPorts';
import type { ProbeReport } from '../probe/runProbe';
import type { NcclTestsRun } from './types';
import { t } from '../l10n';

/** A diagnosed node of the run (the shape core/prove's DiagnosedHost has). */
export interface NcclNode {
  readonly host: string;
  readonly report: ProbeReport;
  readonly diagnosis: Diagnosis;
}

export type NcclOp = 'all_reduce' | 'all_gather' | 'sendrecv';

export interface NodeCeiling {
  readonly host: string;
  /** The job's GPUs on this node (`GPU0`…): from the run's device list, else every GPU. */
  readonly gpus: string[];
  /** `mlx5_0:1`, with its active line rate in Gb/s (null: not read). */
  readonly ports: { readonly port: string; readonly gbps: number | null }[];
  /** GB/s this node's NICs carry for the op; null when a rate was not read or no port serves the GPUs. */
  readonly gigabytesPerSecond: number | null;
}

export function opOf(test: string | null): NcclOp | null {
  const m = test === null ? null : /^(all_reduce|all_gather|sendrecv)_perf/.exec(test);
  return m ? (m[1] as NcclOp) : null;
}

/** NCCL prints host names up to their first dot (getHostName, src/misc/utils.cc); so does nccl-tests. */
export const shortName = (h: string): string =>
  h
    .replace(/^[^@]*@/, '')
    .split('.')[0]
    .toLowerCase();

/** The job's GPUs on a node as its CUDA device numbers in the run's list, read as nvidia-smi indexes. */
function jobGpus(node: NcclNode, run: NcclTestsRun): string[] {
  const mine = run.devices.filter((d) => shortName(d.hostname) === shortName(node.host)).map((d) => `GPU${d.device}`);
  const known = node.diagnosis.pairs.map((p) => p.gpu);
  const listed = [...new Set(mine)].filter((g) => known.includes(g));
  return listed.length > 0 ? listed : known;
}

export function nodeCeiling(node: NcclNode, run: NcclTestsRun, op: NcclOp | null): NodeCeiling {
  const gpus = jobGpus(node, run);
  const ports = rdmaPorts(node.report) ?? [];
  const rateOf = (device: string, port: number | null) => {
    const p = ports.find((x) => x.device === device && (port === null || x.port === port));
    return p && p.active !== false && p.speedMbps !== null ? p.speedMbps / 1000 : null;
  };
  const used = new Map<string, number | null>();
  for (const pair of node.diagnosis.pairs.filter((p) => gpus.includes(p.gpu)))
    for (const nic of pair.nics) if (nic.device !== null) used.set(`${nic.device}:${nic.port ?? 1}`, rateOf(nic.device, nic.port));
  const list = [...used].map(([port, gbps]) => ({ port, gbps }));
  const rates = list.map((p) => p.gbps);
  const known = rates.length > 0 && rates.every((r) => r !== null);
  const total = op === 'sendrecv' ? Math.min(...(rates as number[])) : (rates as number[]).reduce((s, r) => s + r, 0);
  return { host: node.host, gpus, ports: list, gigabytesPerSecond: known ? total / 8 : null };
}

export interface Ceiling {
  readonly nodes: NodeCeiling[];
  /** The slowest node's GB/s; null when any node's is unknown, or the run stays on one node. */
  readonly gigabytesPerSecond: number | null;
  /** Why there is no figure to compare with, when there is none. */
  readonly unknownWhy: string | null;
}

export function runCeiling(nodes: readonly NcclNode[], run: NcclTestsRun, op: NcclOp | null): Ceiling {
  const per = nodes.map((n) => nodeCeiling(n, run, op));
  const hostCount = Math.max(run.hosts.length, nodes.length);
  if (hostCount < 2)
    return { nodes: per, gigabytesPerSecond: null, unknownWhy: t('one node: its traffic stays on NVLink and PCIe, not the NICs') };
  const missing = per.find((p) => p.gigabytesPerSecond === null);
  if (missing || per.length === 0)
    return {
      nodes: per,
      gigabytesPerSecond: null,
      unknownWhy: missing
        ? t(
            "{0}: the ports NCCL gives the job's GPUs ({1}) are not active or their line rate was not read",
            missing.host,
            missing.ports.map((p) => p.port).join(', ') || t('no RDMA port'),
          )
        : t('the nodes were not diagnosed'),
    };
  return { nodes: per, gigabytesPerSecond: Math.min(...per.map((p) => p.gigabytesPerSecond as number)), unknownWhy: null };
}
