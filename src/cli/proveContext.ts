// What the prove command's two paths (direct SSH, a login node with Slurm) share.
import type { NcclAssumptions } from '../core/diagnosis';
import type { SshReachOptions } from '../core/ssh/openSsh';
import type { BusyGpu, ProofReport, ProveOptions } from '../core/prove';
import type { CliIo } from './io';
import type { HealthOutput } from './healthOutput';

export interface ProveCliContext {
  readonly io: CliIo;
  readonly reach: SshReachOptions;
  readonly options: ProveOptions;
  readonly nccl: NcclAssumptions;
  /** What stdout gets (text, json or prometheus) and where the metrics are written. */
  readonly output: HealthOutput;
  readonly confirmBusy: (busy: readonly BusyGpu[]) => Promise<boolean>;
}

export interface Proven {
  readonly report: ProofReport;
  /** The login user on the measured host (or the login node), for the audit log. */
  readonly user: string | null;
}

/** Exit statuses of `gdr-doctor prove` besides 0 and 64. */
export const ProveExit = { failed: 1, belowFloor: 2, unreachable: 3, refused: 4, interrupted: 130 } as const;
