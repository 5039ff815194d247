// Watch: a host or a fleet diagnosed again every gdrDoctor.watch.intervalMinutes minutes, in the
// background (a host's row says "diagnosing…", nothing pops up), until Stop Watching. Each new outcome
// of a watched host, from Watch or from anything else that diagnosed it, is compared with the one
// before (watchHistory.ts): the host's watch row says what changed since when, and a change for the
// worse is told in one notification per round, through notify.ts (host text never becomes a link).
import * as vscode from 'vscode';
import { Settings } from '../../constants';
import type { FleetConfig } from '../fleet/fleetSettings';
import type { HostEntry, HostModel, WatchChange } from '../hosts/hostModel';
import { notifyWarning } from '../notify';
import { timeOfDay } from '../displayLocale';
import { WatchHistory } from './watchHistory';

export interface WatcherDeps {
  readonly model: HostModel;
  /** Diagnoses one host in the background (the Diagnoser: its outcome lands in the model). */
  readonly diagnoseHost: (host: HostEntry, signal: AbortSignal) => Promise<unknown>;
  /** Diagnoses a fleet (its hosts' outcomes land in the model); the ids of its hosts after it. */
  readonly diagnoseFleet: (fleet: FleetConfig) => Promise<readonly string[]>;
  readonly log: { info(m: string): void };
}

interface Target {
  readonly key: string;
  readonly label: string;
  /** The host ids it covers (a fleet's grow as it is diagnosed). */
  hostIds: string[];
  readonly run: (signal: AbortSignal) => Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
  abort?: AbortController;
}

/** How often a watched host or fleet is diagnosed again (minutes; fractions allowed, at least 0.1). */
export function watchIntervalMinutes(): number {
  const minutes = vscode.workspace.getConfiguration(Settings.section).get<number>(Settings.watchIntervalMinutes, 15);
  return Number.isFinite(minutes) ? Math.max(0.1, minutes) : 15;
}

export class Watcher implements vscode.Disposable {
  private readonly targets = new Map<string, Target>();
  private readonly history = new WatchHistory();
  private readonly worse: { label: string; change: WatchChange }[] = [];
  private worseTimer?: ReturnType<typeof setTimeout>;
  private readonly subscription: { dispose(): void };

  constructor(private readonly deps: WatcherDeps) {
    this.subscription = deps.model.onDidChange(() => this.observe());
  }

  watchHost(host: HostEntry): void {
    this.start({
      key: `host:${host.id}`,
      label: host.label,
      hostIds: [host.id],
      run: async (signal) => {
        if (!this.deps.model.status(host.id).working) await this.deps.diagnoseHost(host, signal);
      },
    });
  }

  watchFleet(fleet: FleetConfig, memberIds: string[]): void {
    const target: Target = {
      key: `fleet:${fleet.name}`,
      label: fleet.name,
      hostIds: memberIds,
      run: async () => {
        target.hostIds = [...(await this.deps.diagnoseFleet(fleet))];
        for (const id of target.hostIds) this.mark(id);
      },
    };
    this.start(target);
  }

  /** Stops watching the host (and any fleet it belongs to) or the fleet. */
  stop(key: string): void {
    const target = this.targets.get(key) ?? [...this.targets.values()].find((t) => t.hostIds.includes(key.replace(/^host:/, '')));
    if (!target) return;
    clearTimeout(target.timer);
    target.abort?.abort();
    this.targets.delete(target.key);
    for (const id of target.hostIds) {
      if (this.watching(id)) continue;
      this.history.forget(id);
      this.deps.model.setWatch(id, undefined);
    }
    this.deps.log.info(`watch: stopped ${target.label}`);
  }

  isWatched(key: string): boolean {
    return this.targets.has(key);
  }

  dispose(): void {
    for (const key of [...this.targets.keys()]) this.stop(key);
    clearTimeout(this.worseTimer);
    this.subscription.dispose();
  }

  private start(target: Target): void {
    if (this.targets.has(target.key)) return;
    this.targets.set(target.key, target);
    for (const id of target.hostIds) this.mark(id);
    this.deps.log.info(`watch: ${target.label} every ${watchIntervalMinutes()} min`);
    // A host never diagnosed is diagnosed now: the first round is the baseline.
    const fresh = target.hostIds.length === 0 || target.hostIds.some((id) => this.deps.model.status(id).last === undefined);
    if (fresh) void this.round(target);
    else this.schedule(target);
  }

  private schedule(target: Target): void {
    if (!this.targets.has(target.key)) return;
    target.timer = setTimeout(() => void this.round(target), watchIntervalMinutes() * 60_000);
  }

  private async round(target: Target): Promise<void> {
    target.abort = new AbortController();
    try {
      await target.run(target.abort.signal);
    } catch (e) {
      this.deps.log.info(`watch: ${target.label}: ${(e as Error).message}`);
    } finally {
      this.schedule(target);
    }
  }

  private watching(hostId: string): boolean {
    return [...this.targets.values()].some((t) => t.hostIds.includes(hostId));
  }

  private mark(hostId: string): void {
    const status = this.deps.model.status(hostId);
    if (status.last) this.history.record(hostId, status.last);
    if (!status.watch) this.deps.model.setWatch(hostId, { everyMinutes: watchIntervalMinutes() });
  }

  /** Each watched host's latest outcome into its history; a change onto its row, a worse one into the next notification. */
  private observe(): void {
    for (const target of this.targets.values()) {
      for (const id of target.hostIds) {
        const status = this.deps.model.status(id);
        if (!status.last) continue;
        const change = this.history.record(id, status.last);
        if (!change) continue;
        this.deps.model.setWatch(id, { everyMinutes: watchIntervalMinutes(), change });
        if (change.worse) this.tellWorse(this.deps.model.get(id)?.label ?? id, change);
      }
    }
  }

  /** Changes for the worse that arrive together (a fleet's round) make one notification. */
  private tellWorse(label: string, change: WatchChange): void {
    this.worse.push({ label, change });
    clearTimeout(this.worseTimer);
    this.worseTimer = setTimeout(() => {
      const all = this.worse.splice(0);
      const line = (w: (typeof all)[number]) =>
        vscode.l10n.t('{0} got worse since {1}: {2}', w.label, timeOfDay(w.change.since), w.change.headline);
      const message =
        all.length === 1
          ? line(all[0])
          : vscode.l10n.t('{0} hosts got worse: {1}', all.length, `${all.slice(0, 3).map(line).join('; ')}${all.length > 3 ? ' …' : ''}`);
      void notifyWarning(message);
    }, 500);
  }
}
