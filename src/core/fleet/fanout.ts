// Direct fan-out: many hosts probed at once, at most `concurrency` at a time, each under its own
// deadline and all under an overall one. A host that fails, hangs or refuses holds only its own
// slot, and every host ends with a result (never a throw), so a fleet summary always has all of them.
import type { NcclAssumptions } from '../diagnosis';
import { diagnoseProbed } from '../host/diagnoseHost';
import { probeHost, ProbedHost, SshProbeOptions } from '../transport';
import { classifyConnectError } from '../ssh/errors';
import { statusOfProbe } from './status';
import type { FleetHostResult, FleetPath } from './types';
import { t } from '../l10n';

/** pdsh's default fanout. */
export const DEFAULT_FLEET_CONCURRENCY = 32;

/**
 * After a host is stopped (deadline, cancel) its probe gets this long to hand back what arrived:
 * exec() sends TERM, waits 2 s, KILLs and gives up after 4 s; a probe that ignores the signal is
 * abandoned after it, so it cannot hold its slot.
 */
export const STOP_GRACE_MS = 5000;

export type { ProbedHost } from '../transport';

/** Connects to and probes one host; rejects (a ConnectError) when it cannot be reached. Aborting `signal` must stop it. */
export type ProbeHost = (host: string, signal: AbortSignal) => Promise<ProbedHost>;

/** The fan-out's probeHost for direct SSH: each host over a connection of its own (core/transport). */
export function sshProbeHost(options: SshProbeOptions): ProbeHost {
  return (host, signal) => probeHost({ kind: 'ssh', destination: host, reach: options }, { deadlineMs: options.probeDeadlineMs, signal });
}

export interface FanOutOptions {
  readonly hosts: readonly string[];
  readonly probeHost: ProbeHost;
  /** Hosts probed at the same time; default DEFAULT_FLEET_CONCURRENCY. */
  readonly concurrency?: number;
  /** Connect + probe of one host. */
  readonly hostDeadlineMs?: number;
  /** The whole fan-out; hosts not started by then end timed-out. */
  readonly overallDeadlineMs?: number;
  /** The user's cancel: running hosts are stopped, hosts not started end cancelled. */
  readonly signal?: AbortSignal;
  /** Told as each host ends, with its index in `hosts`. */
  readonly onResult?: (result: FleetHostResult, index: number) => void;
  /** Recorded in each result; default 'direct'. */
  readonly path?: FleetPath;
  /** Default STOP_GRACE_MS. */
  readonly stopGraceMs?: number;
  /** The NCCL release and environment the verdicts are for; default the newest modelled. */
  readonly nccl?: NcclAssumptions;
}

/** host-deadline: its own deadline; fleet-deadline: the overall one; cancelled: the user. */
type StopReason = 'host-deadline' | 'fleet-deadline' | 'cancelled';

/** Why the whole fan-out stopped (overall deadline or cancel), with listeners for running hosts. */
class FleetStop {
  reason: StopReason | undefined;
  private readonly listeners = new Set<(r: StopReason) => void>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => this.stop('cancelled');

  constructor(private readonly options: FanOutOptions) {
    if (options.overallDeadlineMs !== undefined) this.timer = setTimeout(() => this.stop('fleet-deadline'), options.overallDeadlineMs);
    if (options.signal?.aborted) this.reason = 'cancelled';
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  listen(listener: (r: StopReason) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  private stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    for (const l of [...this.listeners]) l(reason);
  }
}

/** Results in the order of `hosts`. */
export async function fanOut(options: FanOutOptions): Promise<FleetHostResult[]> {
  const { hosts } = options;
  const results: FleetHostResult[] = new Array<FleetHostResult>(hosts.length);
  const limit = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_FLEET_CONCURRENCY));
  const fleet = new FleetStop(options);
  let next = 0;
  const worker = async () => {
    while (next < hosts.length) {
      const i = next++;
      results[i] = await probeOne(hosts[i], options, fleet);
      options.onResult?.(results[i], i);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, hosts.length) }, worker));
  } finally {
    fleet.dispose();
  }
  return results;
}

