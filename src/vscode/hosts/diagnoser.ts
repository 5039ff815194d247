// Diagnoses hosts for the view: the core's diagnoseHost on the host (SSH through one pooled
// connection per host, this machine, the demo), and the outcome recorded in the model. Cancelling
// closes the host's SSH connection, which stops the remote commands, or stops this machine's probe
// script; nothing here interprets what the host printed.
import { DemoHost } from '../../core/transport';
import { diagnoseHost, DiagnosedHost } from '../../core/host/diagnoseHost';
import { openSsh, SshReachOptions, throughJump } from '../../core/ssh/openSsh';
import { SshConnection } from '../../core/ssh/connect';
import { classifyConnectError } from '../../core/ssh/errors';
import { ConnectionPool, PoolCloseReason } from '../../core/ssh/pool';
import { SshPrompts } from '../../core/ssh/prompts';
import { SshTarget } from '../../core/ssh/sshConfig';
import { GdrSettings } from '../config';
import { HostEntry, HostModel, Outcome } from './hostModel';
import { ChangeListeners, SharedRuns } from '../modelSupport';
import { t } from '../../core/l10n';

export interface DiagnoserDeps {
  readonly model: HostModel;
  readonly settings: () => GdrSettings;
  readonly prompts: SshPrompts;
  /** The demo host (recordings in media/demo of the .vsix) and the state its quick fixes changed. */
  readonly demo: DemoHost;
  readonly log: { info(m: string): void; warn(m: string): void };
}

export class Diagnoser {
  private readonly pool: ConnectionPool;
  /**
   * Pool keys of hosts reached through a jump host (`gpu03 via login`): their destination and jump,
   * kept only while the pool has that connection open or opening.
   */
  private readonly jumps = new Map<string, { destination: string; jump: string }>();
  /** Told when a connection opens or closes (Disconnect is offered only where one is open). */
  private readonly connections = new ChangeListeners();

  constructor(private readonly deps: DiagnoserDeps) {
    this.pool = new ConnectionPool({ open: (d) => this.open(d), onClose: (d, why) => this.closed(d, why) });
  }

  /** Diagnoses being run, by host id: a second Diagnose of a host joins the one running. */
  private readonly diagnosing = new SharedRuns<Outcome | undefined>();

  /**
   * Diagnoses one host; never throws. Returns undefined when cancelled (the previous result stays).
   * While that host is already being diagnosed, waits for that diagnosis instead of starting another.
   */
  run(host: HostEntry, signal: AbortSignal): Promise<Outcome | undefined> {
    return this.diagnosing.run(host.id, () => this.runOnce(host, signal), signal);
  }

