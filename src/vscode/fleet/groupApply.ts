// Applying a fleet group's agreed plans, host by host or a few at a time, with ONE sudo password for
// the group: the password box is shared, and every password goes through a SudoPasswordGate, so a
// typed password is checked on one host before the others get it, and one that sudo refuses is sent
// nowhere else (the hosts that would have needed it are "not run"). "Apply, stop on first failure"
// (limit 1) runs nothing more once a host failed. No VS Code import: the lab test
// (test/ssh/groupFix.test.ts) runs it against real sudo.
import { FixPlan, FixResult } from '../../core/fixes';
import { classifyConnectError } from '../../core/ssh/errors';
import { SudoPasswordGate } from '../fixes/sudoGate';
import { SudoDeps } from '../fixes/sudoPassword';
import { runLimited } from '../runLimited';
import { t } from '../../core/l10n';

export interface Applied<H> {
  readonly host: H;
  readonly result?: FixResult;
  /** Could not run (connection) or was not run (an earlier host failed, or sudo refused the password elsewhere). */
  readonly error?: string;
  /** Not run at all (an earlier host failed, or sudo refused the password elsewhere), as opposed to unreachable. */
  readonly notRun?: true;
}

export interface GroupApply<H extends { readonly label: string }> {
  /** Hosts at a time; 1: one after another, and nothing more once one fails. */
  readonly limit: number;
  /** sudo's password, shared by the group (one question); the gate is added here. */
  readonly sudo: SudoDeps;
  /** Runs the plan on the host: runWithSudo over its connection. */
  readonly apply: (host: H, plan: FixPlan, sudo: SudoDeps) => Promise<FixResult>;
}

export async function applyToGroup<H extends { readonly label: string }>(ready: readonly { host: H; plan: FixPlan }[], run: GroupApply<H>): Promise<Applied<H>[]> {
  const gate = new SudoPasswordGate();
  const sudo: SudoDeps = { ...run.sudo, gate };
  let stopped = false;
  return runLimited(ready, run.limit, async ({ host, plan }): Promise<Applied<H>> => {
    if (stopped) return { host, notRun: true, error: t('not run: an earlier host failed (stop on first failure)') };
    const applied = await applyOne(host, plan, sudo, gate, run.apply);
    const ok = applied.result?.status === 'applied' || applied.result?.status === 'nothing-to-do';
    if (run.limit === 1 && !ok) stopped = true;
    return applied;
  });
}

async function applyOne<H extends { readonly label: string }>(host: H, plan: FixPlan, sudo: SudoDeps, gate: SudoPasswordGate, apply: GroupApply<H>['apply']): Promise<Applied<H>> {
  try {
    const result = await apply(host, plan, sudo);
    // The gate kept the password from this host: nothing was sent, nothing ran.
    const refusedOn = gate.refusedOn();
    if (refusedOn !== undefined && plan.privilege === 'sudo-password' && result.status === 'refused' && result.steps.length === 0) {
      return { host, notRun: true, error: t('not run: sudo refused the password on {0}, so it was not sent here', refusedOn) };
    }
    return { host, result };
  } catch (e) {
    return { host, error: classifyConnectError(host.label, e).message };
  }
}
