// A quick fix for a whole fleet group (hosts with identical findings): a plan is made on every host
// (over its pooled connection, nothing changed), shown ONCE in the plan modal — the exact commands,
// and "on N hosts: <folded list>" (hosts whose plan differs get their own block) — with ONE
// confirmation: Apply (all hosts, a few at a time) or Apply, stop on first failure (one by one).
// sudo's password is asked at most once for the group (a host's remembered one is tried first, as for
// a single fix), checked on one host before the others get it, and sent nowhere once sudo refused it
// (groupApply.ts). Each host's result goes to the log and the audit log, the summary to a notification,
// and the hosts that changed are diagnosed again so the group updates. A fleet behind a login node
// reaches each host through that node as a jump host (`ssh -J`), and the plan says so.
import * as vscode from 'vscode';
import { FixId, FixPlan, newSudoMarker, prepareFix, sshFixSession } from '../../core/fixes';
import { foldHostList } from '../../core/parsers/hostlist';
import { classifyConnectError } from '../../core/ssh/errors';
import { runLimited } from '../runLimited';
import { readSettings } from '../config';
import { Ctx, showError } from '../context';
import { logFixResult } from '../fixes/applyFix';
import { LONG_PLAN_LINES } from '../fixes/planDocument';
import { askSudoPassword } from '../fixes/sudoPrompt';
import { AskedPassword, runWithSudo, SudoDeps } from '../fixes/sudoPassword';
import { sudoRoute } from '../fixes/sudoSecrets';
import { Applied as AppliedOn, applyToGroup } from './groupApply';
import { HostEntry, sshHostId } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { diagnoseFleet } from './fleetDiagnose';
import { memberHostId } from './fleetMembers';
import { FleetConfig } from './fleetSettings';
import { groupPlanText, Prepared as PreparedOn } from './groupPlan';
import { notifyWithLog, withNotificationProgress } from '../notify';

type Prepared = PreparedOn<HostEntry>;
type Applied = AppliedOn<HostEntry>;

type Handler = (ctx: Ctx, node?: HostsNode, selected?: readonly HostsNode[]) => Promise<void>;

/** The finding's inline fix, which on a fleet group fixes the whole group. */
export function orGroupFix(fixId: FixId, onFinding: Handler): Handler {
  return (ctx, node, selected) => (node?.kind === 'fleetGroup' ? applyGroupFix(ctx, node, fixId) : onFinding(ctx, node, selected));
}

export async function applyGroupFix(ctx: Ctx, node: HostsNode & { kind: 'fleetGroup' }, fixId: FixId): Promise<void> {
  const fleet = ctx.fleets.get(node.fleet);
  if (!fleet) return;
  const hosts = node.group.hosts.map((h) => groupHost(ctx, fleet, h));
  const marker = newSudoMarker();
  const limit = readSettings().maxConcurrentHosts;
  const prepared = await withNotificationProgress(
    vscode.l10n.t('Preparing {0} on {1} hosts of {2}', fixId, hosts.length, fleet.name),
    false,
    () => runLimited(hosts, limit, (h) => prepareOne(ctx, h, fixId, marker)),
  );
  const ready = prepared.filter((p): p is Prepared & { plan: FixPlan } => p.plan?.status === 'ready');
  const jump =
    fleet.via !== undefined
      ? `${vscode.l10n.t('Each host over SSH through {0} (as {1}).', fleet.via, `ssh -J ${fleet.via} <host>`)}\n\n`
      : '';
  const text = `${jump}${groupPlanText(fixId, prepared)}`;
  ctx.log.info(`plan for ${foldHostList(hosts.map((h) => h.label))}:\n${text}`);
  if (ready.length === 0) {
    const first = prepared.map((p) => (p.plan ? `${p.host.label}: ${p.plan.summary}` : `${p.host.label}: ${p.error}`))[0];
    await showError(ctx, `${vscode.l10n.t('{0} on {1} ({2}): nothing to apply.', fixId, fleet.name, node.group.label)} ${first}`);
    return;
  }
  if (text.split('\n').length > LONG_PLAN_LINES) await ctx.plans.open(fleet.name, fixId, text);
  const apply = vscode.l10n.t('Apply');
  const applyStop = vscode.l10n.t('Apply, stop on first failure');
  const question =
    ready.length === 1
      ? vscode.l10n.t('Apply {0} on 1 host of {1}?', fixId, fleet.name)
      : vscode.l10n.t('Apply {0} on {1} hosts of {2}?', fixId, ready.length, fleet.name);
  const answer = await vscode.window.showWarningMessage(question, { modal: true, detail: text }, apply, applyStop);
  if (answer === undefined) {
    ctx.log.info(`${fleet.name}: ${fixId} not applied: nothing was changed`);
    return;
  }
  const results = await withNotificationProgress(
    vscode.l10n.t('Applying {0} on {1} hosts of {2}', fixId, ready.length, fleet.name),
    false,
    () =>
      applyToGroup(ready, {
        limit: answer === applyStop ? 1 : limit,
        sudo: sharedSudo(ctx, ready),
        apply: (host, plan, sudo) =>
          ctx.diagnoser.withConnection(host, (conn) =>
            runWithSudo(plan, sshFixSession(conn, host.destination as string), marker, sudo, sudoRoute(host.id, conn.target)),
          ),
      }),
  );
  for (const a of results) {
    if (a.result) logFixResult(ctx, a.result);
    else ctx.log.error(`${a.host.label}: ${fixId}: ${a.error}`);
  }
  await summarize(ctx, fleet.name, fixId, results);
  const changed = results.filter((r) => r.result && r.result.steps.length > 0).map((r) => r.host.label);
  if (changed.length > 0) await diagnoseFleet(ctx, fleet, changed);
}

