// What gdr-doctor says about one NCCL job from its logs: whether GPUDirect RDMA was used on the
// network connections, per host and GPU, which NICs, and every reason it was off. Plain JSON:
// `gdr-doctor nccl-log --json` prints it as it is.
import type { Finding } from '../diagnosis/finding';

/** gdr: every network connection used GDRDMA; no-gdr: none did; mixed: some did; no-net: connections,
 * none through the network; unknown: no connection line at all (a cut log, or one without INIT/NET lines). */
export type NcclLogVerdict = 'gdr' | 'no-gdr' | 'mixed' | 'no-net' | 'unknown';

/** A line of a log: which file, which line, and its text as printed (for evidence). */
export interface NcclLogRef {
  readonly file: string;
  readonly line: number;
  /** 0-based column where NCCL's text starts on that line (after a launcher's prefix): where `text` begins. */
  readonly column: number;
  readonly text: string;
}

export interface NcclConnectionCount {
  /** Connection lines through the network (`Channel … via NET/…`; `Ring … via NET/…` up to 2.6). */
  readonly total: number;
  /** Those through `/GDRDMA`. */
  readonly gdrdma: number;
}

export interface NcclLogHca {
  readonly name: string;
  /** The net whose line named it: `IB`, `Socket` (an interface, which never does GPU Direct RDMA), a plugin's name. */
  readonly net: string;
  /** true when a "GPU Direct RDMA Enabled for HCA" line names it, false when a Disabled line does, else null. */
  readonly gdr: boolean | null;
  /** true when a line says it uses DMA-BUF (the Mellanox/HPC-X plugin's "(DMABUF) enabled"), else null. */
  readonly dmabuf: true | null;
}

export interface NcclLogHostHca extends NcclLogHca {
  /** IB or RoCE, as NCCL listed it; null when only a GDR line named it. */
  readonly link: string | null;
  /** The reason printed after a Disabled line (`no module`). */
  readonly reason: string | null;
}

export interface NcclLogNicUse {
  /** The NIC's name, or `NET/<net>/<index>` when the log never listed that index. */
  readonly name: string;
  readonly connections: number;
  readonly gdrdma: number;
  /** Of those, the ones another GPU of the host relayed over NVLink (PXN: `via NET/<net>/<dev>(<proxy rank>)`). */
  readonly pxn: number;
}

export interface NcclLogGpu {
  /** The CUDA device of the process (`[dev]` in NCCL's header): 0 in every process of a job that gives each process one GPU. */
  readonly dev: number;
  readonly busId: string | null;
  /** NVML's index of the GPU (nvidia-smi's), from "Init" lines and, from NCCL 2.18.3, connection lines' `rank[nvmlDev]`. */
  readonly nvmlDev: number | null;
  readonly ranks: number[];
  /** "DMA-BUF is available on GPU device n" was printed for it. */
  readonly dmabuf: boolean;
  readonly netConnections: NcclConnectionCount;
  readonly nics: NcclLogNicUse[];
  /** Its first network connection line with /GDRDMA and without, as evidence; null when it had none. */
  readonly firstGdrdma: NcclLogRef | null;
  readonly firstWithoutGdrdma: NcclLogRef | null;
}

export interface NcclLogReason {
  readonly reason: string;
  readonly evidence: NcclLogRef;
}

export interface NcclLogHost {
  /** As NCCL printed it (the name up to its first dot); `(no host)` for lines whose header was cut off. */
  readonly name: string;
  readonly ranks: number[];
  /** `Using network …` on this host. */
  readonly network: string | null;
  readonly netConnections: NcclConnectionCount;
  readonly gpus: NcclLogGpu[];
  readonly hcas: NcclLogHostHca[];
  readonly gdrOffReasons: NcclLogReason[];
}

export interface NcclLogWarning {
  readonly text: string;
  readonly count: number;
  readonly first: NcclLogRef;
}

export interface NcclLogFileStats {
  readonly name: string;
  readonly lines: number;
  readonly ncclLines: number;
}

/**
 * What the summary left out to stay within SUMMARY_LIMITS (budget.ts): for each kind, how many times a
 * line named one more than the limit. Those lines still count in the job's totals.
 */
export interface NcclLogDropped {
  readonly hosts: number;
  readonly gpus: number;
  readonly hcas: number;
  readonly ranks: number;
  readonly processes: number;
  readonly reasons: number;
  readonly versions: number;
}

export interface NcclLogSummary {
  readonly ncclVersion: string | null;
  readonly cudaVersion: string | null;
  readonly network: string | null;
  readonly hcas: NcclLogHca[];
  readonly netConnections: NcclConnectionCount;
  readonly verdict: NcclLogVerdict;
  readonly hosts: NcclLogHost[];
  readonly findings: Finding[];
  /** Distinct NCCL WARN messages (the first 50), with how often each came. */
  readonly warnings: NcclLogWarning[];
  /** NCCL_* settings NCCL echoed ("NCCL_IB_HCA set by environment to mlx5_0"), the first value of each. */
  readonly env: Readonly<Record<string, string>>;
  readonly files: NcclLogFileStats[];
  /** Connection lines Ray's log de-duplication folded into the ones printed (`[repeated Nx across cluster]`): not
   * counted, their numbers are gone. */
  readonly rayFolded: number;
  readonly dropped: NcclLogDropped;
}
