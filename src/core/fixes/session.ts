// One fix against one host: probe it, read its boot module files (persist-peermem), plan, and, once
// the caller has shown the plan and has the go-ahead, apply it. The session hides how the host is
// reached: over SSH (sshFixSession) or, in tests, anything that runs a command line.
import { randomBytes } from 'node:crypto';
import { Parsed, fail } from '../parsers/result';
import { probeHost } from '../transport';
import type { ProbeReport } from '../probe/runProbe';
import type { SshConnection } from '../ssh/connect';
import { SshPrompts } from '../ssh/prompts';
import { applyFix } from './apply';
import { PersistState, parsePersistState } from './persistState';
import { planFix } from './plan';
import { READ_UNIT_COMMAND } from './acsBoot';
import { READ_STATE_COMMAND } from './scripts';
import { parseTimerState, readTimerBackCommand, readTimerCommand, TEXTFILE_DIRS, TimerState } from './timerScripts';
import { RemoteShell, sshShell } from './shell';
import { FixId, FixPlan, FixResult } from './types';
import { t } from '../l10n';

export interface FixSession {
  /** The destination as the user gave it. */
  readonly host: string;
  /** The login user on the host. */
  readonly user: string;
  readonly shell: RemoteShell;
  /** A full probe of the host (the same one `gdr-doctor diagnose` runs). */
  readonly probe: () => Promise<ProbeReport>;
  /** Why no password may go to this host (then a plan needing sudo's password is refused); absent when it may. */
  readonly passwordsRefused?: string;
}

/** A fix over an open connection; `host` is the destination as the user gave it. */
export function sshFixSession(conn: SshConnection, host: string): FixSession {
  const { client } = conn;
  const passwordsRefused = conn.hostKeyChanged ? changedKeyRefusal(host, conn.target.user) : undefined;
  const probe = async () => (await probeHost({ kind: 'connection', destination: host, conn })).report;
  return { host, user: conn.target.user, shell: sshShell(client), probe, passwordsRefused };
}

/** ssh sends no password once StrictHostKeyChecking=no let a changed host key through; sudo's is no different. */
function changedKeyRefusal(host: string, user: string): string {
  return t(
    'sudo on {0} needs the password of {1}, and no password is sent to {0}: its host key does not match known_hosts (StrictHostKeyChecking no let the connection go on, as ssh does, with passwords disabled). Nothing was changed. Check the host key with its administrator, correct known_hosts, and run the fix again.',
    host,
    user,
  );
}

/** A fresh marker for `sudo -S -p`: sudo prints it where it asks, so its prompt never mixes with output. */
export function newSudoMarker(): string {
  return `gdr-doctor-sudo-${randomBytes(12).toString('hex')}`;
}

/**
 * sudo's password, asked through the same prompts as SSH's own questions, under a name of its own
 * (`<host> (sudo)`) so it is not taken for a second try of the login password.
 */
export function sudoPasswordVia(prompts: SshPrompts, session: FixSession): () => Promise<string | null> {
  return () => prompts.password(session.user, `${session.host} (sudo)`);
}

const READ_STATE_TIMEOUT_MS = 20_000;

/** Reads /etc/modules-load.d and /etc/modules as the login user (read-only, no root needed). */
export function readPersistState(shell: RemoteShell): Promise<Parsed<PersistState>> {
  return readFiles(shell, READ_STATE_COMMAND, t('the boot module files'), true);
}

/** Reads, as the login user, what persist-acs may change: its unit, link and boot script, the bootloader files, DGX packages. */
export function readUnitState(shell: RemoteShell): Promise<Parsed<PersistState>> {
  return readFiles(shell, READ_UNIT_COMMAND, t('the ACS unit'), false);
}

