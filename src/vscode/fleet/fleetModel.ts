// What the Hosts view shows of each fleet: the configured fleets (settings), whether one is being
// diagnosed (and how far), and its last results, grouped as the CLI groups them. No VS Code import:
// the tree reads it and redraws on change; the fleet commands write to it.
import type { Diagnosis } from '../../core/diagnosis';
import { groupFleet, FleetGroup } from '../../core/fleet/grouping';
import { statusOfProbe } from '../../core/fleet/status';
import type { ProbeReport } from '../../core/probe/runProbe';
import { withFleetFindings } from '../../core/fleet/topologyDiff';
import type { FleetHostResult } from '../../core/fleet/types';
import { ChangeListeners, safeList } from '../modelSupport';
import { FleetConfig } from './fleetSettings';

export interface FleetRun {
  readonly done: number;
  readonly total: number;
}

export interface FleetState {
  /** Set while a diagnose runs. */
  readonly running?: FleetRun;
  /** Per host, as probed (without fleet findings: those are recomputed whenever a host changes). */
  readonly probed?: readonly FleetHostResult[];
  /** `probed` compared across the fleet (the fleet.*-differs findings added). */
  readonly results?: readonly FleetHostResult[];
  readonly groups?: readonly FleetGroup[];
  readonly finishedAt?: Date;
}

export class FleetModel {
  private readonly states = new Map<string, FleetState>();
  private readonly listeners = new ChangeListeners();

  constructor(private readonly configured: () => readonly FleetConfig[]) {}

  fleets(): readonly FleetConfig[] {
    return safeList(this.configured);
  }

  get(name: string): FleetConfig | undefined {
    return this.fleets().find((f) => f.name === name);
  }

  state(name: string): FleetState {
    return this.states.get(name) ?? {};
  }

  setRunning(name: string, running: FleetRun | undefined): void {
    this.states.set(name, { ...this.state(name), running });
    this.changed();
  }

  /** A whole diagnose finished: these results replace the fleet's. */
  setResults(name: string, probed: readonly FleetHostResult[]): void {
    const results = withFleetFindings([...probed]);
    this.states.set(name, { probed, results, groups: groupFleet(results), finishedAt: new Date() });
    this.changed();
  }

  /** Every fleet's results recomputed from their reports (the NCCL release or environment changed). */
  rediagnose(redo: (report: ProbeReport) => Diagnosis): void {
    for (const [name, st] of this.states) {
      if (!st.probed) continue;
      this.setResults(
        name,
        st.probed.map((r) => {
          if (!r.report) return r;
          const diagnosis = redo(r.report);
          // Stopped hosts keep their status; a finished one may change between healthy and findings.
          return { ...r, diagnosis, status: r.status === 'ok' || r.status === 'findings' ? statusOfProbe(r.report, diagnosis) : r.status };
        }),
      );
    }
  }

  /** Some hosts were diagnosed again (after a quick fix): their results replace theirs only. */
  updateHosts(name: string, probed: readonly FleetHostResult[]): void {
    const byHost = new Map(probed.map((r) => [r.host, r]));
    const before = this.state(name).probed ?? [];
    this.setResults(name, [...before.map((r) => byHost.get(r.host) ?? r), ...probed.filter((r) => !before.some((b) => b.host === r.host))]);
  }

  /** The result a fleet's host had in its last diagnose (fleet findings included). */
  result(name: string, host: string): FleetHostResult | undefined {
    return this.state(name).results?.find((r) => r.host === host);
  }

  forget(name: string): void {
    this.states.delete(name);
    this.changed();
  }

  /** Settings changed: fleets that are gone lose their state. */
  invalidate(): void {
    const names = new Set(this.fleets().map((f) => f.name));
    for (const name of [...this.states.keys()]) if (!names.has(name)) this.states.delete(name);
    this.changed();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    return this.listeners.add(listener);
  }

  private changed(): void {
    this.listeners.fire();
  }
}
