// What `gdr-doctor diagnose` prints for many hosts: the grouped summary (outliers first), each host's
// report on request, or one JSON document; a one-line progress count while it runs, only on a
// terminal; and the exit status the fleet earns.
import { fleetHostJson, fleetJsonHead, formatFleetSummary } from '../core/fleet/fleetReport';
import { groupFleet } from '../core/fleet/grouping';
import { withFleetFindings } from '../core/fleet/topologyDiff';
import type { FleetHostResult } from '../core/fleet/types';
import { formatProbeReport } from './diagnoseReport';
import { CliIo, ExitCode } from './io';
import { unreachableLine } from './unreachable';
import { jsonText } from './visible';
import { emitHealth, HealthOutput, hostLabelsFor } from './healthOutput';
import { HostSnapshot, hostSnapshot, unreachedSnapshot } from '../core/watch/snapshot';
import { t } from '../core/l10n';

/** A host that could not be diagnosed to the end: unreachable, or stopped by a deadline. */
export const FLEET_INCOMPLETE = 3;
/** 128 + SIGINT, as a shell reports a command the user interrupted. */
export const FLEET_INTERRUPTED = 130;

export interface FleetPrintOptions {
  readonly json: boolean;
  /** Every host's full report after the summary. */
  readonly each: boolean;
  /** --format prometheus and --textfile-dir: one series set per host; absent: the text summary. */
  readonly health?: HealthOutput;
  /** Printed before the summary (text), or set beside `hosts` (JSON): what a cluster's API said. */
  readonly preface?: { readonly text: string; readonly json: Readonly<Record<string, unknown>> };
}

/** Prints the fleet and returns the exit status. A host whose outputs were kept on disk (relay/spill.ts) is read back for its report. */
export async function printFleet(raw: readonly FleetHostResult[], io: CliIo, options: FleetPrintOptions): Promise<number> {
  const results = withFleetFindings([...raw]);
  const groups = groupFleet(results);
  const health = options.health ?? { format: options.json ? 'json' : 'text' };
  // Only metrics and NPD read snapshots: a plain text or JSON report reads no spilled host back for them.
  const wanted = health.format === 'prometheus' || health.format === 'npd' || health.textfileDir !== undefined;
  const decided = wanted ? emitHealth(await fleetSnapshots(results), hostLabelsFor(false), health, io) : undefined;
  if (decided !== undefined) return decided;
  if (health.format === 'json') {
    await writeFleetJson(results, groups, io, options.preface?.json);
  } else if (health.format === 'text') {
    if (options.preface) io.stdout(ensureNewline(options.preface.text));
    io.stdout(ensureNewline(formatFleetSummary(results, groups, { each: options.each })));
    if (options.each)
      for (const r of results) {
        const report = await wholeReport(r);
        if (report) io.stdout(`\n${formatProbeReport(report, r.diagnosis)}\n`);
      }
  }
  return fleetExitCode(results);
}

/** The host's whole report: read back when its outputs were kept on disk. */
async function wholeReport(r: FleetHostResult): Promise<FleetHostResult['report']> {
  return r.fullReport ? r.fullReport() : r.report;
}

/**
 * The text of jsonText(fleetJson(results, groups)), written a host at a time: the whole of it, for
 * thousands of hosts, would pass V8's longest string (each host's report is kept whole).
 */
async function writeFleetJson(
  results: readonly FleetHostResult[],
  groups: ReturnType<typeof groupFleet>,
  io: CliIo,
  extra: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  const head = jsonText({ ...fleetJsonHead(groups), ...extra, hosts: [] });
  // `"hosts": []` closes the object: open the array there instead and put each host inside it.
  const open = head.lastIndexOf('"hosts": []');
  if (results.length === 0) {
    io.stdout(head);
    return;
  }
  io.stdout(`${head.slice(0, open)}"hosts": [\n`);
  for (const [i, r] of results.entries()) {
    const text = jsonText(fleetHostJson({ ...r, report: await wholeReport(r) }))
      .trimEnd()
      .replace(/^/gm, '    ');
    io.stdout(`${text}${i < results.length - 1 ? ',' : ''}\n`);
  }
  io.stdout('  ]\n}\n');
}

/** The fleet's hosts as the metrics see them, named as the user named them; a spilled host's report read back one at a time. */
async function fleetSnapshots(results: readonly FleetHostResult[]): Promise<HostSnapshot[]> {
  const snapshots: HostSnapshot[] = [];
  for (const r of results) {
    const report = await wholeReport(r);
    snapshots.push(
      report && r.diagnosis
        ? { ...hostSnapshot(report, r.diagnosis), host: r.host }
        : unreachedSnapshot(r.host, r.error?.message ?? r.status, new Date(Date.now() - r.durationMs).toISOString()),
    );
  }
  return snapshots;
}

export function fleetExitCode(results: readonly FleetHostResult[]): number {
  if (results.some((r) => r.status === 'cancelled')) return FLEET_INTERRUPTED;
  return results.some((r) => r.status === 'unreachable' || r.status === 'timed-out') ? FLEET_INCOMPLETE : ExitCode.ok;
}

/** One stderr line for a host that was not diagnosed to the end (the summary has them too; scripts read stderr). */
export function hostProblemLine(r: FleetHostResult): string | undefined {
  if (r.status === 'unreachable') return unreachableLine(r.host, r.error?.step ?? '?', r.error?.message ?? '');
  // Without an error the probe's own deadline (not the fleet's) cut it: what arrived is in the report.
  if (r.status !== 'timed-out') return undefined;
  const why = r.error?.message ?? t('{0}: the probe hit its deadline; the sections that arrived are reported', r.host);
  return `gdr-doctor: ${r.host}: ${t('timed out: {0}', why)}\n`;
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * `12/64 hosts done` on one line of a terminal, redrawn as hosts end; other stderr text goes above
 * it. Without a terminal it draws nothing and passes the text through.
 */
export class FleetProgress {
  private done = 0;
  private shown = false;

  /** `io.stderrControl` draws the line; `io.stderr` writes what goes above it. */
  constructor(
    private readonly total: number,
    private readonly io: Pick<CliIo, 'stderr' | 'stderrControl'>,
    private readonly onTerminal: boolean,
  ) {}

  hostDone(): void {
    this.setDone(this.done + 1);
  }

  /** Through a login node the count comes whole (nodes whose stream ended). */
  setDone(done: number): void {
    this.done = Math.min(done, this.total);
    this.draw();
  }

  /** Writes `text` to stderr above the progress line. */
  say(text: string): void {
    this.clear();
    this.io.stderr(text);
    this.draw();
  }

  /** Removes the line for good (before the summary). */
  end(): void {
    this.clear();
  }

  private draw(): void {
    if (!this.onTerminal) return;
    this.control(`\r${t('{0}/{1} hosts done', this.done, this.total)}`);
    this.shown = true;
  }

  private clear(): void {
    if (!this.shown) return;
    this.control('\r\x1b[K');
    this.shown = false;
  }

  private control(sequence: string): void {
    (this.io.stderrControl ?? this.io.stderr)(sequence);
  }
}
