// An NCCL job's log side by side with what gdr-doctor predicts for the host it ran on: per GPU, the
// verdict of gdr-doctor's model of NCCL (diagnose()'s GPU↔NIC pairs, docs/nccl-gdr.md) against what
// the log shows NCCL did (/GDRDMA or not on that GPU's network connections, the NICs it used).
// The prediction is made for the NCCL release the log names and the NCCL_* settings it echoed, so
// both sides speak of the same NCCL. Pure: the caller diagnoses the host (SSH, demo, a saved folder).
import { GpuNicPair, diagnose, NcclAssumptions, readNcclAssumptions } from '../diagnosis';
import { factOf } from '../diagnosis/evidence';
import { gpuFacts } from '../diagnosis/gpuFacts';
import { rdmaPorts } from '../diagnosis/rdmaPorts';
import type { ProbeReport } from '../probe/runProbe';
import { NCCL_ENV_NAMES } from '../topology/nccl/env';
import { compareFindings } from './compareFindings';
import { COMPARE_TEXT } from './compareText';
import type { ComparedGpu, GdrWay, NcclHostComparison } from './compareTypes';
import type { NcclLogGpu, NcclLogHost, NcclLogSummary } from './types';

export interface CompareInput {
  readonly summary: NcclLogSummary;
  readonly logHost: string;
  readonly host: string;
  readonly report: ProbeReport;
  /** What the user says about NCCL (settings, --nccl): used where the log does not say. */
  readonly nccl: NcclAssumptions;
}

export function compareNcclLogWithHost(input: CompareInput): NcclHostComparison {
  const logHost = input.summary.hosts.find((h) => h.name === input.logHost);
  if (!logHost) throw new Error(`the log has no host ${JSON.stringify(input.logHost)}`);
  const { nccl, versionFrom, envFromLog } = assumptionsForLog(input.summary, input.nccl);
  const diagnosis = diagnose(input.report, nccl);
  const matched = matchGpus(logHost, diagnosis.pairs, input.report);
  const everyNic = new Set(diagnosis.pairs.flatMap((p) => nicNames(p)));
  const gpus = matched.map((m) => compareGpu(m, diagnosis.pairs, everyNic));
  const unmatchedLogGpus = logHost.gpus
    .filter((g) => g.netConnections.total > 0 && !matched.some((m) => m.log === g))
    .map((g) => g.nvmlDev ?? g.dev);
  const hostNics = (rdmaPorts(input.report) ?? []).filter((p) => p.active !== false && p.linkLayer !== 'other');
  const base = {
    host: input.host,
    logHost: logHost.name,
    ncclAssumed: diagnosis.nccl.assumed,
    versionFrom,
    envFromLog,
    gpus,
    rdmaPorts: hostNics.map((p) => `${p.device}:${p.port}`),
    unmatchedLogGpus,
  };
  return { ...base, findings: compareFindings(base, logHost, hostNics) };
}

/** The log's NCCL release when the model knows it, else the user's; the log's NCCL_* settings over the user's. */
function assumptionsForLog(
  summary: NcclLogSummary,
  user: NcclAssumptions,
): { nccl: NcclAssumptions; versionFrom: 'log' | 'settings'; envFromLog: Record<string, string> } {
  const envFromLog = Object.fromEntries(Object.entries(summary.env).filter(([k]) => (NCCL_ENV_NAMES as readonly string[]).includes(k)));
  const env = Object.entries({ ...user.env, ...envFromLog }).map(([k, v]) => `${k}=${v}`);
  const fromLog = summary.ncclVersion === null ? null : readNcclAssumptions(summary.ncclVersion, env);
  if (fromLog !== null && typeof fromLog !== 'string') return { nccl: fromLog, versionFrom: 'log', envFromLog };
  const withEnv = readNcclAssumptions(undefined, env);
  return { nccl: typeof withEnv === 'string' ? user : { version: user.version, env: withEnv.env }, versionFrom: 'settings', envFromLog };
}

interface MatchedGpu {
  readonly log: NcclLogGpu;
  readonly pair: GpuNicPair;
  readonly matchedBy: 'busId' | 'nvmlDev' | 'device';
}

/**
 * The log's GPUs among the host's: by busId where the log printed one (NCCL before 2.18.3 prints it in
 * connection lines, every release in "Init COMPLETE"); else by NVML index (Init lines from 2.19, connection
 * lines from 2.18.3), which is nvidia-smi's; else by CUDA device number read as nvidia-smi's index (true
 * unless CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorders them; the evidence says which) — but not where
 * several of the log's GPUs share one device number: a job that gives each process one GPU prints `[0]`
 * in every process, and all of them are not GPU0.
 */