type Outcome = { readonly value: ProbedHost } | { readonly error: unknown } | { readonly abandoned: true };

async function probeOne(host: string, options: FanOutOptions, fleet: FleetStop): Promise<FleetHostResult> {
  const path = options.path ?? 'direct';
  if (fleet.reason) return stopped({ host, path, durationMs: 0 }, fleet.reason, undefined, options, false);
  const started = Date.now();
  const controller = new AbortController();
  let reason: StopReason | undefined;
  const stop = (r: StopReason) => {
    if (reason) return;
    reason = r;
    controller.abort();
  };
  const timer = options.hostDeadlineMs !== undefined ? setTimeout(() => stop('host-deadline'), options.hostDeadlineMs) : undefined;
  const unlisten = fleet.listen(stop);
  try {
    const outcome = await settleAfterAbort(
      () => options.probeHost(host, controller.signal),
      controller.signal,
      options.stopGraceMs ?? STOP_GRACE_MS,
    );
    return resultOf(host, path, outcome, reason, Date.now() - started, options);
  } finally {
    clearTimeout(timer);
    unlisten();
  }
}

/** The probe's outcome; once `signal` aborts, it has `graceMs` more to settle before it is abandoned. */
function settleAfterAbort(run: () => Promise<ProbedHost>, signal: AbortSignal, graceMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      grace = setTimeout(() => resolve({ abandoned: true }), graceMs);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (o: Outcome) => {
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      resolve(o);
    };
    // A probeHost that throws synchronously is an outcome like any other.
    Promise.resolve()
      .then(run)
      .then(
        (value) => done({ value }),
        (error: unknown) => done({ error }),
      );
  });
}

function resultOf(
  host: string,
  path: FleetPath,
  outcome: Outcome,
  reason: StopReason | undefined,
  durationMs: number,
  options: FanOutOptions,
): FleetHostResult {
  const base = { host, path, durationMs };
  const value = 'value' in outcome ? outcome.value : undefined;
  // A probe that ran to its end just as the deadline struck is a finished probe.
  if (reason && !(value && value.report.finished && !value.report.timedOut)) return stopped(base, reason, value, options, true);
  if (value) {
    const { report, diagnosis, target } = diagnoseProbed(value, options.nccl);
    return { ...base, status: statusOfProbe(report, diagnosis), report, diagnosis, target };
  }
  const err = classifyConnectError(host, 'error' in outcome ? outcome.error : new Error('the probe ended without a result'));
  return { ...base, status: 'unreachable', error: { step: err.step, message: err.message } };
}

/** A host a deadline or the user stopped, with what its probe handed back (marked as cut by the deadline). */
function stopped(
  base: { host: string; path: FleetPath; durationMs: number },
  reason: StopReason,
  value: ProbedHost | undefined,
  options: FanOutOptions,
  started: boolean,
): FleetHostResult {
  const deadline = reason !== 'cancelled';
  const report = value && deadline && !value.report.finished ? { ...value.report, timedOut: true } : value?.report;
  const error = {
    step: deadline ? ('deadline' as const) : ('cancelled' as const),
    message: stopMessage(base.host, reason, options, started),
  };
  const status = deadline ? 'timed-out' : 'cancelled';
  if (!report) return { ...base, status, error };
  return { ...base, status, error, report, diagnosis: diagnoseProbed({ report }, options.nccl).diagnosis, target: value?.target };
}

function stopMessage(host: string, reason: StopReason, options: FanOutOptions, started: boolean): string {
  if (reason === 'cancelled') return started ? t('{0}: cancelled while running', host) : t('{0}: cancelled before it started', host);
  const overallS = (options.overallDeadlineMs ?? 0) / 1000;
  if (!started) return t('{0}: not started before the overall deadline ({1} s)', host, overallS);
  return reason === 'host-deadline'
    ? t('{0}: stopped by its deadline ({1} s)', host, (options.hostDeadlineMs ?? 0) / 1000)
    : t('{0}: stopped by the overall deadline ({1} s)', host, overallS);
}
