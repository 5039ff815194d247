// Every command, registered from one table keyed by the ids in constants.ts.
import * as vscode from 'vscode';
import { CommandId, Commands, EXTENSION_ID, WALKTHROUGH_ID } from '../../constants';
import { Ctx } from '../context';
import type { HostsNode } from '../tree/nodes';
import { diagnoseCommand } from './diagnose';
import {
  addHostCommand,
  diagnoseThisMachineCommand,
  disconnectCommand,
  openDemoHostCommand,
  reloadHostsCommand,
  removeHostCommand,
  resetDemoHostCommand,
} from './hosts';
import { copyReportCommand, exportReportCommand, openRawOutputCommand } from './report';
import { analyzeTopologyInEditorCommand, showTopologyCommand } from '../topology/commands';
import { applyQuickFixCommand, fixFromFinding, forgetSudoPasswordsCommand } from '../fixes/fixCommands';
import { addFleetCommand, diagnoseFleetCommand, removeFleetCommand } from '../fleet/fleetCommands';
import { orGroupFix } from '../fleet/groupFix';
import { analyzeNcclLogCommand } from '../ncclLog/analyzeCommand';
import { compareNcclLogCommand } from '../ncclLog/compareCommand';
import { proveCommand } from '../prove/proveCommand';
import { stopWatchingCommand, watchCommand } from '../watch/watchCommands';
import { proveNcclCommand } from '../prove/proveNcclCommand';
import { analyzeNcclTests } from '../ncclTests';
import { notifyWithLog } from '../notify';
import { errorText } from '../../core/errorText';

type Handler = (ctx: Ctx, node?: HostsNode, selected?: readonly HostsNode[]) => Promise<void>;

const TABLE: Record<CommandId, Handler> = {
  [Commands.addHost]: addHostCommand,
  [Commands.openDemoHost]: openDemoHostCommand,
  [Commands.resetDemoHost]: resetDemoHostCommand,
  [Commands.diagnoseThisMachine]: diagnoseThisMachineCommand,
  [Commands.diagnose]: diagnoseCommand,
  [Commands.refresh]: reloadHostsCommand,
  [Commands.copyReport]: copyReportCommand,
  [Commands.exportReport]: exportReportCommand,
  [Commands.openRawOutput]: openRawOutputCommand,
  [Commands.disconnect]: disconnectCommand,
  [Commands.removeHost]: removeHostCommand,
  [Commands.showLog]: async (ctx) => ctx.log.show(true),
  [Commands.gettingStarted]: async () => openWalkthrough(),
  [Commands.showTopology]: showTopologyCommand,
  [Commands.analyzeTopologyInEditor]: analyzeTopologyInEditorCommand,
  [Commands.applyQuickFix]: applyQuickFixCommand,
  // On a fleet group the same inline fix applies to every host of the group.
  [Commands.fixLoadPeermem]: orGroupFix('load-peermem', fixFromFinding('load-peermem')),
  [Commands.fixPersistPeermem]: orGroupFix('persist-peermem', fixFromFinding('persist-peermem')),
  [Commands.fixDisableAcs]: orGroupFix('disable-acs', fixFromFinding('disable-acs')),
  [Commands.fixPersistAcs]: orGroupFix('persist-acs', fixFromFinding('persist-acs')),
  [Commands.addFleet]: addFleetCommand,
  [Commands.removeFleet]: removeFleetCommand,
  [Commands.diagnoseFleet]: diagnoseFleetCommand,
  [Commands.analyzeNcclLog]: analyzeNcclLogCommand,
  [Commands.compareNcclLog]: compareNcclLogCommand,
  [Commands.prove]: proveCommand,
  [Commands.watch]: watchCommand,
  [Commands.stopWatching]: stopWatchingCommand,
  [Commands.proveNccl]: (ctx, node, selected) => proveNcclCommand(ctx, ctx.ncclTests, node, selected),
  [Commands.analyzeNcclTests]: (ctx) => analyzeNcclTests(ctx.ncclTests),
  [Commands.forgetSudoPasswords]: forgetSudoPasswordsCommand,
};

/** Registers every command of the table, handing each registration to `own` as it is made. */
export function registerCommands(ctx: Ctx, own: (registration: vscode.Disposable) => void): void {
  for (const [id, handler] of Object.entries(TABLE)) {
    own(
      vscode.commands.registerCommand(id, async (node?: HostsNode, selected?: readonly HostsNode[]) => {
        try {
          await handler(ctx, isNode(node) ? node : undefined, Array.isArray(selected) ? selected.filter(isNode) : undefined);
        } catch (e) {
          const message = errorText(e);
          ctx.log.error(`${id}: ${message}`);
          await notifyWithLog('error', vscode.l10n.t('GPUDirect RDMA: {0}', message), ctx.log);
        }
      }),
    );
  }
}

/** Commands run from keybindings or other extensions may receive anything. */
function isNode(x: unknown): x is HostsNode {
  return typeof x === 'object' && x !== null && typeof (x as HostsNode).kind === 'string' && typeof (x as HostsNode).hostId === 'string';
}

/** The Getting Started walkthrough, on its first step not yet done. */
async function openWalkthrough(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${WALKTHROUGH_ID}`, false);
}