function matchGpus(logHost: NcclLogHost, pairs: readonly GpuNicPair[], report: ProbeReport): MatchedGpu[] {
  const busIds = new Map(gpuFacts(report, factOf(report, 'pci-sysfs') ?? null).map((g) => [g.name, busIdNumber(g.busId)]));
  const devCount = new Map<number, number>();
  for (const g of logHost.gpus) devCount.set(g.dev, (devCount.get(g.dev) ?? 0) + 1);
  return logHost.gpus.flatMap((log): MatchedGpu[] => {
    const bus = busIdNumber(log.busId);
    if (bus !== null) {
      const byBus = pairs.find((p) => busIds.get(p.gpu) === bus);
      return byBus ? [{ log, pair: byBus, matchedBy: 'busId' }] : [];
    }
    const byNvml = log.nvmlDev === null ? undefined : pairs.find((p) => p.gpu === `GPU${log.nvmlDev}`);
    if (byNvml) return [{ log, pair: byNvml, matchedBy: 'nvmlDev' }];
    if (log.nvmlDev !== null || log.dev < 0 || (devCount.get(log.dev) ?? 0) > 1) return [];
    const byDev = pairs.find((p) => p.gpu === `GPU${log.dev}`);
    return byDev ? [{ log, pair: byDev, matchedBy: 'device' }] : [];
  });
}

/** NCCL's busId as a number: its hex digits read together ("0000:1b:00.0" and "1b000" are the same GPU). */
export function busIdNumber(busId: string | null): bigint | null {
  if (busId === null) return null;
  const digits = busId.replace(/[^0-9a-fA-F]/g, '');
  return digits === '' || /[^0-9a-fA-F:.]/.test(busId) ? null : BigInt(`0x${digits}`);
}

function compareGpu(m: MatchedGpu, pairs: readonly GpuNicPair[], everyNic: ReadonlySet<string>): ComparedGpu {
  const { log, pair } = m;
  const proxy = pair.proxyGpu === null ? undefined : pairs.find((p) => p.gpu === pair.proxyGpu);
  const expected = new Set([...nicNames(pair), ...(proxy ? nicNames(proxy) : [])]);
  // A virtual NIC of several merged ones ("mlx5_0+mlx5_1", NCCL_IB_MERGE_NICS) is expected where one of them is.
  const within = (names: ReadonlySet<string>, nic: string) => nic.split('+').some((part) => names.has(part));
  const unexpectedNics = log.nics
    .filter((n) => !n.name.startsWith('NET/'))
    .filter((n) => (n.connections > n.pxn ? !within(expected, n.name) : !within(everyNic, n.name)))
    .map((n) => n.name);
  const way = gdrWay(pair);
  return {
    gpu: pair.gpu,
    matchedBy: m.matchedBy,
    pair,
    way,
    log,
    unexpectedNics,
    gdrAgrees: gdrAgrees(way, log),
    predicted: COMPARE_TEXT.predicted(way, nicNames(pair), pair.proxyGpu),
    observed: COMPARE_TEXT.observed(log),
  };
}

/**
 * The log's host names that one of `names` stands for (an SSH destination, its HostName, a label): NCCL
 * prints a host's name up to its first dot (getHostName in src/misc/utils.cc), so `gpu01.cluster`,
 * `admin@gpu01:2222` and `ssh://gpu01` all stand for `gpu01`.
 */
export function logHostsMatching(summary: NcclLogSummary, names: readonly string[]): string[] {
  const wanted = new Set(names.map(shortHostName).filter((n) => n !== ''));
  return summary.hosts.map((h) => h.name).filter((h) => wanted.has(h.toLowerCase()));
}

function shortHostName(name: string): string {
  const host = name
    .replace(/^ssh:\/\//, '')
    .replace(/^[^@]*@/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  return /^[\d.]+$/.test(host) || host.includes(':') ? host : host.split('.')[0];
}

function nicNames(p: GpuNicPair): string[] {
  return p.nics.map((n) => n.device ?? n.nic);
}

/**
 * null: nothing to judge (no network connection in the log). GDR both ways needs /GDRDMA on every
 * connection, no GDR on none; GDR one way only (sends or receives) needs it on some (the log does
 * not always hold both directions, so no more is asked).
 */
function gdrAgrees(way: GdrWay, log: NcclLogGpu): boolean | null {
  const { total, gdrdma } = log.netConnections;
  if (total === 0) return null;
  if (way === 'send' || way === 'receive') return gdrdma > 0;
  return way === 'both' ? gdrdma === total : gdrdma === 0;
}

function gdrWay(p: GpuNicPair): GdrWay {
  if (p.send !== undefined && p.send !== p.receive) return p.send ? 'send' : 'receive';
  return p.gdr ? 'both' : 'none';
}
