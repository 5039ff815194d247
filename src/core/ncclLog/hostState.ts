// What the log says about one host, gathered line by line. Everything here grows with the number
// of GPUs, NICs, ranks and distinct reasons on the host, never with the number of lines.
import type { NcclConnection, NcclLogLine, NcclNetDevice } from '../parsers/ncclLogTypes';
import type { DisabledPair } from './reasons';
import type { NcclLogHostHca, NcclLogRef } from './types';

/** A line's reference, made only when something keeps it (most lines are only counted). */
export type LazyRef = () => NcclLogRef;

/** A host's distinct reasons are kept up to this many (a reason repeats per rank and channel). */
export const MAX_REASONS_PER_HOST = 100;

export interface GpuState {
  readonly dev: number;
  busId: string | null;
  readonly ranks: Set<number>;
  dmabuf: boolean;
  total: number;
  gdrdma: number;
  readonly nics: Map<string, NicUseState>;
  /** The GPU's first network connection line with and without /GDRDMA, for evidence. */
  firstGdrdma: NcclLogRef | null;
  firstWithoutGdrdma: NcclLogRef | null;
}

/** `pxn`: the connections that went through this NIC from another GPU, which relayed them (PXN). */
export interface NicUseState {
  connections: number;
  gdrdma: number;
  pxn: number;
}

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
  readonly gpus = new Map<number, GpuState>();
  readonly hcas = new Map<string, MutableHca>();
  readonly reasons = new Map<string, NcclLogRef>();
  readonly disabledPairs = new Map<string, PairState>();
  /** The first network connection line with and without /GDRDMA, for evidence. */
  firstGdrdma: NcclLogRef | null = null;
  firstWithoutGdrdma: NcclLogRef | null = null;
  /** NIC names by net class, then process (a process lists its NICs once; ANY_PROCESS: any), then index. */
  private readonly nicNames = { rdma: new Map<number, Map<number, string>>(), socket: new Map<number, Map<number, string>>() };

  constructor(readonly name: string) {}

  gpu(dev: number): GpuState {
    let gpu = this.gpus.get(dev);
    if (!gpu) {
      gpu = {
        dev,
        busId: null,
        ranks: new Set(),
        dmabuf: false,
        total: 0,
        gdrdma: 0,
        nics: new Map(),
        firstGdrdma: null,
        firstWithoutGdrdma: null,
      };
      this.gpus.set(dev, gpu);
    }
    return gpu;
  }

  hca(name: string): MutableHca {
    let hca = this.hcas.get(name);
    if (!hca) {
      hca = { name, link: null, gdr: null, dmabuf: null, reason: null };
      this.hcas.set(name, hca);
    }
    return hca;
  }

  addReason(reason: string, ref: LazyRef): void {
    if (!this.reasons.has(reason) && this.reasons.size < MAX_REASONS_PER_HOST) this.reasons.set(reason, ref());
  }

  listNics(line: NcclLogLine, net: string, devices: readonly NcclNetDevice[]): void {
    if (net === 'Socket') this.socketListed ||= devices.length > 0;
    else this.noRdmaDevice ||= devices.length === 0;
    for (const d of devices) {
      this.nameNic(line.pid, net, d.index, d.name, true);
      if (net !== 'Socket') this.hca(d.name).link = d.link;
    }
  }

  /** A NIC index named by a GDR line; the process's own NIC list wins over it. */
  nameNic(pid: number | null, net: string, index: number, name: string, authoritative = false): void {
    const byProcess = this.nicNames[netClass(net)];
    for (const key of [pid ?? NO_PID, ANY_PROCESS]) {
      let names = byProcess.get(key);
      if (!names) byProcess.set(key, (names = new Map()));
      if (authoritative || !names.has(index)) names.set(index, name);
    }
  }

  /** What "Using network" said, or Socket where NCCL fell back to it without saying so. */
  effectiveNetwork(): string | null {
    return this.network ?? (this.noRdmaDevice && this.socketListed ? 'Socket' : null);
  }

  nicName(pid: number | null, net: string, index: number): string | null {
    const byProcess = this.nicNames[netClass(net)];
    return byProcess.get(pid ?? NO_PID)?.get(index) ?? byProcess.get(ANY_PROCESS)?.get(index) ?? null;
  }

  /** Counts one connection line for the GPU of the process that printed it; network lines keep their first reference. */
  addConnection(line: NcclLogLine, c: NcclConnection, ref: LazyRef): void {
    const local = c.direction === 'receive' && c.to ? c.to : c.from;
    const gpu = this.gpu(line.dev ?? localDev(local.tag));
    this.ranks.add(local.rank);
    gpu.ranks.add(local.rank);
    if (gpu.busId === null && local.tag !== null && looksLikeBusId(local.tag)) gpu.busId = local.tag;
    if (c.transport !== 'NET' || c.net === null) return;
    const nic = this.nicName(line.pid, c.net.name, c.net.dev) ?? `NET/${c.net.name}/${c.net.dev}`;
    const use = gpu.nics.get(nic) ?? { connections: 0, gdrdma: 0, pxn: 0 };
    gpu.nics.set(nic, use);
    const gdr = c.net.gdr ? 1 : 0;
    use.connections++;
    use.gdrdma += gdr;
    if (c.net.proxyRank !== null && c.net.proxyRank !== local.rank) use.pxn++;
    gpu.total++;
    gpu.gdrdma += gdr;
    this.total++;
    this.gdrdma += gdr;
    if (c.net.gdr) {
      gpu.firstGdrdma ??= ref();
      this.firstGdrdma ??= gpu.firstGdrdma;
    } else {
      gpu.firstWithoutGdrdma ??= ref();
      this.firstWithoutGdrdma ??= gpu.firstWithoutGdrdma;
    }
  }
}

const NO_PID = -1;
const ANY_PROCESS = -2;

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
