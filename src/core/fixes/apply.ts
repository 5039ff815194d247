// Runs a ready plan: each step in order, stopping at the first that fails (saying which command and
// what the host printed), then verifies from the host itself: a load by probing again (module listed
// and registered), a persist by reading the file back. sudo's password is asked at most once and only
// ever goes on stdin; it is never part of a command, an outcome, a message or the audit log.
import { Finding, ofedMismatchFromModprobe } from '../diagnosis';
import { Parsed } from '../parsers/result';
import { ProbeReport } from '../probe/runProbe';
import { PersistState } from './persistState';
import { RemoteShell, ShellResult } from './shell';
import { FixPlan, FixResult, FixStatus, FixStep, StepOutcome } from './types';
import { verifyAcs, verifyAcsUnit } from './acsVerify';
import { Verification, verifyLoad, verifyPersist } from './verify';
import { DeviceHolder, HOLDERS_EXIT, holderText, parseHolders } from './holders';
import { verifyTimer } from './timerPlan';
import { t } from '../l10n';

export interface ApplyOptions {
  readonly shell: RemoteShell;
  /** Asked at most once, and only when the plan needs sudo's password; null: not given. */
  readonly sudoPassword: () => Promise<string | null>;
  /** A fresh probe of the host, to verify a load. */
  readonly reprobe: () => Promise<ProbeReport>;
  /** A fresh reading of the boot module files, to verify a persist. */
  readonly rereadState: () => Promise<Parsed<PersistState>>;
  /** A fresh reading of persist-acs's unit and link, to verify it. */
  readonly rereadUnit?: () => Promise<Parsed<PersistState>>;
  /** A fresh reading of export-timer's units, link and first metrics file, to verify it. */
  readonly rereadTimer?: () => Promise<Parsed<PersistState['files']>>;
  /** The marker the plan's `sudo -S -p` commands carry. */
  readonly sudoMarker: string;
  /** Why no password may go to the host; a plan needing sudo's password is then refused unasked. */
  readonly passwordsRefused?: string;
}

export async function applyFix(plan: FixPlan, options: ApplyOptions): Promise<FixResult> {
  const result = (status: FixStatus, message: string, extra: Partial<FixResult> = {}): FixResult => ({
    fixId: plan.fixId,
    host: plan.host,
    user: plan.user,
    status,
    message,
    plan,
    steps: [],
    findings: [],
    verification: [],
    ...extra,
  });
  if (plan.status !== 'ready') return result(plan.status, plan.summary, { findings: plan.findings });
  let stdin: string | undefined;
  if (plan.privilege === 'sudo-password') {
    if (options.passwordsRefused !== undefined) return result('refused', options.passwordsRefused);
    const password = await options.sudoPassword();
    if (password === null || password === '') {
      return result('refused', t('sudo on {0} needs the password of {1} and none was given: nothing was changed.', plan.host, plan.user));
    }
    stdin = `${password}\n`;
  }
  const steps: StepOutcome[] = [];
  let accepted: Partial<FixResult> = {};
  for (const step of plan.steps) {
    const r = await options.shell.run(step.command, { stdin, timeoutMs: step.timeoutMs });
    const outcome = stepOutcome(step, r, options.sudoMarker);
    steps.push(outcome);
    if (outcome.ok && stdin !== undefined && sudoPrompts(r, options.sudoMarker) > 0) accepted = { passwordAccepted: true };
    const holders = parseHolders(outcome.stdout);
    if (outcome.ok) continue;
    if (r.exitCode === HOLDERS_EXIT && holders.length > 0) return result('refused', holdersRefusal(plan, holders), { steps, holders });
    const failure = describeFailure(plan, step, r, outcome, options.sudoMarker, steps.length === 1);
    return result('failed', failure.message, {
      steps,
      findings: failure.findings,
      ...accepted,
      ...(failure.passwordRejected ? { passwordRejected: true } : {}),
    });
  }
  const checks: Verification[] = [];
  if (plan.steps.some((s) => s.kind === 'load')) checks.push(await verifyLoad(plan, options.reprobe));
  if (plan.steps.some((s) => s.kind === 'acs')) checks.push(await verifyAcs(plan, options.shell, stdin));
  if (plan.steps.some((s) => s.kind === 'persist')) {
    if (plan.timer) checks.push(await verifyTimer(plan, options.rereadTimer));
    else checks.push(plan.acs ? await verifyAcsUnit(plan, options.rereadUnit) : await verifyPersist(plan, options.rereadState));
  }
  const failed = checks.find((c) => !c.ok);
  const verification = checks.flatMap((c) => c.lines);
  // Forced past them, the processes the script listed are kept with the result.
  const seen = steps.flatMap((s) => parseHolders(s.stdout));
  const extra = seen.length > 0 ? { holders: seen } : {};
  if (failed) return result('failed', failed.message, { steps, verification, ...accepted, ...extra });
  return result('applied', checks.map((c) => c.message).join(' '), { steps, verification, ...accepted, ...extra });
}

