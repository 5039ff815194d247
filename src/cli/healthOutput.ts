// `diagnose --format prometheus|npd` and `--textfile-dir DIR`: a host's (or a fleet's) GPUDirect RDMA
// health for the tools that watch fleets, node_exporter's textfile collector and Node Problem
// Detector, beside the text and JSON reports. One host diagnosed here (--local) carries DCGM
// exporter's `Hostname` label; any other host, and every host of a fleet, a `host` label.
import * as os from 'node:os';
import { formatExposition } from '../core/metrics/exposition';
import { healthFamilies, HostLabels } from '../core/metrics/healthMetrics';
import { npdStatus } from '../core/metrics/npd';
import type { HostSnapshot } from '../core/watch/snapshot';
import { t } from '../core/l10n';
import { UsageError } from './args';
import { CliIo } from './io';
import { TextfileError, writeTextfile } from './textfile';

export const OUTPUT_FORMATS = ['text', 'json', 'prometheus', 'npd'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What node_exporter's textfile collector reads from --textfile-dir. */
export const TEXTFILE_NAME = 'gdr_doctor.prom';

/** sysexits(3) EX_CANTCREAT: the metrics file could not be written. */
export const CANNOT_CREATE = 73;

export interface HealthOutput {
  /** What stdout gets; null: nothing (--textfile-dir alone, for a timer whose output would go to a log or a mail). */
  readonly format: OutputFormat | null;
  readonly textfileDir?: string;
}

export function readHealthOutput(
  flags: ReadonlySet<string>,
  options: ReadonlyMap<string, string>,
  formats: readonly OutputFormat[] = OUTPUT_FORMATS,
): HealthOutput {
  const named = options.get('--format');
  if (named !== undefined && !(formats as readonly string[]).includes(named))
    throw new UsageError(t('--format takes {0}, not {1}', formats.join(', '), JSON.stringify(named)));
  if (flags.has('--json') && named !== undefined && named !== 'json') throw new UsageError(t('--json and --format {0}: give one', named));
  const textfileDir = options.get('--textfile-dir');
  const format = flags.has('--json') ? 'json' : ((named as OutputFormat | undefined) ?? (textfileDir !== undefined ? null : 'text'));
  return { format, ...(textfileDir !== undefined ? { textfileDir } : {}) };
}

/** `Hostname` for this machine (what DCGM exporter on it says), `host` for every other host. */
export function hostLabelsFor(local: boolean): HostLabels {
  return local ? () => ({ Hostname: os.hostname() }) : (s) => ({ host: s.host });
}

/**
 * Writes the textfile and prints the metrics or the NPD line, as `out` asks. Returns the exit status
 * when that decides it (NPD's contract; a textfile that could not be written), else undefined: the
 * caller prints its text or JSON report and exits as usual.
 */
export function emitHealth(snapshots: readonly HostSnapshot[], labels: HostLabels, out: HealthOutput, io: CliIo): number | undefined {
  const wanted = out.format === 'prometheus' || out.textfileDir !== undefined;
  const failed = emitMetrics(wanted ? formatExposition(healthFamilies(snapshots, labels)) : '', TEXTFILE_NAME, out, io);
  if (failed !== undefined) return failed;
  if (out.format === 'npd') {
    const status = npdStatus(snapshots[0]);
    io.stdout(`${status.message}\n`);
    return status.exitCode;
  }
  return undefined;
}

/** Writes `metrics` to the textfile directory as `name` and prints them, as `out` asks; CANNOT_CREATE when it could not write. */
export function emitMetrics(metrics: string, name: string, out: HealthOutput, io: CliIo): number | undefined {
  if (out.textfileDir !== undefined) {
    try {
      writeTextfile(out.textfileDir, name, metrics);
    } catch (e) {
      if (!(e instanceof TextfileError)) throw e;
      io.stderr(`gdr-doctor: ${e.message}\n`);
      return CANNOT_CREATE;
    }
  }
  if (out.format === 'prometheus') io.stdout(metrics);
  return undefined;
}
