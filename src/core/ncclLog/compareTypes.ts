// What comparing an NCCL log with a diagnosed host gives (compare.ts computes it, compareFindings.ts
// and compareText.ts word it): apart, so that none of the three imports another back.
import type { GpuNicPair } from '../diagnosis';
import type { Finding } from '../diagnosis/finding';
import type { NcclLogGpu } from './types';

/** Which way the model predicts GPU Direct RDMA for a GPU's network connections. */
export type GdrWay = 'both' | 'send' | 'receive' | 'none';

export interface ComparedGpu {
  /** The model's name (`GPU0`, nvidia-smi's numbering). */
  readonly gpu: string;
  /** How the log's GPU was found among the host's: its busId, its NVML index (nvidia-smi's), or its CUDA device number. */
  readonly matchedBy: 'busId' | 'nvmlDev' | 'device';
  readonly pair: GpuNicPair;
  readonly way: GdrWay;
  readonly log: NcclLogGpu;
  /** What the model predicts, what the log shows, in few words. */
  readonly predicted: string;
  readonly observed: string;
  /** The log's NICs this GPU used directly that the model does not give it (nor its PXN proxy). */
  readonly unexpectedNics: string[];
  readonly gdrAgrees: boolean | null;
}

export interface NcclHostComparison {
  /** The diagnosed host, as the user named it. */
  readonly host: string;
  /** The host name in the log that was compared with it. */
  readonly logHost: string;
  /** The NCCL release the prediction follows, and where that came from. */
  readonly ncclAssumed: string;
  readonly versionFrom: 'log' | 'settings';
  /** The NCCL_* settings of the log that the prediction took over. */
  readonly envFromLog: Readonly<Record<string, string>>;
  readonly gpus: ComparedGpu[];
  /** The host's usable RDMA ports (`mlx5_0:1`), as the probe read them. */
  readonly rdmaPorts: string[];
  /** Log GPUs with network connections that match no GPU of the host. */
  readonly unmatchedLogGpus: number[];
  readonly findings: Finding[];
}
