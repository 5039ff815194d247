// What the log says about one host, gathered line by line. Everything here grows with the number
// of GPUs, NICs, ranks and distinct reasons on the host, never with the number of lines.
import type { NcclConnection, NcclLogLine, NcclNetDevice } from '../parsers/ncclLogTypes';
import type { SummaryBudget } from './budget';
import { GpuState, HostGpus } from './hostGpus';
import type { DisabledPair } from './reasons';
import type { NcclLogHostHca, NcclLogRef } from './types';

export type { GpuState } from './hostGpus';

/** A line's reference, made only when something keeps it (most lines are only counted). */
export type LazyRef = () => NcclLogRef;

/** A host's distinct reasons are kept up to this many (a reason repeats per rank and channel). */
export const MAX_REASONS_PER_HOST = 100;

type MutableHca = { -readonly [K in keyof NcclLogHostHca]: NcclLogHostHca[K] };

/** A pair NCCL judged too far apart for GPU Direct RDMA; named once the NCCL version is known. */
export interface PairState extends DisabledPair {
  readonly ref: NcclLogRef;
}

export class HostState {
  readonly ranks = new Set<number>();
  network: string | null = null;
  /** NET/IB found no device and NET/Socket listed interfaces: NCCL ≤ 2.5 fell back to sockets without saying "Using network". */
  noRdmaDevice = false;
  socketListed = false;
  total = 0;
  gdrdma = 0;
  readonly gpus: HostGpus;
  readonly hcas = new Map<string, MutableHca>();
  readonly reasons = new Map<string, NcclLogRef>();
  readonly disabledPairs = new Map<string, PairState>();
  /** The first network connection line with and without /GDRDMA, for evidence. */
  firstGdrdma: NcclLogRef | null = null;
  firstWithoutGdrdma: NcclLogRef | null = null;
  /** NIC names by net class, then process (a process lists its NICs once; ANY_PROCESS: any), then index. */
  private readonly nicNames = { rdma: new Map<number, Map<number, string>>(), socket: new Map<number, Map<number, string>>() };
  /** "Made virtual device [n] name=…" (2.24+): what `NET/IB/n` means once NCCL made virtual devices, by process. */
  private readonly virtualNames = new Map<number, Map<number, string>>();

  /** `listed`: false for the host that gathers the lines of hosts past SUMMARY_LIMITS (counted, never listed). */
  constructor(
    readonly name: string,
    private readonly budget: SummaryBudget,
    readonly listed = true,
  ) {
    this.gpus = new HostGpus(budget);
  }

  /** The GPU the line's process speaks for (null past the limits, or on the unlisted host). */
  gpuOf(line: NcclLogLine, dev: number | null = line.dev): GpuState | null {
    return this.listed ? this.gpus.of(line.pid, dev ?? -1) : null;
  }

  /** The line's HCA entry by name (null past the limits, or on the unlisted host). */
  hca(name: string, net: string): MutableHca | null {
    let hca = this.hcas.get(name);
    if (!hca && this.listed && this.budget.take('hcas')) {
      hca = { name, net, link: null, gdr: null, dmabuf: null, reason: null };
      this.hcas.set(name, hca);
    }
    return hca ?? null;
  }

  addReason(reason: string, ref: LazyRef): void {
    if (this.listed && !this.reasons.has(reason) && this.reasons.size < MAX_REASONS_PER_HOST && this.budget.take('reasons')) {
      this.reasons.set(reason, ref());
    }
  }

  listNics(line: NcclLogLine, net: string, devices: readonly NcclNetDevice[], found: boolean): void {
    if (net === 'Socket') this.socketListed ||= devices.length > 0;
    else this.noRdmaDevice ||= !found;
    for (const d of devices) {
      this.nameNic(line.pid, net, d.index, d.name, true);
      const hca = net === 'Socket' ? null : this.hca(d.name, net);
      if (hca) hca.link = d.link;
    }
  }

  /** A NIC index named by a GDR line; the process's own NIC list wins over it. */
  nameNic(pid: number | null, net: string, index: number, name: string, authoritative = false): void {
    this.remember(this.nicNames[netClass(net)], pid, index, name, authoritative);
  }

