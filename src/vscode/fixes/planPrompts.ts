// What every quick fix shows the user, on a real host or the demo: the plan in a modal (exact commands,
// file diff; a long one also as a document) with one Apply button, and the outcome as a notification.
import * as vscode from 'vscode';
import { FixPlan, FixResult, formatPlan } from '../../core/fixes';
import { Ctx, showError } from '../context';
import { notifyInfo } from '../notify';
import { plainText } from '../plainText';
import { confirmLine } from './confirmLine';

/**
 * Asks in one line what will run ("Run `sudo modprobe nvidia_peermem` on gpu01?"); Show Plan opens the plan
 * (every command exactly as sent, the file diff) as a document and asks again. True only on Apply.
 */
export async function confirmPlan(ctx: Ctx, plan: FixPlan): Promise<boolean> {
  if (plan.status === 'nothing-to-do') {
    void notifyInfo(vscode.l10n.t('{0}: {1}: nothing to do. {2}', plan.host, plan.fixId, plan.summary));
    return false;
  }
  if (plan.status === 'refused') {
    void showError(ctx, vscode.l10n.t('{0}: {1} refused: {2}', plan.host, plan.fixId, plan.summary));
    return false;
  }
  const apply = vscode.l10n.t('Apply');
  const showPlan = vscode.l10n.t('Show Plan');
  for (;;) {
    const answer = await vscode.window.showWarningMessage(plainText(confirmLine(plan)), { modal: true }, apply, showPlan);
    if (answer === showPlan) {
      await ctx.plans.open(plan.host, plan.fixId, formatPlan(plan));
      continue;
    }
    if (answer !== apply) ctx.log.info(`${plan.host}: ${plan.fixId} not applied: nothing was changed`);
    return answer === apply;
  }
}

/** The outcome as a notification: a failure or refusal as an error with "Show Log". */
export function notifyResult(ctx: Ctx, result: FixResult): void {
  const { host, fixId, message } = result;
  if (result.status === 'applied')
    void notifyInfo(
      result.plan.simulated
        ? vscode.l10n.t('{0}: {1} applied (simulated): {2}', host, fixId, message)
        : vscode.l10n.t('{0}: {1} applied: {2}', host, fixId, message),
    );
  else if (result.status === 'nothing-to-do') void notifyInfo(vscode.l10n.t('{0}: {1}: nothing to do. {2}', host, fixId, message));
  else
    void showError(
      ctx,
      result.status === 'failed'
        ? vscode.l10n.t('{0}: {1} failed: {2}', host, fixId, message)
        : vscode.l10n.t('{0}: {1} refused: {2}', host, fixId, message),
    );
}
