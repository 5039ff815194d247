// Diagnose Fleet: every host of a fleet at once, over direct SSH (fanOut, at most
// gdrDoctor.maxConcurrentHosts at a time) or through the fleet's login node (srun, pdsh or clush over
// one pooled SSH connection, host key checked as for any host). One cancellable progress
// notification ("12/64 hosts": hosts ended, through a login node the nodes whose stream ended), the
// status-bar item while it runs; cancel aborts the fan-out, which stops the remote commands. Results
// go to the fleet model (grouping) and, per host, to the host model, so a host under its group
// expands like any host.
import * as vscode from 'vscode';
import { fanOut } from '../../core/fleet/fanout';
import { fleetSummaryLine } from '../../core/fleet/grouping';
import { expandHostList } from '../../core/parsers/hostlist';
import type { Client } from 'ssh2';
import { detectRelayTools, diagnoseViaLoginNode, preferredRelayTool, RELAY_COMMANDS, type RelayTool } from '../../core/fleet/relay';
import type { FleetHostResult } from '../../core/fleet/types';
import { classifyConnectError } from '../../core/ssh/errors';
import { readSettings } from '../config';
import { Ctx, showError } from '../context';
import { HostEntry, sshHostId } from '../hosts/hostModel';
import { inputBoxPrompts } from '../ssh/inputBoxPrompts';
import { memberHostId, outcomeOf } from './fleetMembers';
import { FleetConfig } from './fleetSettings';
import { vscodeProbeHost } from './probeHost';
import { notifyInfo, withNotificationProgress } from '../notify';
import { errorText } from '../../core/errorText';
import { ContextKeys } from '../../constants';
import { failureNotice } from '../hosts/failureNotice';
import { showFailureNotice } from '../hosts/failureActions';

/**
 * Diagnoses the fleet, or only `only` of its hosts (after a quick fix); those results replace the
 * hosts' previous ones. Returns undefined when it could not run (already running, login node down).
 */
export async function diagnoseFleet(ctx: Ctx, fleet: FleetConfig, only?: readonly string[]): Promise<FleetHostResult[] | undefined> {
  if (ctx.fleets.state(fleet.name).running) {
    void notifyInfo(vscode.l10n.t('Fleet {0} is being diagnosed already.', fleet.name));
    return undefined;
  }
  const hosts = only ? [...only] : expandHostList(fleet.hosts);
  const label = `fleet ${fleet.name}`;
  const title = only
    ? vscode.l10n.t('Diagnosing {0} host(s) of fleet {1}', hosts.length, fleet.name)
    : vscode.l10n.t('Diagnosing fleet {0}', fleet.name);
  let probed: FleetHostResult[] | undefined;
  const route = fleet.via === undefined ? 'over direct SSH' : `through ${fleet.via} with ${fleet.with ?? 'the tool it offers'}`;
  ctx.log.info(`${label}: diagnosing ${hosts.length} host(s) ${route}`);
  await withNotificationProgress(title, true, async (progress, token) => {
    const abort = new AbortController();
    const cancel = token.onCancellationRequested(() => abort.abort());
    let done = 0;
    const report = () => {
      ctx.fleets.setRunning(fleet.name, { done, total: hosts.length });
      progress.report({ message: vscode.l10n.t('{0}/{1} hosts', done, hosts.length) });
    };
    ctx.work.begin(label);
    report();
    try {
      probed =
        fleet.via === undefined
          ? await fanOut({
              hosts,
              probeHost: vscodeProbeHost(readSettings(), inputBoxPrompts(), ctx.log),
              concurrency: readSettings().maxConcurrentHosts,
              nccl: readSettings().nccl,
              signal: abort.signal,
              onResult: (r) => {
                done++;
                logResult(ctx, label, r);
                report();
              },
            })
          : await viaLoginNode(ctx, fleet, only, abort.signal, (ended) => {
              done = Math.min(ended, hosts.length);
              report();
            });
    } catch (e) {
      await showError(ctx, `${label}: ${fleet.via !== undefined ? classifyConnectError(fleet.via, e).message : errorText(e)}`);
    } finally {
      cancel.dispose();
      ctx.work.end(label);
      ctx.fleets.setRunning(fleet.name, undefined);
    }
  });
  if (!probed) return undefined;
  record(ctx, fleet, probed, only !== undefined);
  ctx.keys.set(ContextKeys.fleetDiagnosed, true);
  notifyFailures(ctx, fleet, probed);
  return probed;
}

