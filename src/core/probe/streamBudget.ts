// The overall budget of probe streams held at once (outputLimits.ts RUN_STREAM_BUDGET): every host's
// stream takes from one budget while it arrives and gives it back once it is parsed, so a run's hosts
// together, however many and however loud, never hold more than the budget. A host that asks for more
// than is left is cut there, and its report says it was this budget, not its own cap, that cut it.
import { RUN_STREAM_BUDGET } from './outputLimits';

export class StreamBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** Up to `bytes` of the budget (fewer when less is left): what the caller may keep, and must give back. */
  take(bytes: number): number {
    const granted = Math.max(0, Math.min(bytes, this.limitBytes - this.used));
    this.used += granted;
    return granted;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

/** The budget every probe of this process shares unless a caller (a test) gives its own. */
export const sharedStreamBudget = new StreamBudget(RUN_STREAM_BUDGET);

/** Why a host's stream was cut short: its own budget, or the run's (shared) one. */
export interface StreamCutBy {
  readonly by: 'host' | 'run';
  readonly limitBytes: number;
  readonly cutBytes: number;
}
