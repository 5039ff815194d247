// How much of a job the summary keeps (issue 23 item 5): a log names hosts, GPUs, HCAs, ranks and
// processes, and a hostile or broken one can name millions (a 256 MB log of 6.4 M distinct host names
// ran the CLI out of heap). Past each limit a new one is not kept: its lines still count in the job's
// totals, and the summary says how many lines named one past the limit.
import type { NcclLogDropped } from './types';

export type SummaryLimits = Readonly<Record<keyof NcclLogDropped, number>>;

/** The most the summary keeps of each, over all hosts: far above the largest jobs (65,536 GPUs on 8,192 hosts). */
export const SUMMARY_LIMITS: SummaryLimits = {
  hosts: 8192,
  gpus: 65_536,
  hcas: 65_536,
  ranks: 262_144,
  /** Processes whose NIC list and GPU are remembered (`host:pid`). */
  processes: 65_536,
  /** Reasons GPU Direct RDMA was off and disabled GPU/HCA pairs, with their lines, over all hosts. */
  reasons: 16_384,
  /** Distinct NCCL versions. */
  versions: 64,
};

type Counts = { -readonly [K in keyof NcclLogDropped]: number };
const zero = (): Counts => ({ hosts: 0, gpus: 0, hcas: 0, ranks: 0, processes: 0, reasons: 0, versions: 0 });

export class SummaryBudget {
  private readonly used = zero();
  readonly dropped = zero();

  constructor(readonly limits: SummaryLimits = SUMMARY_LIMITS) {}

  /** Room for one more of `kind`: true (and counted), or false (and the refusal counted). */
  take(kind: keyof NcclLogDropped): boolean {
    if (this.used[kind] >= this.limits[kind]) {
      this.dropped[kind]++;
      return false;
    }
    this.used[kind]++;
    return true;
  }

  /** Adds `value` to a set of ranks if the budget has room (a rank already there costs nothing). */
  addRank(ranks: Set<number>, value: number): void {
    if (!ranks.has(value) && this.take('ranks')) ranks.add(value);
  }
}
