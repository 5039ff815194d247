// Prove GPUDirect RDMA (docs/perftest.md), as `gdr-doctor prove` runs it from a terminal: on a host
// (every GPU), a GPU row (that GPU), or two selected hosts (between them). The hosts are probed over
// their pooled connections (the fresh diagnosis replaces the tree's), busy GPUs asked about in a
// modal, and the measurements run under one cancellable progress notification: cancel stops
// perftest on every host. The proof goes to the host's "Proof" group, the log and the audit log.
import * as vscode from 'vscode';
import { BusyGpu, busyText, DEFAULT_PROVE_OPTIONS, DiagnosedHost, Executor, ProofReport, ProveOptions, runProof } from '../../core/prove';
import { appendProofAudit } from '../../core/prove/audit';
import { directExecutor, newRunTag, sshProveShell } from '../../core/prove/direct';
import { gpuIndex } from '../../core/prove/endpoints';
import { probeForProof } from '../../core/prove/probe';
import { formatProof } from '../../core/prove/text';
import { sshRunner } from '../../core/transport';
import type { SshConnection } from '../../core/ssh/connect';
import { classifyConnectError } from '../../core/ssh/errors';
import { errorText } from '../../core/errorText';
import { readSettings } from '../config';
import { Ctx, showError, targetHosts } from '../context';
import { HostEntry } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { notifyInfo, notifyWithLog, withAbortableProgress } from '../notify';
import { measuredProgress, Progress, proveRelayed, relayedPair } from './proveRelayed';

export async function proveCommand(ctx: Ctx, clicked?: HostsNode, selected?: readonly HostsNode[]): Promise<void> {
  const nodes = selected && selected.length > 0 ? selected : clicked ? [clicked] : [];
  const gpus = nodes.flatMap((n) => (n.kind === 'gpu' ? [gpuIndex(n.pair.gpu)] : [])).filter((i): i is number => i !== null);
  const options: ProveOptions = { ...DEFAULT_PROVE_OPTIONS, gpus: gpus.length > 0 ? [...new Set(gpus)] : null };
  const relayed = relayedPair(ctx, nodes);
  if (relayed) return finish(ctx, relayed.hostId, await proveRelayed(ctx, relayed, options, (busy) => confirmBusy(busy)));
  const hosts = await targetHosts(ctx, clicked, selected, {
    many: true,
    title: vscode.l10n.t('Prove GPUDirect RDMA on which host? (Two: between them.)'),
    filter: (h) => h.destination !== undefined,
  });
  if (hosts.length === 0) return;
  if (hosts.length > 2) {
    void notifyInfo(
      vscode.l10n.t('Prove GPUDirect RDMA measures one host (between its ports) or two hosts (between them): select one or two.'),
    );
    return;
  }
  const local = hosts.find((h) => h.destination === undefined);
  if (local) {
    void notifyInfo(
      vscode.l10n.t(
        'Prove GPUDirect RDMA runs over SSH; {0} is not an SSH host. From a terminal on it: {1}',
        local.label,
        "gdr-doctor prove <this host's SSH name>",
      ),
    );
    return;
  }
  const [host, peer] = hosts;
  const title = peer
    ? vscode.l10n.t('Proving GPUDirect RDMA between {0} and {1}', host.label, peer.label)
    : vscode.l10n.t('Proving GPUDirect RDMA on {0}', host.label);
  const report = await withAbortableProgress(title, (progress, signal) =>
    proveOverSsh(ctx, host, peer ?? null, options, progress, signal),
  ).then(
    (r) => r,
    (e: unknown) => {
      void showError(ctx, vscode.l10n.t('Prove GPUDirect RDMA on {0}: {1}', host.label, classifyConnectError(host.label, e).message));
      return undefined;
    },
  );
  if (report) await finish(ctx, host.id, report);
}