function holdersRefusal(plan: FixPlan, holders: readonly DeviceHolder[]): string {
  const jobs = holders.filter((h) => !h.daemon);
  return t(
    '{0} processes on {1} hold the GPUs or RDMA devices: {2}. Nothing was changed: rerouting peer traffic under running jobs is not done silently. Stop them, or run the fix again and go on anyway (--force).',
    jobs.length,
    plan.host,
    holders.map(holderText).join('; '),
  );
}

/** How many times sudo printed its prompt (the plan's `-p` marker) on stderr: once per password it read. */
function sudoPrompts(r: ShellResult, marker: string): number {
  return r.stderr.toString('utf8').split(marker).length - 1;
}

function stepOutcome(step: FixStep, r: ShellResult, marker: string): StepOutcome {
  const clean = (b: Buffer) => b.toString('utf8').split(marker).join('');
  const ok = r.exitCode === 0 && !r.connectionLost && !r.timedOut;
  return { title: step.title, command: step.command, exitCode: r.exitCode, stdout: clean(r.stdout), stderr: clean(r.stderr), ok };
}

const WRONG_PASSWORD = /incorrect password attempt|Sorry, try again/;
const NOT_A_SUDOER = /is not in the sudoers file|may not run sudo|is not allowed to (execute|run)/;

interface Failure {
  readonly message: string;
  readonly findings: Finding[];
  /** sudo refused the password sent (FixResult.passwordRejected). */
  readonly passwordRejected?: true;
}

function describeFailure(plan: FixPlan, step: FixStep, r: ShellResult, o: StepOutcome, marker: string, first: boolean): Failure {
  const unchanged = first ? t('nothing was changed') : t('the steps before it ran, nothing after it');
  const printed = [o.stdout.trim(), o.stderr.trim()].filter((text) => text !== '').join('\n') || t('(nothing)');
  const asked = sudoPrompts(r, marker);
  if (plan.privilege === 'sudo-password' && (asked > 1 || WRONG_PASSWORD.test(o.stderr))) {
    return {
      message: t(
        'sudo did not accept the password of {0} on {1}, so "{2}" did not run: {3}. (One try only: run the fix again to retype it.)',
        plan.user,
        plan.host,
        step.title,
        unchanged,
      ),
      findings: [],
      passwordRejected: true,
    };
  }
  if (plan.privilege !== 'root' && NOT_A_SUDOER.test(o.stderr)) {
    return {
      message: t(
        '{0} may not use sudo on {1} (sudo said: {2}), so "{3}" did not run: {4}. Log in as root or as a user allowed to run sudo.',
        plan.user,
        plan.host,
        o.stderr.trim(),
        step.title,
        unchanged,
      ),
      findings: [],
    };
  }
  if (r.connectionLost) {
    return {
      message: t(
        'The connection to {0} was lost while running "{1}": whether it took effect is unknown, and nothing after it ran. Run gdr-doctor diagnose to see the host\'s state.',
        plan.host,
        step.title,
      ),
      findings: [],
    };
  }
  if (r.timedOut) {
    return {
      message: t(
        '"{0}" did not finish within {1} s (it may still be running on the host); nothing after it ran.',
        step.title,
        step.timeoutMs / 1000,
      ),
      findings: [],
    };
  }
  const mismatch =
    step.kind === 'load' && plan.module
      ? ofedMismatchFromModprobe(`${o.stdout}\n${o.stderr}`, `modprobe ${plan.module}`, plan.dmabufAvailable)
      : null;
  const findings = mismatch ? [mismatch] : [];
  const why =
    findings.length > 0
      ? ` ${t('This is peermem.ofed-mismatch: the running ib_core lacks the peer-memory API the module was built for.')}`
      : '';
  const nothingPersisted = plan.steps.some((s) => s.kind === 'persist') && step.kind === 'load' ? ` ${t('Nothing was persisted.')}` : '';
  return {
    message: `${t('"{0}" failed (exit {1}): {2}.', step.title, String(r.exitCode), unchanged)}${why}${nothingPersisted} ${t('The host printed:')}\n${printed}`,
    findings,
  };
}
