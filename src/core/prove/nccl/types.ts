// A proof with NCCL itself, as plain JSON (`prove --nccl --json`, the extension, the audit log):
// what ran where, nccl-tests' result, NCCL's log in brief, and the one verdict.
import type { NcclLogVerdict } from '../../ncclLog';
import type { NcclTestsRun } from '../../ncclTests';
import type { NcclVerdict } from '../../ncclTests/verdict';
import type { NcclProveOptions } from './options';

export interface NcclProofReport {
  readonly kind: 'nccl';
  /** The nodes as the user named them, rank 0's first. */
  readonly nodes: readonly string[];
  /** The login node the run went through; null: direct (mpirun on the first node). */
  readonly via: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly options: NcclProveOptions;
  readonly gpusPerNode: number | null;
  /** `refused`: a precondition failed, nothing ran; `failed`: it ran and printed no result. */
  readonly status: 'measured' | 'refused' | 'failed' | 'cancelled' | 'timed-out';
  readonly refusals: readonly string[];
  /** The launcher's command line as it ran. */
  readonly command: string | null;
  readonly launcherExitCode: number | null;
  /** nccl-tests' own result (its -J JSON where it arrived whole, else the table). */
  readonly result: NcclTestsRun | null;
  /** NCCL's log of the same run, in brief (gdr-doctor nccl-log gives all of it). */
  readonly log: {
    readonly ncclVersion: string | null;
    readonly verdict: NcclLogVerdict;
    readonly netConnections: { total: number; gdrdma: number };
  } | null;
  readonly verdict: NcclVerdict | null;
  /** The end of what the run printed, when it did not give a result (its own words). */
  readonly outputTail: string | null;
}
