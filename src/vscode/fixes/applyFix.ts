// A quick fix from VS Code, as `gdr-doctor fix` runs one from a terminal (src/cli/fixCommand.ts):
// the plan is made over the host's pooled connection and shown in a modal (exact commands, file
// diff); on confirm it runs with progress, sudo's password through fixes/sudoPassword; the result
// goes to the audit log and the output channel, and the host is diagnosed again so the tree shows
// what changed. A failure shows what the host printed, with "Show Log".
import {
  appendAudit,
  auditLogPath,
  FixId,
  FixResult,
  FixSession,
  formatPlan,
  formatResult,
  newSudoMarker,
  prepareFix,
  sshFixSession,
} from '../../core/fixes';
import { classifyConnectError } from '../../core/ssh/errors';
import { diagnoseHosts } from '../commands/diagnose';
import { Ctx, showError } from '../context';
import { HostEntry } from '../hosts/hostModel';
import { applyDemoQuickFix } from './demoFix';
import { confirmHolders } from './holdersPrompt';
import { confirmPlan, notifyResult } from './planPrompts';
import { askSudoPassword } from './sudoPrompt';
import { runWithSudo, SudoDeps } from './sudoPassword';
import { sudoRoute } from './sudoSecrets';
import { notifyInfo, withNotificationProgress } from '../notify';
import { errorText } from '../../core/errorText';
import { t } from '../../core/l10n';

export async function applyQuickFix(ctx: Ctx, host: HostEntry, fixId: FixId): Promise<void> {
  if (host.kind === 'demo') return applyDemoQuickFix(ctx, host, fixId);
  const destination = host.destination;
  if (destination === undefined) {
    void notifyInfo(
      t('Quick fixes run over SSH; {0} is not an SSH host. On this machine, run: {1}', host.label, `gdr-doctor fix <host> ${fixId}`),
    );
    return;
  }
  let result: FixResult | undefined;
  try {
    result = await ctx.diagnoser.withConnection(host, async (conn) => {
      const session = sshFixSession(conn, destination);
      const sudoMarker = newSudoMarker();
      const plan = await withNotificationProgress(t('Preparing {0} on {1}', fixId, host.label), false, () =>
        prepareFix(session, fixId, sudoMarker),
      );
      ctx.log.info(`plan:\n${formatPlan(plan)}`);
      if (!(await confirmPlan(ctx, plan))) return undefined;
      const apply = (p: typeof plan) =>
        withNotificationProgress(t('Applying {0} on {1}', fixId, host.label), false, () =>
          runWithSudo(p, session, sudoMarker, sudoDeps(ctx, session), sudoRoute(host.id, conn.target)),
        );
      const first = await apply(plan);
      if (first.status !== 'refused' || (first.holders?.length ?? 0) === 0) return first;
      if (!(await confirmHolders(first))) return first;
      logFixResult(ctx, first);
      const forced = await prepareFix(session, fixId, sudoMarker, { force: true });
      return forced.status === 'ready' ? apply(forced) : first;
    });
  } catch (e) {
    await showError(ctx, t('Quick fix {0} on {1}: {2}', fixId, host.label, classifyConnectError(host.label, e).message));
    return;
  }
  if (!result) return;
  report(ctx, result);
  if (result.steps.length > 0) await diagnoseHosts(ctx, [host]);
}

function sudoDeps(ctx: Ctx, session: FixSession): SudoDeps {
  return {
    secrets: ctx.extension.secrets,
    ask: (retry) => askSudoPassword(session.user, session.host, retry),
    note: (m) => ctx.log.info(m),
  };
}

/** The log and the audit log get the whole result (also for each host of a group fix). */
export function logFixResult(ctx: Ctx, result: FixResult): void {
  ctx.log.info(`result:\n${formatResult(result)}`);
  try {
    const logged = appendAudit(result, auditLogPath());
    if (logged) ctx.log.info(`recorded in ${logged}`);
  } catch (e) {
    ctx.log.warn(`could not append to the audit log: ${errorText(e)}`);
  }
}

/** The log and the audit log get the whole result; the user a notification. */
function report(ctx: Ctx, result: FixResult): void {
  logFixResult(ctx, result);
  notifyResult(ctx, result);
}
