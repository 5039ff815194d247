// The plan of export-timer (docs/monitoring.md) and its verification: from what the host has (gdr-doctor,
// Node, node_exporter's textfile directory, systemd's unit directory, the units as they are) to the two
// unit files as a diff, or why not. Pure but for verifyTimer, which reads the files back.
import { Parsed } from '../parsers/result';
import { errorText } from '../errorText';
import { unifiedDiff } from './diff';
import { FileState } from './persistState';
import { isRefusal, privilegeFor, privilegeText } from './planChecks';
import { privilegedCommand } from './scripts';
import {
  ExportCommand,
  EXPORT_INTERVAL,
  exportService,
  exportTimer,
  exportTimerScript,
  TIMER_SERVICE,
  TIMER_UNIT,
  TIMER_WANTS,
  TimerState,
} from './timerScripts';
import { FixPlan } from './types';
import type { ProbeReport } from '../probe/runProbe';
import { Verification } from './verify';
import { t } from '../l10n';

type Base = Omit<FixPlan, 'status' | 'summary'>;

/** What plan.ts's PlanInput gives this fix. */
export interface TimerPlanInput {
  readonly host: string;
  readonly user: string;
  readonly report: ProbeReport;
  readonly timerState?: Parsed<TimerState>;
  readonly sudoMarker: string;
}

/** The first export runs a full probe: more than a load or a file write. */
const TIMEOUT_MS = 240_000;

export function planTimer(input: TimerPlanInput, base: Base): FixPlan {
  const refuse = (summary: string): FixPlan => ({ ...base, status: 'refused', summary });
  const state = input.timerState;
  if (!state?.ok) return refuse(t('{0}: nothing is planned.', state ? state.error.message : t('the timer state was not read')));
  const s = state.value;
  const missing = whatIsMissing(s, input.host);
  if (missing !== null) return refuse(missing);
  const command: ExportCommand = { node: s.node as string, cli: s.cli as string, textfileDir: s.textfileDirs[0] };
  const service = exportService(command);
  const timer = exportTimer();
  const before = { service: regular(s.files[TIMER_SERVICE]), timer: regular(s.files[TIMER_UNIT]) };
  const odd = [TIMER_SERVICE, TIMER_UNIT].find((f) => s.files[f] !== undefined && !['regular', 'absent'].includes(s.files[f].kind));
  if (odd) return refuse(t('{0} exists but is not a regular file: gdr-doctor does not replace it.', odd));
  const timerPlan = { command, service, timer };
  if (before.service === service && before.timer === timer && s.files[TIMER_WANTS]?.kind === 'symlink')
    return {
      ...base,
      timer: timerPlan,
      status: 'nothing-to-do',
      summary: t('{0} is installed and enabled as planned: nothing to do.', TIMER_UNIT),
    };
  const privilege = privilegeFor(input.report, input.user, input.host);
  if (isRefusal(privilege)) return { ...base, status: 'refused', summary: privilege.refused, findings: privilege.findings ?? [] };
  const diff = [unifiedDiff(TIMER_SERVICE, before.service, service), unifiedDiff(TIMER_UNIT, before.timer, timer)].join('');
  return {
    ...base,
    privilege,
    timer: timerPlan,
    status: 'ready',
    steps: [
      {
        kind: 'persist',
        title: t('write {0} and {1} (temp files, then rename), enable the timer, export once', TIMER_SERVICE, TIMER_UNIT),
        command: privilegedCommand(exportTimerScript(command), privilege, input.sudoMarker),
        timeoutMs: TIMEOUT_MS,
      },
    ],
    fileChange: { path: TIMER_SERVICE, before: before.service, after: service, diff },
    notes: [
      ...(s.systemd ? [] : [t('systemd is not running on this host: the timer starts at the next boot under systemd.')]),
      ...(s.textfileDirs.length > 1
        ? [t('node_exporter textfile directories found: {0}; the first is used.', s.textfileDirs.join(', '))]
        : []),
      t('Undo: rm {0} {1} {2}; systemctl daemon-reload', TIMER_WANTS, TIMER_UNIT, TIMER_SERVICE),
    ],
    summary: t(
      'Add a systemd timer that runs "{0}" every {1}, {2}; run it once now, then read the units, the link and {3}/gdr_doctor.prom back.',
      `gdr-doctor diagnose --local --textfile-dir ${command.textfileDir}`,
      EXPORT_INTERVAL,
      privilegeText(privilege, input.user),
      command.textfileDir,
    ),
  };
}

/** Why the timer cannot be set up here, or null. */
function whatIsMissing(s: TimerState, host: string): string | null {
  if (s.cli === null || s.node === null)
    return t(
      'gdr-doctor is not installed on {0} (command -v {1} found nothing): the timer runs it there. Install it (npm install -g with Node 20 or later), or export from another machine over SSH: gdr-doctor diagnose <hosts> --textfile-dir DIR (docs/monitoring.md).',
      host,
      s.cli === null ? 'gdr-doctor' : 'node',
    );
  if (s.textfileDirs.length === 0)
    return t(
      'No textfile directory of node_exporter exists on {0} ({1}): install node_exporter with its textfile collector first, or name its --collector.textfile.directory with --textfile-dir DIR (docs/monitoring.md).',
      host,
      s.asked.join(', '),
    );
  return null;
}

function regular(f: FileState | undefined): string | null {
  return f?.kind === 'regular' ? f.content : null;
}

/** After the fix: the units as planned, the timer enabled, and the first export's file in place. */
export async function verifyTimer(plan: FixPlan, reread: (() => Promise<Parsed<TimerState['files']>>) | undefined): Promise<Verification> {
  const timer = plan.timer;
  if (!timer || !reread) return { ok: false, message: t('The plan names no timer to check.'), lines: [] };
  const state = await reread().catch((e: unknown) => ({ ok: false as const, error: { line: 0, message: errorText(e) } }));
  if (!state.ok)
    return { ok: false, message: t('{0} was written but could not be read back: {1}', TIMER_UNIT, state.error.message), lines: [] };
  const files = state.value;
  const prom = `${timer.command.textfileDir}/gdr_doctor.prom`;
  const lines = [TIMER_SERVICE, TIMER_UNIT, TIMER_WANTS, prom].map((f) => `${f}: ${files[f]?.kind ?? 'not read'}`);
  if (regular(files[TIMER_SERVICE]) !== timer.service || regular(files[TIMER_UNIT]) !== timer.timer)
    return { ok: false, message: t('Reading {0} and {1} back does not find the planned units.', TIMER_SERVICE, TIMER_UNIT), lines };
  if (files[TIMER_WANTS]?.kind !== 'symlink')
    return {
      ok: false,
      message: t('{0} is written but not enabled: {1} is {2}.', TIMER_UNIT, TIMER_WANTS, files[TIMER_WANTS]?.kind ?? 'missing'),
      lines,
    };
  if (!regular(files[prom])?.startsWith('# HELP gdr_doctor_up '))
    return { ok: false, message: t('The units are in place, but the first export wrote no metrics to {0}.', prom), lines };
  return {
    ok: true,
    message: t(
      '{0} is enabled: every {1} the host writes its GPUDirect RDMA health to {2}, which node_exporter serves.',
      TIMER_UNIT,
      EXPORT_INTERVAL,
      prom,
    ),
    lines,
  };
}
