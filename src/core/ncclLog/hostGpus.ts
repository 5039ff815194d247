// Which GPU of a host each log line speaks for. NCCL's `[dev]` is the CUDA device inside the process:
// a job that gives each process one GPU (Slurm's GPU binding, a per-rank CUDA_VISIBLE_DEVICES, one GPU
// per container) prints `[0]` in every process, so the device number alone would make 8 GPUs one.
// What names a GPU for the whole host is its busId and NVML index: printed by the Init lines
// ("cudaDev %d busId %lx" 2.7–2.18, "cudaDev %d nvmlDev %d busId %lx" 2.19+, src/init.cc) and in the
// brackets of connection lines ("%d[%lx]" busId 2.5–2.18.2, "%d[%d]" nvmlDev from 2.18.3,
// src/transport/net.cc, p2p.cc, shm.cc). A process's lines go to the GPU its Init line (or its own
// connection tag) named; until one did, to the process's device, which is merged into the GPU once named.
import type { SummaryBudget } from './budget';
import type { NcclLogRef } from './types';

export interface GpuState {
  /** The CUDA device as the process printed it. */
  readonly dev: number;
  busId: string | null;
  nvmlDev: number | null;
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

export interface GpuIdentity {
  readonly busId: string | null;
  readonly nvmlDev: number | null;
}

export class HostGpus {
  /** By `bus:<hex>`, `nvml:<n>` and, for a process's device not named yet, `proc:<pid>:<dev>`. */
  private readonly byKey = new Map<string, GpuState>();
  private readonly byProcess = new Map<string, GpuState>();

  constructor(private readonly budget: SummaryBudget) {}

  /** The GPU of a process's device: the one named for it, else the device itself (null past the limits). */
  of(pid: number | null, dev: number): GpuState | null {
    const key = processKey(pid, dev);
    const known = this.byProcess.get(key);
    if (known) return known;
    const gpu = this.byKey.get(`proc:${key}`) ?? this.create(dev, `proc:${key}`);
    if (gpu && this.budget.take('processes')) this.byProcess.set(key, gpu);
    return gpu;
  }

  /** A line named the GPU of a process's device (an Init line, the local side of a connection). */
  name(pid: number | null, dev: number, id: GpuIdentity): GpuState | null {
    const keys = identityKeys(id);
    if (keys.length === 0) return this.of(pid, dev);
    const named = keys.map((k) => this.byKey.get(k)).find((g) => g !== undefined);
    const current = this.byProcess.get(processKey(pid, dev));
    let gpu = named ?? current ?? this.create(dev, keys[0]);
    if (gpu === null) return null;
    if (current && named && current !== named) gpu = this.merge(current, named);
    gpu.busId ??= id.busId;
    gpu.nvmlDev ??= id.nvmlDev;
    for (const k of keys) if (!this.byKey.has(k)) this.byKey.set(k, gpu);
    const key = processKey(pid, dev);
    if (this.byProcess.get(key) !== gpu && (this.byProcess.has(key) || this.budget.take('processes'))) this.byProcess.set(key, gpu);
    return gpu;
  }

  /** Each GPU once. */
  all(): GpuState[] {
    return [...new Set(this.byKey.values())];
  }

  private create(dev: number, key: string): GpuState | null {
    if (!this.budget.take('gpus')) return null;
    const gpu: GpuState = {
      dev,
      busId: null,
      nvmlDev: null,
      ranks: new Set(),
      dmabuf: false,
      total: 0,
      gdrdma: 0,
      nics: new Map(),
      firstGdrdma: null,
      firstWithoutGdrdma: null,
    };
    this.byKey.set(key, gpu);
    return gpu;
  }

  /** The process's device turned out to be a GPU already known: what it gathered moves there. */
  private merge(from: GpuState, into: GpuState): GpuState {
    for (const r of from.ranks) into.ranks.add(r);
    into.dmabuf ||= from.dmabuf;
    into.total += from.total;
    into.gdrdma += from.gdrdma;
    for (const [name, use] of from.nics) {
      const to = into.nics.get(name) ?? { connections: 0, gdrdma: 0, pxn: 0 };
      into.nics.set(name, { connections: to.connections + use.connections, gdrdma: to.gdrdma + use.gdrdma, pxn: to.pxn + use.pxn });
    }
    into.firstGdrdma = earlier(into.firstGdrdma, from.firstGdrdma);
    into.firstWithoutGdrdma = earlier(into.firstWithoutGdrdma, from.firstWithoutGdrdma);
    for (const map of [this.byKey, this.byProcess]) for (const [k, g] of map) if (g === from) map.set(k, into);
    return into;
  }
}

function processKey(pid: number | null, dev: number): string {
  return `${pid ?? '-'}:${dev}`;
}

function identityKeys(id: GpuIdentity): string[] {
  const bus = id.busId === null ? null : normalBusId(id.busId);
  return [...(bus === null ? [] : [`bus:${bus}`]), ...(id.nvmlDev === null ? [] : [`nvml:${id.nvmlDev}`])];
}

/** NCCL prints a busId as `%lx` of its number: `1b000`, `0x1b000` and `001b000` are one GPU. */
function normalBusId(busId: string): string | null {
  const hex = busId
    .toLowerCase()
    .replace(/^0x/, '')
    .replace(/^0+(?=.)/, '');
  return /^[0-9a-f]{1,16}$/.test(hex) ? hex : null;
}

function earlier(a: NcclLogRef | null, b: NcclLogRef | null): NcclLogRef | null {
  if (a === null || b === null) return a ?? b;
  return a.file === b.file && b.line < a.line ? b : a;
}
