// The shapes of a GPUDirect RDMA proof (docs/perftest.md): what is measured between which GPU and
// NIC on which host, and what came of it. Plain JSON: the CLI prints it (`prove --json`), the extension
// shows it, the audit log records it.

/** In the order they run: host memory first, the yardstick for the GPU modes. */
export const PROVE_MODES = ['host', 'peermem', 'dmabuf'] as const;
export type ProveMode = (typeof PROVE_MODES)[number];

export interface ProveOptions {
  /** GPU indexes to measure; null: every GPU. */
  readonly gpus: readonly number[] | null;
  readonly modes: readonly ProveMode[];
  /** Message size (`-s`). */
  readonly sizeBytes: number;
  /** Seconds each measurement runs (`-D`). */
  readonly durationS: number;
  /** Deadline of each side of a measurement, s; default the duration plus time for CUDA and the connection. */
  readonly timeoutS?: number;
}

export const DEFAULT_PROVE_OPTIONS: ProveOptions = { gpus: null, modes: PROVE_MODES, sizeBytes: 1 << 20, durationS: 5 };

/** One side of a measurement: a GPU, the NIC port its traffic goes through, where to pin. */
export interface ProveEndpoint {
  /** The host as the user named it. */
  readonly host: string;
  /** `GPU0`. */
  readonly gpu: string;
  readonly gpuIndex: number;
  /** `NVIDIA A100-SXM4-80GB`, when the probe read it. */
  readonly gpuName: string | null;
  /** The GPU's PCI address (`0000:17:00.0`), when the probe read it. */
  readonly gpuBusId?: string | null;
  /** This host's perftest takes `--use_cuda_bus_id` (its --help lists it): the GPU is named by address, not CUDA index. */
  readonly cudaByBusId?: boolean;
  /** RDMA device and port (`mlx5_0`, 1). */
  readonly device: string;
  readonly port: number;
  readonly linkLayer: 'IB' | 'RoCE' | 'other' | null;
  /** Active width × speed, Gb/s; null when not read. */
  readonly lineRateGbps: number | null;
  /** NUMA node to pin to (the NIC's, else the GPU's); null: not pinned. */
  readonly numaNode: number | null;
  /** Where the NUMA node came from. */
  readonly numaSource: 'nic' | 'gpu' | null;
}

export type OutcomeStatus = 'ok' | 'failed' | 'skipped' | 'timed-out' | 'cancelled';

/** What one side printed and how it ended. */
export interface RoleRun {
  readonly exitCode: number | null;
  readonly output: string;
}

export interface ModeOutcome {
  readonly mode: ProveMode;
  readonly status: OutcomeStatus;
  /** BW average from perftest's own report line (the client's), Gb/s. */
  readonly gbps: number | null;
  /** The slower of the two ports' line rates. */
  readonly lineRateGbps: number | null;
  /** gbps / lineRateGbps, 0..1 (rounded to 0.01). */
  readonly ratio: number | null;
  /** perftest's own error line, or why the mode was skipped or stopped. */
  readonly reason: string | null;
  /** Findings of the diagnosis (or prerequisites) that explain a failure, in words with their ids. */
  readonly explainedBy: readonly string[];
  /** The client's command line (both sides run the same but for the server address). */
  readonly command: string | null;
  readonly client: RoleRun | null;
  readonly server: RoleRun | null;
  /** Host memory measured once per port pair: the GPU whose measurement this is. */
  readonly sharedFrom?: string;
}

export type Tone = 'ok' | 'warning' | 'error' | 'unknown';

/** One GPU's measurement set-up: planned (plan.ts), then proven. */
export interface GpuPairing {
  readonly gpu: string;
  /** This GPU and its NIC (the client: its NIC reads the GPU's memory and writes to the server's). */
  readonly client: ProveEndpoint;
  /** The other end: another port of the host, or the same GPU index on the peer host. */
  readonly server: ProveEndpoint;
  /** One host: `other-port` or `same-port` (the HCA loops back inside itself); two hosts: null. */
  readonly loopback: 'other-port' | 'same-port' | null;
  /** Facts a reader should know (PXN, not pinned…). */
  readonly notes: readonly string[];
}

export interface GpuProof extends GpuPairing {
  readonly modes: readonly ModeOutcome[];
  /** "GPUDirect RDMA works at 96 % of line rate (host memory: 97 %)", or why not. */
  readonly verdict: string;
  readonly tone: Tone;
  /** The line-rate floor of "works" (verdict.ts LINE_RATE_FLOOR): met, below, or not checkable; absent when no GPU mode ran clean. */
  readonly floor?: 'met' | 'below' | 'small-messages' | 'no-line-rate';
}

export interface ProofReport {
  /** The measured host, and the peer when two. */
  readonly host: string;
  readonly peer: string | null;
  /** The login node, when the two nodes were reached through it with Slurm. */
  readonly via: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly options: ProveOptions;
  /** `refused`: a precondition failed and nothing ran; `cancelled`/`timed-out`: stopped, what ended is kept. */
  readonly status: 'measured' | 'refused' | 'cancelled' | 'timed-out';
  /** Why nothing ran (preconditions), one message each. */
  readonly refusals: readonly string[];
  /** GPUs left out, and why. */
  readonly skipped: readonly string[];
  readonly gpus: readonly GpuProof[];
}
