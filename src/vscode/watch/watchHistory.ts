// What Watch keeps of each watched host: its last few outcomes as snapshots (core/watch), and, when a
// new one differs from the one before, the change in words (core/watch's diff: the same rules as
// `gdr-doctor diff`). No VS Code import: watchCommands.ts feeds it the host model's outcomes.
import { diffSnapshots } from '../../core/watch/diff';
import { diffHeadline, formatDiff } from '../../core/watch/diffText';
import { HostSnapshot, hostSnapshot, unreachedSnapshot } from '../../core/watch/snapshot';
import type { Outcome, WatchChange } from '../hosts/hostModel';

/** Reports kept per host: enough to look back a few runs, bounded however long Watch runs. */
export const KEPT_REPORTS = 5;

interface Kept {
  readonly outcome: Outcome;
  readonly at: Date;
  readonly snapshot: HostSnapshot;
}

export class WatchHistory {
  private readonly kept = new Map<string, Kept[]>();

  /**
   * Takes the host's latest outcome. Returns the change it brings over the one before, or undefined: the
   * first outcome, one already taken, the same outcome recomputed (new NCCL settings: it replaces the
   * last one silently), or nothing changed.
   */
  record(hostId: string, outcome: Outcome): WatchChange | undefined {
    const list = this.kept.get(hostId) ?? [];
    const last = list[list.length - 1];
    if (last?.outcome === outcome) return undefined;
    const entry = { outcome, at: outcome.finishedAt, snapshot: snapshotOf(hostId, outcome) };
    if (last && last.at.getTime() === outcome.finishedAt.getTime()) {
      list[list.length - 1] = entry;
      return undefined;
    }
    this.kept.set(hostId, [...list, entry].slice(-KEPT_REPORTS));
    if (!last) return undefined;
    const diff = diffSnapshots([last.snapshot], [entry.snapshot]);
    const host = diff.hosts[0];
    const headline = diffHeadline(host);
    if (headline === undefined) return undefined;
    const lines = formatDiff(diff)
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    return { since: last.at, headline, worse: host.worse, lines };
  }

  /** The outcomes kept for the host, oldest first. */
  reports(hostId: string): readonly Outcome[] {
    return (this.kept.get(hostId) ?? []).map((k) => k.outcome);
  }

  forget(hostId: string): void {
    this.kept.delete(hostId);
  }
}

function snapshotOf(hostId: string, outcome: Outcome): HostSnapshot {
  if (outcome.kind === 'failed') return unreachedSnapshot(hostId, outcome.message, outcome.finishedAt.toISOString());
  return { ...hostSnapshot(outcome.report, outcome.diagnosis), host: hostId };
}
