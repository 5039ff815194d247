// Reads what `gdr-doctor diagnose --json` wrote, for `gdr-doctor diff`: one host's report, or a fleet's
// document (`summary`, `groups`, `hosts` with each host's `report`). The file may be old, edited or
// from elsewhere: every field is checked for its type and what does not fit is left out, never
// trusted. Findings and GPU verdicts are taken as the report states them (what was said then);
// links, versions and modules are read again from the commands' outputs with this build's parsers
// (the `facts` of a JSON report lose their maps).
import type { Severity } from '../diagnosis/finding';
import { parseProbe } from '../probe/facts';
import type { CommandResult, SectionState } from '../probe/frames';
import type { ProbeReport } from '../probe/runProbe';
import { t } from '../l10n';
import { FindingInput, HostSnapshot, hostSnapshot, SnapshotVerdicts, unreachedSnapshot } from './snapshot';

export class ReportDocumentError extends Error {}

type Json = Record<string, unknown>;

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
const STATES: readonly SectionState[] = ['complete', 'cut-off', 'not-run'];

/** The hosts of a parsed `diagnose --json` document; throws ReportDocumentError when it is none. */
export function snapshotsOfDocument(doc: unknown): HostSnapshot[] {
  if (!isObject(doc)) throw new ReportDocumentError(t('not a gdr-doctor report: the JSON is not an object'));
  if (Array.isArray(doc.hosts)) return doc.hosts.filter(isObject).flatMap(fleetHost);
  if (typeof doc.host === 'string' && Array.isArray(doc.commands)) return [reportSnapshot(doc, doc.host)];
  throw new ReportDocumentError(t('not a gdr-doctor report: neither one host\'s "host" and "commands" nor a fleet\'s "hosts"'));
}

function fleetHost(entry: Json): HostSnapshot[] {
  if (typeof entry.host !== 'string') return [];
  if (isObject(entry.report) && Array.isArray(entry.report.commands)) return [reportSnapshot(entry.report, entry.host)];
  const error =
    isObject(entry.error) && typeof entry.error.message === 'string' ? entry.error.message : String(entry.status ?? 'not diagnosed');
  return [unreachedSnapshot(entry.host, error, null)];
}

function reportSnapshot(doc: Json, host: string): HostSnapshot {
  const commands = (doc.commands as unknown[]).filter(isObject).flatMap(commandResult);
  const report: ProbeReport = {
    host,
    collectedAt: typeof doc.collectedAt === 'string' ? doc.collectedAt : '',
    durationMs: typeof doc.durationMs === 'number' ? doc.durationMs : 0,
    commands,
    facts: parseProbe(commands),
    connectionLost: doc.connectionLost === true,
    timedOut: doc.timedOut === true,
    finished: doc.finished === true,
    notes: [],
  };
  const snapshot = hostSnapshot(report, verdicts(doc));
  return { ...snapshot, collectedAt: report.collectedAt === '' ? null : report.collectedAt };
}

function commandResult(c: Json): CommandResult[] {
  if (typeof c.id !== 'string' || typeof c.stdout !== 'string') return [];
  const state = STATES.find((s) => s === c.state) ?? 'complete';
  return [
    {
      id: c.id,
      command: typeof c.command === 'string' ? c.command : c.id,
      exitCode: typeof c.exitCode === 'number' ? c.exitCode : null,
      durationMs: typeof c.durationMs === 'number' ? c.durationMs : null,
      timedOut: c.timedOut === true,
      truncated: c.truncated === true,
      stdout: c.stdout,
      stderr: typeof c.stderr === 'string' ? c.stderr : '',
      missing: c.missing === true,
      complete: c.complete !== false,
      state,
    },
  ];
}

function verdicts(doc: Json): SnapshotVerdicts {
  const findings = Array.isArray(doc.findings) ? doc.findings.filter(isObject).flatMap(finding) : [];
  const pairs = Array.isArray(doc.pairs) ? doc.pairs.filter(isObject).flatMap(pair) : [];
  return { findings, pairs };
}

function finding(f: Json): FindingInput[] {
  const severity = SEVERITIES.find((s) => s === f.severity);
  if (typeof f.id !== 'string' || severity === undefined) return [];
  const children = Array.isArray(f.children) ? f.children.filter(isObject).flatMap(finding) : [];
  return [{ id: f.id, severity, title: typeof f.title === 'string' ? f.title : f.id, children }];
}

function pair(p: Json): SnapshotVerdicts['pairs'][number][] {
  if (typeof p.gpu !== 'string') return [];
  const nics = Array.isArray(p.nics)
    ? p.nics
        .filter(isObject)
        .flatMap((n) =>
          typeof n.nic === 'string'
            ? [{ nic: n.nic, device: typeof n.device === 'string' ? n.device : null, port: typeof n.port === 'number' ? n.port : null }]
            : [],
        )
    : [];
  return [
    {
      gpu: p.gpu,
      // Anything but a plain true or false is unknown: never read as yes.
      gdr: typeof p.gdr === 'boolean' ? p.gdr : null,
      nics,
      link: typeof p.link === 'string' ? p.link : null,
      ncclPath: typeof p.ncclPath === 'string' ? p.ncclPath : null,
    },
  ];
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
