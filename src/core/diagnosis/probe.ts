// `probe.command-failed`: a diagnostic that could not run or could not be read, so a missing tool is
// visible instead of silently skipped. Failures that are themselves findings (no nvidia-smi, no
// ofed_info, no ibv_devinfo on a host without NICs) are left to those rules; so are answers the
// probe expects as a non-zero exit (modinfo "not found", grep finding nothing).
import { ProbeCommandId } from '../probe/commands';
import { unreadableOutput } from '../probe/commandStatus';
import { factOfCommand } from '../probe/facts';
import { CommandResult } from '../probe/frames';
import { ProbeReport } from '../probe/runProbe';
import { factOf, labelOf, note } from './evidence';
import { Finding, SOURCES } from './finding';
import { Blocker, mootUnder } from './knockOn';
import { t } from '../l10n';

/** Without these the diagnosis loses a verdict (pairs, module state, ports), not just a detail. */
const WEIGHTY: ReadonlySet<string> = new Set(['topo', 'lsmod', 'ibv', 'memory-peers']);
/** Whose failure another rule reports (gpu.none, ofed.missing, rdma.none) or that only a fix needs. */
const REPORTED_ELSEWHERE: ReadonlySet<string> = new Set(['ofed', 'sudo-n']);
const SMI: readonly string[] = ['topo', 'gpus', 'smi-q'];

/**
 * `blocker`: the finding that already rules GPUDirect RDMA out, if any; a failure whose diagnostic
 * could change nothing under it is a knock-on, listed under it (knockOn.ts).
 */
export function probeFindings(report: ProbeReport, covered: { gpuNone: boolean; rdmaNone: boolean }, blocker?: Blocker): Finding[] {
  const failed = report.commands.filter((c) => c.state !== 'not-run' && failure(report, c) !== null && !coveredElsewhere(c, covered));
  const findings = failed.map((c) => {
    const finding = commandFailed(report, c, failure(report, c) ?? '');
    return mootUnder(blocker, [c.id]) && blocker ? knockOn(finding, blocker) : finding;
  });
  const notRun = report.commands.filter((c) => c.state === 'not-run');
  if (notRun.length > 0) {
    const finding = notCollected(report, notRun);
    const cut = report.connectionLost || report.timedOut;
    findings.push(!cut && blocker && mootUnder(blocker, notRun.map((c) => c.id)) ? knockOn(finding, blocker) : finding);
  }
  return findings;
}

/** A failure that loses nothing more: said so, as info, under the finding that made it moot. */
function knockOn(f: Finding, blocker: Blocker): Finding {
  // The detail's first sentence says what failed (English '. ', Chinese '。').
  const what = f.detail.split(/\. |。/)[0];
  const then = f.evidence[0]?.includes('command not found') ? t('install the tool (or put it on the PATH of non-interactive SSH sessions)') : t('run it by hand on the host to see why');
  return {
    ...f,
    severity: 'info',
    detail: t('{0}. It changes nothing here: {1} ({2}). Once that is solved, diagnose again; if it still fails, {3}.', what, blocker.because(), blocker.id, then),
    causedBy: blocker.id,
  };
}

function coveredElsewhere(c: CommandResult, covered: { gpuNone: boolean; rdmaNone: boolean }): boolean {
  if (REPORTED_ELSEWHERE.has(c.id)) return true;
  if (covered.gpuNone && SMI.includes(c.id)) return true;
  return covered.rdmaNone && c.id === 'ibv' && c.missing;
}

/** Why a command counts as failed, or null when its answer was read. */
function failure(report: ProbeReport, c: CommandResult): string | null {
  if (c.missing) return 'command not found (exit 127)';
  if (c.timedOut) return 'timed out';
  if (c.state === 'cut-off') return 'output cut off (connection lost or deadline)';
  if (c.truncated) return 'output over the size cap, cut';
  if (factOfCommand(report.facts, c.id)?.parsed.ok) return null;
  return unreadableOutput(report, c) ?? (c.exitCode === 0 ? null : `exit ${c.exitCode ?? '?'}`);
}

function commandFailed(report: ProbeReport, c: CommandResult, why: string): Finding {
  const id = c.id as ProbeCommandId;
  const stderr = c.stderr.split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l !== '').slice(0, 2);
  return {
    id: 'probe.command-failed',
    severity: weighty(report, c.id) ? 'warning' : 'info',
    title: t('Could not read `{0}`: {1}', labelOf(report, id), whyText(why).split(/:|：/)[0]),
    detail: [
      t('The diagnostic `{0}` {1}.', labelOf(report, id), whyText(why)),
      weighty(report, c.id) ? t('The diagnosis loses what it shows (GPU↔NIC links, module state or ports): findings that depend on it are missing.') : t('Findings that depend on it are skipped.'),
      c.missing ? t('Install the tool (or put it on the PATH of non-interactive SSH sessions) and diagnose again.') : t('Run it by hand on the host to see why.'),
    ].join(' '),
    evidence: [note(report, id, why), ...stderr.map((l) => `${labelOf(report, id)}: ${l}`)],
    fixes: [],
    source: SOURCES.probe,
  };
}

/** A failure() reason in the reader's language (the evidence keeps the English note). */
function whyText(why: string): string {
  switch (why) {
    case 'command not found (exit 127)': return t('command not found (exit 127)');
    case 'timed out': return t('timed out');
    case 'output cut off (connection lost or deadline)': return t('output cut off (connection lost or deadline)');
    case 'output over the size cap, cut': return t('output over the size cap, cut');
    default: return why;
  }
}

/** ibv_devinfo loses no verdict when sysfs showed every port (the probe's pci-sysfs read). */
function weighty(report: ProbeReport, id: string): boolean {
  if (id === 'ibv' && (factOf(report, 'pci-sysfs')?.rdma.length ?? 0) > 0) return false;
  return WEIGHTY.has(id);
}

function notCollected(report: ProbeReport, notRun: readonly CommandResult[]): Finding {
  const cut = report.connectionLost || report.timedOut;
  return {
    id: 'probe.command-failed',
    severity: cut || notRun.some((c) => WEIGHTY.has(c.id)) ? 'warning' : 'info',
    title: notRun.length === 1 ? t('1 diagnostic was not collected') : t('{0} diagnostics were not collected', notRun.length),
    detail: [
      cut ? t('The probe was cut short (connection lost or deadline), so these never reported.') : t('The saved outputs do not include these (or the probe stopped before them).'),
      t('Findings that depend on them are skipped: {0}.', notRun.map((c) => c.id).join(', ')),
    ].join(' '),
    evidence: notRun.map((c) => note(report, c.id as ProbeCommandId, 'not collected')),
    fixes: [],
    source: SOURCES.probe,
  };
}
