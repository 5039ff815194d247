// What the summarizer has gathered so far: summarize.ts fills it line by line, buildSummary.ts and
// findings.ts read it. Apart from all three, so that none imports another back.
import type { SummaryBudget } from './budget';
import type { HostState } from './hostState';
import type { NcclLogFileStats, NcclLogRef } from './types';

export interface SummaryState {
  readonly budget: SummaryBudget;
  /** The lines of hosts past the limit: counted in the job's totals, not listed. */
  readonly more: HostState;
  /** Connection lines Ray folded into others (`[repeated Nx across cluster]`). */
  rayFolded: number;
  readonly versions: Map<string, { cuda: string | null; ref: NcclLogRef }>;
  network: string | null;
  netFromConnections: string | null;
  readonly hosts: Map<string, HostState>;
  readonly warnings: Map<string, { count: number; first: NcclLogRef }>;
  /** NCCL_* settings as NCCL echoed them, the first value of each name. */
  readonly env: Map<string, string>;
  readonly files: NcclLogFileStats[];
  connectionLines: number;
  /** Every WARN line, also those beyond the MAX_WARNINGS distinct texts kept. */
  warnLines: number;
  cutLines: number;
  firstCut: NcclLogRef | null;
}
