// What every quick fix shows the user, on a real host or the demo: the plan in a modal (exact commands,
// file diff; a long one also as a document) with one Apply button, and the outcome as a notification.
import * as vscode from 'vscode';
import { FixPlan, FixResult, formatPlan } from '../../core/fixes';
import { Ctx, showError } from '../context';
import { notifyInfo } from '../notify';
import { LONG_PLAN_LINES } from './planDocument';

const APPLY = 'Apply';
const SIMULATED_QUESTION = 'Simulated: this changes only the demo host\'s replayed state; nothing runs on any machine.';

/** Shows the plan; true only when it is ready and the user chose Apply in the modal. */
export async function confirmPlan(ctx: Ctx, plan: FixPlan): Promise<boolean> {
  const text = formatPlan(plan);
  if (plan.status === 'nothing-to-do') {
    void notifyInfo(`${plan.host}: ${plan.fixId}: nothing to do. ${plan.summary}`);
    return false;
  }
  if (plan.status === 'refused') {
    void showError(ctx, `${plan.host}: ${plan.fixId} refused: ${plan.summary}`);
    return false;
  }
  if (text.split('\n').length > LONG_PLAN_LINES) await ctx.plans.open(plan.host, plan.fixId, text);
  const question = `Apply ${plan.fixId} on ${plan.host}?${plan.simulated ? ` ${SIMULATED_QUESTION}` : ''}`;
  const answer = await vscode.window.showWarningMessage(question, { modal: true, detail: text }, APPLY);
  if (answer !== APPLY) ctx.log.info(`${plan.host}: ${plan.fixId} not applied: nothing was changed`);
  return answer === APPLY;
}

/** The outcome as a notification: a failure or refusal as an error with "Show Log". */
export function notifyResult(ctx: Ctx, result: FixResult): void {
  const head = `${result.host}: ${result.fixId}`;
  if (result.status === 'applied') void notifyInfo(`${head} applied${result.plan.simulated ? ' (simulated)' : ''}: ${result.message}`);
  else if (result.status === 'nothing-to-do') void notifyInfo(`${head}: nothing to do. ${result.message}`);
  else void showError(ctx, `${head} ${result.status === 'failed' ? 'failed' : 'refused'}: ${result.message}`);
}
