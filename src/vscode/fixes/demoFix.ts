// A quick fix on the demo host, from the tree or the palette: the same plan, modal and result as on a
// real host (applyFix.ts), over the demo's simulated shell (src/core/fixes/demo/demoFix.ts). The plan and the
// result say "simulated", nothing goes to the audit log (nothing ran anywhere), and the demo is
// diagnosed again so the tree shows what the fix changed.
import { demoFixSession, prepareDemoFix } from '../../core/fixes/demo/demoFix';
import { FixId, formatPlan, formatResult, newSudoMarker, runPlan } from '../../core/fixes';
import { diagnoseHosts } from '../commands/diagnose';
import { Ctx } from '../context';
import { HostEntry } from '../hosts/hostModel';
import { confirmPlan, notifyResult } from './planPrompts';

export async function applyDemoQuickFix(ctx: Ctx, host: HostEntry, fixId: FixId): Promise<void> {
  const session = demoFixSession(ctx.demo);
  const sudoMarker = newSudoMarker();
  const plan = await prepareDemoFix(session, fixId, sudoMarker);
  ctx.log.info(`plan:\n${formatPlan(plan)}`);
  if (!(await confirmPlan(ctx, plan))) return;
  // The demo's user runs sudo without a password (its recorded `sudo -n true`): none is ever asked.
  const result = await runPlan(plan, session, { sudoMarker, sudoPassword: async () => null });
  ctx.log.info(`result:\n${formatResult(result)}`);
  notifyResult(ctx, result);
  if (result.steps.length > 0) await diagnoseHosts(ctx, [host]);
}
