// What the Hosts view shows: the host list (ssh_config hosts, hosts added by hand, this machine,
// the demo) and each host's last diagnosis or why it failed. No VS Code import: the tree reads
// it and redraws on change; commands write to it. Nothing here connects anywhere.
import { Diagnosis } from '../../core/diagnosis';
import type { NcclLogSummary } from '../../core/ncclLog/types';
import type { ProofReport } from '../../core/prove';
import { DEMO_HOST_NAME } from '../../core/transport';
import { ProbeReport } from '../../core/probe/runProbe';
import { SshTarget } from '../../core/ssh/sshConfig';
import { ChangeListeners, safeList } from '../modelSupport';
import { t } from '../../core/l10n';

export type HostKind = 'ssh' | 'local' | 'demo';
export type HostOrigin = 'ssh-config' | 'added' | 'local' | 'demo' | 'fleet';

export interface HostEntry {
  /** Stable id: `ssh:<destination>`, `local`, `demo`. */
  readonly id: string;
  readonly label: string;
  readonly kind: HostKind;
  readonly origin: HostOrigin;
  /** For SSH hosts: the destination as written (alias, user@host, ssh://…). */
  readonly destination?: string;
  /** A fleet's node behind a login node: SSH to it goes through that node (`ssh -J`), for quick fixes. */
  readonly jump?: string;
}

export interface DiagnosedOutcome {
  readonly kind: 'diagnosed';
  readonly report: ProbeReport;
  readonly diagnosis: Diagnosis;
  readonly target?: SshTarget;
  readonly finishedAt: Date;
}

export interface FailedOutcome {
  readonly kind: 'failed';
  /** ConnectError's step (`host-key`, `auth`, …) or `probe`. */
  readonly step: string;
  readonly message: string;
  readonly finishedAt: Date;
}

export type Outcome = DiagnosedOutcome | FailedOutcome;

export interface HostStatus {
  readonly working: boolean;
  readonly last?: Outcome;
  /** The last diagnosis that succeeded, kept while a later attempt failed (raw outputs stay readable). */
  readonly lastDiagnosed?: DiagnosedOutcome;
  /** An NCCL log compared with this host (Compare NCCL Log with Host, or a log naming it): kept across diagnoses. */
  readonly ncclLog?: NcclLogLink;
  /** The last GPUDirect RDMA proof of this host (Prove GPUDirect RDMA), kept across diagnoses. */
  readonly proof?: ProofReport;
  /** Watched (Watch): how often it is diagnosed again, and what changed at the last change. */
  readonly watch?: WatchState;
}

export interface WatchState {
  readonly everyMinutes: number;
  /** The latest diagnosis that differed from the one before it; kept until another differs. */
  readonly change?: WatchChange;
}

export interface WatchChange {
  /** When the diagnosis before the change was made ("since 14:05"). */
  readonly since: Date;
  /** The change that matters most, in a few words ("nvidia_peermem unloaded"). */
  readonly headline: string;
  readonly worse: boolean;
  /** Every change, a line each (gdr-doctor diff's words). */
  readonly lines: readonly string[];
}

/** An NCCL log linked to a host: its summary and which of its hosts ran there; the comparison is made from these. */
export interface NcclLogLink {
  /** The log's name as evidence quotes it (a workspace-relative path). */
  readonly file: string;
  /** The log document (`uri.toString()`), so the editor can show the comparison beside it. */
  readonly uri: string;
  readonly logHost: string;
  readonly summary: NcclLogSummary;
}

export interface HostSources {
  /** Concrete Host aliases from the user's ssh_config (read when the list is asked for). */
  readonly configHosts: () => readonly string[];
  /** Destinations added by hand. */
  readonly addedHosts: () => readonly string[];
  /** Hosts of fleets diagnosed over direct SSH: found by get() (commands act on them), shown under their fleet only. */
  readonly fleetHosts?: () => readonly string[];
}

// The label is read when shown, so it follows the display language (the bundle is loaded on activation).
export const LOCAL_HOST: HostEntry = {
  id: 'local',
  get label() {
    return t('This machine');
  },
  kind: 'local',
  origin: 'local',
};
export const DEMO_HOST: HostEntry = { id: 'demo', label: DEMO_HOST_NAME, kind: 'demo', origin: 'demo' };

export function sshHostId(destination: string): string {
  return `ssh:${destination}`;
}