/** What export-timer needs to know of the host (gdr-doctor, Node, textfile directories, the units), as the login user. */
export async function readTimerState(shell: RemoteShell, textfileDir?: string): Promise<Parsed<TimerState>> {
  const dirs = textfileDir !== undefined ? [textfileDir] : TEXTFILE_DIRS;
  const r = await shell.run(readTimerCommand(dirs), { timeoutMs: READ_STATE_TIMEOUT_MS });
  if (r.connectionLost || r.timedOut || r.exitCode !== 0) return fail(1, readFailure(t('the timer state'), r));
  return parseTimerState(r.stdout, dirs);
}

/** The timer's units, link and first metrics file, read back after export-timer. */
async function readTimerBack(shell: RemoteShell, plan: FixPlan): Promise<Parsed<PersistState['files']>> {
  const r = await shell.run(readTimerBackCommand(plan.timer?.command.textfileDir ?? '/'), { timeoutMs: READ_STATE_TIMEOUT_MS });
  if (r.connectionLost || r.timedOut || r.exitCode !== 0) return fail(1, readFailure(t('the timer units'), r));
  const state = parsePersistState(r.stdout, { dirLine: false });
  return state.ok ? { ok: true, value: state.value.files } : state;
}

function readFailure(what: string, r: Awaited<ReturnType<RemoteShell['run']>>): string {
  const why = r.connectionLost ? t('connection lost') : r.timedOut ? t('timed out') : `exit ${r.exitCode}`;
  return t('reading {0} failed ({1}): {2}', what, why, r.stderr.toString('utf8').trim() || t('no message'));
}

async function readFiles(shell: RemoteShell, command: string, what: string, dirLine: boolean): Promise<Parsed<PersistState>> {
  const r = await shell.run(command, { timeoutMs: READ_STATE_TIMEOUT_MS });
  if (r.connectionLost || r.timedOut || r.exitCode !== 0) return fail(1, readFailure(what, r));
  return parsePersistState(r.stdout, { dirLine });
}

/** Probes the host and builds the plan; runs nothing that changes the host. */
export interface FixOptions {
  /** export-timer: node_exporter's textfile directory on the host; default the first of TEXTFILE_DIRS there. */
  readonly textfileDir?: string;
  /** Go on although processes hold the GPUs or RDMA devices (disable-acs). */
  readonly force?: boolean;
}

export async function prepareFix(session: FixSession, fixId: FixId, sudoMarker: string, options: FixOptions = {}): Promise<FixPlan> {
  const report = await session.probe();
  const persistState = fixId === 'persist-peermem' ? await readPersistState(session.shell) : undefined;
  const unitState = fixId === 'persist-acs' ? await readUnitState(session.shell) : undefined;
  const timerState = fixId === 'export-timer' ? await readTimerState(session.shell, options.textfileDir) : undefined;
  const plan = planFix({
    fixId,
    host: session.host,
    user: session.user,
    report,
    persistState,
    unitState,
    timerState,
    sudoMarker,
    force: options.force,
  });
  const refused = plan.status === 'ready' && plan.privilege === 'sudo-password' ? session.passwordsRefused : undefined;
  return refused !== undefined ? { ...plan, status: 'refused', summary: refused } : plan;
}

export interface RunOptions {
  /** Asked at most once, only when the plan needs sudo's password; null: not given. */
  readonly sudoPassword: () => Promise<string | null>;
  /** The marker the plan was built with. */
  readonly sudoMarker: string;
}

/** Applies a plan that was shown and agreed to; verifies it from the host. */
export function runPlan(plan: FixPlan, session: FixSession, options: RunOptions): Promise<FixResult> {
  return applyFix(plan, {
    shell: session.shell,
    sudoPassword: options.sudoPassword,
    reprobe: session.probe,
    rereadState: () => readPersistState(session.shell),
    rereadUnit: () => readUnitState(session.shell),
    rereadTimer: () => readTimerBack(session.shell, plan),
    sudoMarker: options.sudoMarker,
    // Checked again here: a plan may have been made over another connection to the host.
    passwordsRefused: session.passwordsRefused,
  });
}
