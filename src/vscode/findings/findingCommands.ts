// The commands a finding offers from its row, its hover and its details: show the details, apply one of
// its quick fixes (the plan and a confirmation come first), open a raw output at the line its evidence
// quotes. They take a FindingRefs key (and a fix id or an evidence index), checked here: a link or a
// keybinding may hand them anything.
import * as vscode from 'vscode';
import { Commands } from '../../constants';
import { FIX_IDS, FixId } from '../../core/fixes';
import { findingLabel } from '../../core/diagnosis/findingLabel';
import { evidenceLocation } from '../../core/diagnosis/evidenceLocation';
import { commandTitle } from '../../core/probe/commandTitle';
import { errorText } from '../../core/errorText';
import type { Ctx } from '../context';
import { applyQuickFix } from '../fixes/applyFix';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { notifyInfo, notifyWithLog } from '../notify';
import { rawOutputTitle, rawOutputUri, showRawOutput } from '../rawOutput';
import { PLAIN_TEXT, TOPO_LANGUAGE_ID } from '../editor/topoLanguage';
import { resolveFinding } from './findingRefs';

export type FindingCommandId = typeof Commands.showFinding | typeof Commands.applyFindingFix | typeof Commands.openRawOutputAt;

export function registerFindingCommands(ctx: Ctx, own: (d: vscode.Disposable) => void): void {
  const table: Record<FindingCommandId, (key: unknown, arg: unknown) => Promise<void>> = {
    [Commands.showFinding]: (key) => showFinding(ctx, key),
    [Commands.applyFindingFix]: (key, fix) => applyFindingFix(ctx, key, fix),
    [Commands.openRawOutputAt]: (key, index) => openRawOutputAt(ctx, key, index),
  };
  for (const [id, handler] of Object.entries(table))
    own(
      vscode.commands.registerCommand(id, async (key: unknown, arg: unknown) => {
        try {
          await handler(key, arg);
        } catch (e) {
          ctx.log.error(`${id}: ${errorText(e)}`);
          await notifyWithLog('error', vscode.l10n.t('GPUDirect RDMA: {0}', errorText(e)), ctx.log);
        }
      }),
    );
}

/** The finding of a key, or a notice that it is gone (the host was diagnosed again since). */
function found(ctx: Ctx, key: unknown) {
  const ref = ctx.findings.refs.get(key);
  const resolved = ref ? resolveFinding(ctx.model, ref) : undefined;
  if (!ref || !resolved) void notifyInfo(vscode.l10n.t("That finding is no longer in the host's latest diagnosis."));
  return ref && resolved ? { ref, ...resolved, key: key as string } : undefined;
}

export async function showFinding(ctx: Ctx, key: unknown): Promise<void> {
  const f = found(ctx, key);
  if (!f) return;
  const host = ctx.model.get(f.ref.hostId);
  await ctx.findings.show(f.key, `${findingLabel(f.finding)} — ${host?.label ?? f.ref.hostId}`);
}

async function applyFindingFix(ctx: Ctx, key: unknown, fix: unknown): Promise<void> {
  const f = found(ctx, key);
  const host = f ? ctx.model.get(f.ref.hostId) : undefined;
  const fixId = FIX_IDS.find((id) => id === fix);
  if (!f || !host || !fixId || !f.finding.fixes.includes(fixId as FixId) || isRelayedHostId(host.id)) return;
  await applyQuickFix(ctx, host, fixId);
}

async function openRawOutputAt(ctx: Ctx, key: unknown, index: unknown): Promise<void> {
  const f = found(ctx, key);
  const evidence = f && typeof index === 'number' ? f.finding.evidence[index] : undefined;
  const at = f && evidence !== undefined && f.ref.source === 'diagnosis' ? evidenceLocation(f.last.report, evidence) : null;
  const c = at ? f?.last.report.commands.find((x) => x.id === at.commandId) : undefined;
  const host = f ? ctx.model.get(f.ref.hostId) : undefined;
  if (!at || !c || !host) return;
  await showRawOutput(rawOutputUri(host.id, c.id, rawOutputTitle(c, host.label)), c.id === 'topo' ? TOPO_LANGUAGE_ID : PLAIN_TEXT);
  const editor = vscode.window.activeTextEditor;
  if (!editor || at.line === null) return;
  const line = new vscode.Range(at.line, 0, at.line, editor.document.lineAt(at.line).text.length);
  editor.selection = new vscode.Selection(line.start, line.end);
  editor.revealRange(line, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  ctx.log.info(`opened ${commandTitle(c)} of ${host.label} at line ${at.line + 1}`);
}