export class HostModel {
  private readonly statuses = new Map<string, HostStatus>();
  private readonly listeners = new ChangeListeners();
  private cached?: HostEntry[];
  private demoOpen = false;
  private localAsked = false;

  constructor(private readonly sources: HostSources) {}

  /**
   * Remote hosts first (ssh_config order, then added), then this machine and the demo. With no
   * remote host, this machine and the demo appear only once asked for: the view's welcome offers them.
   */
  hosts(): HostEntry[] {
    if (!this.cached) this.cached = this.buildList();
    return this.cached;
  }

  get(id: string): HostEntry | undefined {
    return this.hosts().find((h) => h.id === id) ?? this.fleetHost(id);
  }

  status(id: string): HostStatus {
    return this.statuses.get(id) ?? { working: false };
  }

  /** The demo host is listed (Open Demo Host, until it is removed). */
  get demoListed(): boolean {
    return this.demoOpen;
  }

  openDemo(): HostEntry {
    this.demoOpen = true;
    this.changed(true);
    return DEMO_HOST;
  }

  showLocal(): HostEntry {
    this.localAsked = true;
    this.changed(true);
    return LOCAL_HOST;
  }

  /** The demo closes; other hosts forget their results (the list itself comes from settings/config). */
  forget(id: string): void {
    if (id === DEMO_HOST.id) this.demoOpen = false;
    if (id === LOCAL_HOST.id) this.localAsked = false;
    this.statuses.delete(id);
    this.changed(true);
  }

  setWorking(id: string, working: boolean): void {
    this.statuses.set(id, { ...this.status(id), working });
    this.changed(false);
  }

  setOutcome(id: string, outcome: Outcome): void {
    const lastDiagnosed = outcome.kind === 'diagnosed' ? outcome : this.status(id).lastDiagnosed;
    this.statuses.set(id, { ...this.status(id), working: false, last: outcome, lastDiagnosed });
    this.changed(false);
  }

  /** Links an NCCL log to the host (undefined: unlinks it). */
  setNcclLog(id: string, link: NcclLogLink | undefined): void {
    this.statuses.set(id, { ...this.status(id), ncclLog: link });
    this.changed(false);
  }

  /** Marks the host watched (undefined: not any more). */
  setWatch(id: string, watch: WatchState | undefined): void {
    this.statuses.set(id, { ...this.status(id), watch });
    this.changed(false);
  }

  setProof(id: string, proof: ProofReport): void {
    this.statuses.set(id, { ...this.status(id), proof });
    this.changed(false);
  }

  /** Every kept diagnosis recomputed from its report (the NCCL release or environment changed): no host is contacted. */
  rediagnose(redo: (report: ProbeReport) => Diagnosis): void {
    const again = (o: Outcome | undefined) => (o?.kind === 'diagnosed' ? { ...o, diagnosis: redo(o.report) } : o);
    for (const [id, st] of this.statuses) {
      const lastDiagnosed = again(st.lastDiagnosed) as DiagnosedOutcome | undefined;
      this.statuses.set(id, { ...st, last: st.last === st.lastDiagnosed ? lastDiagnosed : again(st.last), lastDiagnosed });
    }
    this.changed(false);
  }

  /** Re-read ssh_config and settings on the next hosts() call. */
  invalidate(): void {
    this.changed(true);
  }

  onDidChange(listener: () => void): { dispose(): void } {
    return this.listeners.add(listener);
  }

  private changed(listChanged: boolean): void {
    if (listChanged) this.cached = undefined;
    this.listeners.fire();
  }

  private fleetHost(id: string): HostEntry | undefined {
    const destination = safeList(this.sources.fleetHosts ?? (() => [])).find((d) => sshHostId(d) === id);
    return destination === undefined ? undefined : { id, label: destination, kind: 'ssh', origin: 'fleet', destination };
  }

  private buildList(): HostEntry[] {
    const remote: HostEntry[] = [];
    const seen = new Set<string>();
    const add = (destination: string, origin: HostOrigin) => {
      if (seen.has(destination)) return;
      seen.add(destination);
      remote.push({ id: sshHostId(destination), label: destination, kind: 'ssh', origin, destination });
    };
    for (const h of safeList(this.sources.configHosts)) add(h, 'ssh-config');
    for (const h of safeList(this.sources.addedHosts)) add(h, 'added');
    const local = remote.length > 0 || this.localAsked ? [LOCAL_HOST] : [];
    return [...remote, ...local, ...(this.demoOpen ? [DEMO_HOST] : [])];
  }
}