  private async runOnce(host: HostEntry, signal: AbortSignal): Promise<Outcome | undefined> {
    const { model, log } = this.deps;
    model.setWorking(host.id, true);
    log.info(`${host.label}: diagnosing`);
    // Cancelled while connecting (or waiting on a prompt): drop the connection being opened.
    const progress = { connected: false };
    const onAbort = () => {
      const key = this.poolKey(host);
      if (!progress.connected && key !== undefined) this.pool.close(key);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await this.probe(host, signal, progress);
      if (signal.aborted) {
        // exec() has stopped the remote commands (TERM, then KILL); now the connection goes too.
        const key = this.poolKey(host);
        if (key !== undefined) this.pool.close(key);
        log.info(`${host.label}: cancelled`);
        model.setWorking(host.id, false);
        return undefined;
      }
      model.setOutcome(host.id, outcome);
      const result =
        outcome.kind === 'diagnosed'
          ? `${outcome.diagnosis.findings.length} finding(s) in ${outcome.report.durationMs} ms`
          : `failed (${outcome.step}): ${outcome.message}`;
      log.info(`${host.label}: ${result}`);
      return outcome;
    } catch (e) {
      model.setWorking(host.id, false);
      throw e;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  disconnect(host: HostEntry): boolean {
    const key = this.poolKey(host);
    if (key === undefined || !this.pool.hosts().includes(key)) return false;
    this.pool.close(key);
    return true;
  }

  /** Runs `work` on the SSH host's pooled connection (opened if needed), e.g. a quick fix. */
  withConnection<T>(host: HostEntry, work: (conn: SshConnection) => Promise<T>): Promise<T> {
    const key = this.poolKey(host);
    if (key === undefined) return Promise.reject(new Error(t('{0} is not an SSH host', host.label)));
    if (host.destination !== undefined && host.jump !== undefined) this.rememberJump(key, host.destination, host.jump);
    return this.pool.use(key, work);
  }

  onDidChangeConnections(listener: () => void): { dispose(): void } {
    return this.connections.add(listener);
  }

  connected(host: HostEntry): boolean {
    const key = this.poolKey(host);
    return key !== undefined && this.pool.hosts().includes(key);
  }

  dispose(): void {
    this.pool.closeAll();
  }

  private async probe(host: HostEntry, signal: AbortSignal, progress: { connected: boolean }): Promise<Outcome> {
    const { probeDeadlineMs: deadlineMs, nccl } = this.deps.settings();
    const options = { deadlineMs, nccl, signal };
    const diagnosed = (d: DiagnosedHost): Outcome => ({ kind: 'diagnosed', ...d, finishedAt: new Date() });
    try {
      if (host.destination === undefined) {
        // This machine: the signal stops the script's process group; the demo only needs to give up.
        const source =
          host.kind === 'demo' ? { kind: 'demo' as const, demo: this.deps.demo } : { kind: 'local' as const, name: host.label };
        return diagnosed(await diagnoseHost(source, options));
      }
      const destination = host.destination;
      return await this.withConnection(host, async (conn) => {
        progress.connected = true;
        return diagnosed(await diagnoseHost({ kind: 'connection', destination, conn }, options));
      });
    } catch (e) {
      const err = classifyConnectError(host.label, e);
      return { kind: 'failed', step: err.step, message: err.message, finishedAt: new Date() };
    }
  }

  /** The host's connection in the pool: its destination, or `<destination> via <jump>` (no spaces in either). */
  private poolKey(host: HostEntry): string | undefined {
    if (host.destination === undefined || host.jump === undefined) return host.destination;
    return `${host.destination} via ${host.jump}`;
  }

  /** Records how to open `key`, forgetting the routes of connections the pool no longer has (closed, or failed to open). */
  private rememberJump(key: string, destination: string, jump: string): void {
    const pooled = new Set(this.pool.hosts());
    for (const old of this.jumps.keys()) if (!pooled.has(old)) this.jumps.delete(old);
    this.jumps.set(key, { destination, jump });
  }

  private async open(key: string): Promise<SshConnection> {
    const reach = sshReach(this.deps.settings(), this.deps.prompts, this.deps.log);
    const jumped = this.jumps.get(key);
    const conn = await (jumped ? openSsh(jumped.destination, throughJump(reach, jumped.destination, jumped.jump)) : openSsh(key, reach));
    this.connections.fire();
    return conn;
  }

  private closed(key: string, why: PoolCloseReason): void {
    this.jumps.delete(key);
    this.deps.log.info(`${key}: connection closed (${why})`);
    this.connections.fire();
  }
}

/** How VS Code reaches a host over SSH: the user's settings, prompts; ssh_config and ssh's warnings to the log. */
export function sshReach(settings: GdrSettings, prompts: SshPrompts, log?: { warn(message: string): void }): SshReachOptions {
  return {
    prompts: { ...prompts, warn: (host, lines) => lines.forEach((l) => log?.warn(`${host}: ${l}`)) },
    configFile: settings.sshConfigFile,
    adjustTarget: (t) => {
      for (const w of t.warnings) log?.warn(`${t.host}: ${w}`);
      return withStrictDefault(t, settings.strictHostKeyChecking);
    },
    defaultConnectTimeoutMs: settings.connectTimeoutMs,
  };
}

/** ssh's default is `ask`; the setting replaces that default, never a value the user's config set stricter. */
export function withStrictDefault(target: SshTarget, strict: GdrSettings['strictHostKeyChecking']): SshTarget {
  return target.strictHostKeyChecking === 'ask' && strict !== 'ask' ? { ...target, strictHostKeyChecking: strict } : target;
}