/** Hosts of the fleet that could not be diagnosed, told as a host's failure is (failureNotice). */
function notifyFailures(ctx: Ctx, fleet: FleetConfig, probed: readonly FleetHostResult[]): void {
  const failed = probed.filter((r) => r.status === 'unreachable' || (r.status === 'timed-out' && !r.report));
  const notice = failureNotice(
    probed.length,
    failed.map((r) => ({ host: r.host, message: r.error?.message ?? `${r.host}: ${r.status}` })),
    fleet.name,
  );
  if (!notice) return;
  void showFailureNotice(notice, { log: ctx.log, ssh: true, retry: (hosts) => diagnoseFleet(ctx, fleet, hosts) });
}

/** Through the login node: one pooled connection (connected, host key checked, like any host). */
async function viaLoginNode(
  ctx: Ctx,
  fleet: FleetConfig,
  only: readonly string[] | undefined,
  signal: AbortSignal,
  onNodeEnded: (count: number) => void,
): Promise<FleetHostResult[]> {
  const via = fleet.via as string;
  const login: HostEntry = { id: sshHostId(via), label: via, kind: 'ssh', origin: 'fleet', destination: via };
  // Cancelled while connecting (or at a prompt): drop the connection being opened.
  const onAbort = () => ctx.diagnoser.disconnect(login);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const results = await ctx.diagnoser.withConnection(login, async (conn) => {
      signal.removeEventListener('abort', onAbort);
      const tool = fleet.with ?? (await detectTool(ctx, fleet, conn.client, signal));
      return diagnoseViaLoginNode(conn.client, {
        tool,
        loginHost: via,
        nodes: only ? only.join(',') : fleet.hosts,
        partition: tool === 'slurm' ? fleet.partition : undefined,
        concurrency: readSettings().maxConcurrentHosts,
        nccl: readSettings().nccl,
        signal,
        onNodeEnded,
        onRefusedNode: (line) => ctx.log.error(`fleet ${fleet.name}: ${line}`),
      });
    });
    for (const r of results) logResult(ctx, `fleet ${fleet.name}`, r);
    return results;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** A fleet without `with`: the preferred tool the login node offers (as the CLI without --with). */
async function detectTool(ctx: Ctx, fleet: FleetConfig, client: Client, signal: AbortSignal): Promise<RelayTool> {
  const found = await detectRelayTools(client, signal);
  const tool = preferredRelayTool(found);
  if (tool === undefined)
    throw new Error(
      vscode.l10n.t(
        '{0} has none of {1} on its PATH: set "with" for fleet {2}, or diagnose its hosts directly',
        fleet.via ?? '',
        RELAY_COMMANDS,
        fleet.name,
      ),
    );
  ctx.log.info(`fleet ${fleet.name}: through ${fleet.via} with ${tool} (found: ${found.join(', ')})`);
  return tool;
}

function logResult(ctx: Ctx, label: string, r: FleetHostResult): void {
  const findings = r.diagnosis?.findings.filter((f) => f.severity !== 'info').map((f) => f.id) ?? [];
  ctx.log.info(
    `${label}: ${r.host}: ${r.status}${findings.length > 0 ? ` (${findings.join(', ')})` : ''}${r.error ? `: ${r.error.message}` : ''} in ${r.durationMs} ms`,
  );
}

/** Into the fleet model (grouping, fleet findings), then each host's outcome into the host model. */
function record(ctx: Ctx, fleet: FleetConfig, probed: readonly FleetHostResult[], partial: boolean): void {
  if (partial) ctx.fleets.updateHosts(fleet.name, probed);
  else ctx.fleets.setResults(fleet.name, probed);
  const state = ctx.fleets.state(fleet.name);
  const finishedAt = state.finishedAt ?? new Date();
  const probedHosts = new Set(probed.map((r) => r.host));
  for (const r of (state.results ?? []).filter((x) => !partial || probedHosts.has(x.host))) {
    const outcome = outcomeOf(r, finishedAt);
    if (outcome) ctx.model.setOutcome(memberHostId(fleet, r.host), outcome);
  }
  ctx.log.info(`fleet ${fleet.name}: ${fleetSummaryLine([...(state.groups ?? [])])}`);
}