  /** "NET/IB : Made virtual device [n] name=mlx5_0+mlx5_1 …": `NET/IB/n` is that device from then on. */
  nameVirtualNic(pid: number | null, index: number, name: string): void {
    this.remember(this.virtualNames, pid, index, name, true);
  }

  private remember(
    byProcess: Map<number, Map<number, string>>,
    pid: number | null,
    index: number,
    name: string,
    authoritative: boolean,
  ): void {
    for (const key of [pid ?? NO_PID, ANY_PROCESS]) {
      let names = byProcess.get(key);
      if (!names) {
        if (key !== ANY_PROCESS && !this.budget.take('processes')) continue;
        byProcess.set(key, (names = new Map()));
      }
      if ((authoritative || !names.has(index)) && (names.has(index) || names.size < MAX_NICS_PER_PROCESS)) names.set(index, name);
    }
  }

  /** What "Using network" said, or Socket where NCCL fell back to it without saying so. */
  effectiveNetwork(): string | null {
    return this.network ?? (this.noRdmaDevice && this.socketListed ? 'Socket' : null);
  }

  nicName(pid: number | null, net: string, index: number): string | null {
    const lookup = (byProcess: Map<number, Map<number, string>>) =>
      byProcess.get(pid ?? NO_PID)?.get(index) ?? byProcess.get(ANY_PROCESS)?.get(index) ?? null;
    return (netClass(net) === 'rdma' ? lookup(this.virtualNames) : null) ?? lookup(this.nicNames[netClass(net)]);
  }

  /** Counts one connection line for the GPU of the process that printed it; network lines keep their first reference. */
  addConnection(line: NcclLogLine, c: NcclConnection, ref: LazyRef): void {
    const local = c.direction === 'receive' && c.to ? c.to : c.from;
    const gpu = this.listed ? this.connectionGpu(line, local.tag) : null;
    this.budget.addRank(this.ranks, local.rank);
    if (gpu) this.budget.addRank(gpu.ranks, local.rank);
    if (c.transport !== 'NET' || c.net === null) return;
    const gdr = c.net.gdr ? 1 : 0;
    let kept: NcclLogRef | null = null;
    const keep = () => (kept ??= ref());
    this.total++;
    this.gdrdma += gdr;
    if (c.net.gdr) this.firstGdrdma ??= keep();
    else this.firstWithoutGdrdma ??= keep();
    if (!gpu) return;
    const nic = this.nicName(line.pid, c.net.name, c.net.dev) ?? `NET/${c.net.name}/${c.net.dev}`;
    const use = gpu.nics.get(nic) ?? { connections: 0, gdrdma: 0, pxn: 0 };
    gpu.nics.set(nic, use);
    use.connections++;
    use.gdrdma += gdr;
    if (c.net.proxyRank !== null && c.net.proxyRank !== local.rank) use.pxn++;
    gpu.total++;
    gpu.gdrdma += gdr;
    if (c.net.gdr) gpu.firstGdrdma ??= keep();
    else gpu.firstWithoutGdrdma ??= keep();
  }

  /** The local side's tag names its GPU (busId before 2.18.3, the NVML device after); without a header, the tag's device. */
  private connectionGpu(line: NcclLogLine, tag: string | null): GpuState | null {
    const dev = line.dev ?? localDev(tag);
    if (tag === null) return this.gpus.of(line.pid, dev);
    return this.gpus.name(line.pid, dev, looksLikeBusId(tag) ? { busId: tag, nvmlDev: null } : { busId: null, nvmlDev: Number(tag) });
  }
}

const NO_PID = -1;
const ANY_PROCESS = -2;
/** NIC indexes remembered per process (NCCL_IB_HCA lists at most a few dozen). */
const MAX_NICS_PER_PROCESS = 256;

/** `mlx5_0` and `eth0` live in different lists: the socket net numbers its interfaces on its own. */
function netClass(net: string): 'rdma' | 'socket' {
  return net === 'Socket' ? 'socket' : 'rdma';
}

/** Before 2.18.3 the brackets hold the busId in hex (`1b000`); after, the NVML device (`3`). */
function looksLikeBusId(tag: string): boolean {
  return tag.length >= 4 || /[a-f]/i.test(tag);
}

function localDev(tag: string | null): number {
  return tag !== null && !looksLikeBusId(tag) ? Number(tag) : -1;
}