/**
 * A group's host as a fix reaches it: over direct SSH, the host of the Hosts view; behind a login
 * node, through that node as a jump host (the relay that diagnosed it cannot carry sudo's prompt).
 */
function groupHost(ctx: Ctx, fleet: FleetConfig, host: string): HostEntry {
  if (fleet.via !== undefined)
    return { id: memberHostId(fleet, host), label: host, kind: 'ssh', origin: 'fleet', destination: host, jump: fleet.via };
  return ctx.model.get(sshHostId(host)) ?? { id: sshHostId(host), label: host, kind: 'ssh', origin: 'fleet', destination: host };
}

async function prepareOne(ctx: Ctx, host: HostEntry, fixId: FixId, marker: string): Promise<Prepared> {
  try {
    const plan = await ctx.diagnoser.withConnection(host, (conn) =>
      prepareFix(sshFixSession(conn, host.destination as string), fixId, marker),
    );
    return { host, plan };
  } catch (e) {
    return { host, error: classifyConnectError(host.label, e).message };
  }
}

/** One password box for the whole group, however many hosts ask (answers shared, never logged). */
function sharedSudo(ctx: Ctx, ready: readonly (Prepared & { plan: FixPlan })[]): SudoDeps {
  const needing = ready.filter((p) => p.plan.privilege === 'sudo-password');
  let asked: Promise<AskedPassword | null> | undefined;
  return {
    secrets: ctx.extension.secrets,
    ask: (retry) => (asked ??= askSudoPassword(needing[0]?.plan.user ?? '', foldHostList(needing.map((p) => p.host.label)), retry)),
    note: (m) => ctx.log.info(m),
  };
}

/** "load-peermem on fleet lab: 3 applied", or with what failed, and Show Log. */
async function summarize(ctx: Ctx, fleet: string, fixId: FixId, results: readonly Applied[]): Promise<void> {
  const word = (a: Applied) => a.result?.status ?? (a.notRun ? 'not run' : 'not reached');
  const counts = new Map<string, string[]>();
  for (const a of results) counts.set(word(a), [...(counts.get(word(a)) ?? []), a.host.label]);
  const parts = [...counts].map(([w, hosts]) => `${hosts.length} ${outcomeWord(w)}${w === 'applied' ? '' : ` (${foldHostList(hosts)})`}`);
  const message = vscode.l10n.t('{0} on fleet {1}: {2}', fixId, fleet, parts.join(' · '));
  const bad = results.filter((a) => word(a) !== 'applied' && word(a) !== 'nothing-to-do');
  ctx.log.info(message);
  if (bad.length === 0) void notifyWithLog('info', message, ctx.log);
  else
    void notifyWithLog(
      'error',
      `${message}. ${bad[0].host.label}: ${(bad[0].result?.message ?? bad[0].error ?? '').split('\n')[0]}`,
      ctx.log,
    );
}

/** A host's outcome as the summary says it (the key is a FixResult status, or why nothing ran). */
function outcomeWord(key: string): string {
  const words: Record<string, () => string> = {
    applied: () => vscode.l10n.t('applied'),
    'nothing-to-do': () => vscode.l10n.t('nothing-to-do'),
    failed: () => vscode.l10n.t('failed'),
    refused: () => vscode.l10n.t('refused'),
    'not run': () => vscode.l10n.t('not run'),
    'not reached': () => vscode.l10n.t('not reached'),
  };
  return words[key]?.() ?? key;
}