function proveOverSsh(
  ctx: Ctx,
  host: HostEntry,
  peer: HostEntry | null,
  options: ProveOptions,
  progress: Progress,
  signal: AbortSignal,
): Promise<ProofReport> {
  return withConnections(ctx, peer ? [host, peer] : [host], async (conns) => {
    progress.report({ message: vscode.l10n.t('checking the hosts (one probe each)…') });
    const diagnosed = await Promise.all(conns.map((c, i) => probe(ctx, [host, peer as HostEntry][i], c, signal)));
    const shells = conns.map((c, i) => sshProveShell(c.client, diagnosed[i].host, c.target.hostname));
    const execute: Executor = directExecutor(shells[0], shells[1] ?? null, {
      tag: newRunTag(),
      sizeBytes: options.sizeBytes,
      durationS: options.durationS,
    });
    return runProof({
      host: diagnosed[0],
      peer: diagnosed[1] ?? null,
      options,
      execute,
      signal,
      confirmBusy,
      onProgress: measuredProgress(progress),
    });
  });
}

/** Runs `work` on the pooled connections of one or two hosts. */
function withConnections<T>(ctx: Ctx, hosts: readonly HostEntry[], work: (conns: SshConnection[]) => Promise<T>): Promise<T> {
  const [first, second] = hosts;
  return ctx.diagnoser.withConnection(first, (a) => (second ? ctx.diagnoser.withConnection(second, (b) => work([a, b])) : work([a])));
}

/** The proof's probe; its diagnosis replaces the host's in the tree (the raw outputs include perftest's check). */
async function probe(ctx: Ctx, host: HostEntry, conn: SshConnection, signal: AbortSignal): Promise<DiagnosedHost> {
  const d = await probeForProof(sshRunner(conn.client, signal), host.destination ?? host.label, readSettings().nccl);
  if (!signal.aborted)
    ctx.model.setOutcome(host.id, {
      kind: 'diagnosed',
      report: d.report,
      diagnosis: d.diagnosis,
      target: conn.target,
      finishedAt: new Date(),
    });
  return d;
}

/** A modal: the busy GPUs and their processes; measuring loads the link and the GPU. */
async function confirmBusy(busy: readonly BusyGpu[]): Promise<boolean> {
  const detail = `${busy.map(busyText).join('\n')}\n\n${vscode.l10n.t("The measurement loads the GPU's link and the GPU itself while these processes run.")}`;
  const measure = vscode.l10n.t('Measure');
  return (
    (await vscode.window.showWarningMessage(
      vscode.l10n.t('GPUs to measure are busy. Measure anyway?'),
      { modal: true, detail },
      measure,
    )) === measure
  );
}

/** The proof into the tree, the log and the audit log; a notification sums it up. */
async function finish(ctx: Ctx, hostId: string, report: ProofReport | undefined): Promise<void> {
  if (!report) return;
  ctx.model.setProof(hostId, report);
  ctx.log.info(`proof:\n${formatProof(report)}`);
  try {
    const logged = appendProofAudit(report, null);
    if (logged) ctx.log.info(`recorded in ${logged}`);
  } catch (e) {
    ctx.log.warn(`could not append to the audit log: ${errorText(e)}`);
  }
  const where = report.peer ? `${report.host} ↔ ${report.peer}` : report.host;
  if (report.status === 'refused') {
    await notifyWithLog(
      'error',
      vscode.l10n.t('Prove GPUDirect RDMA on {0}: nothing was run. {1}', where, report.refusals.join(' ')),
      ctx.log,
    );
    return;
  }
  const worked = report.gpus.filter((g) => g.tone === 'ok' || g.tone === 'warning');
  const head =
    report.gpus.length === 1
      ? vscode.l10n.t('{0}: GPUDirect RDMA works on {1} of 1 GPU', where, worked.length)
      : vscode.l10n.t('{0}: GPUDirect RDMA works on {1} of {2} GPUs', where, worked.length, report.gpus.length);
  const stopped = report.status === 'measured' ? '' : vscode.l10n.t(' ({0}: perftest was stopped on every host)', report.status);
  const first = report.gpus.find((g) => g.tone === 'error') ?? report.gpus[0];
  await notifyWithLog(
    worked.length === report.gpus.length && stopped === '' ? 'info' : 'error',
    `${head}${stopped}. ${first ? `${first.gpu}: ${first.verdict}` : ''}`,
    ctx.log,
  );
}
