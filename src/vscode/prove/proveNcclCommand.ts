// Prove with NCCL (docs/nccl-tests.md), as `gdr-doctor prove --nccl` runs it from a terminal: on two or
// more selected SSH hosts (mpirun on the first, over the nodes' own SSH trust) or relayed nodes of one
// fleet (srun through its login node; mpirun there for a pdsh or clush fleet). The nodes are reached over
// their pooled connections, busy GPUs asked about in a modal, and the run goes under one cancellable
// progress notification: cancel stops every rank on every node. The proof opens as a read-only document
// beside the editor; the verdict goes to a notification, the log and the audit log.
import * as vscode from 'vscode';
import type { BusyGpu } from '../../core/prove';
import { busyText } from '../../core/prove';
import { DEFAULT_NCCL_PROVE_OPTIONS, NcclProofReport, NcclProveOptions, runNcclProof } from '../../core/prove/nccl';
import { UseConnection, withNcclNodes } from '../../core/prove/nccl/reach';
import { appendNcclProofAudit, formatNcclProof } from '../../core/prove/nccl/text';
import { classifyConnectError } from '../../core/ssh/errors';
import { errorText } from '../../core/errorText';
import { readSettings } from '../config';
import { Ctx, showError } from '../context';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { HostEntry, sshHostId } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { notifyInfo, notifyWithLog, withAbortableProgress } from '../notify';
import type { ReadOnlyTexts } from '../ncclTests/texts';

interface Target {
  readonly nodes: string[];
  readonly via: string | null;
  readonly launcher: NcclProveOptions['launcher'];
  readonly partition?: string;
  /** The hosts' entries by destination (their pooled connections); nodes behind a login node are made on the fly. */
  readonly entries: ReadonlyMap<string, HostEntry>;
}

function targetOf(ctx: Ctx, nodes: readonly HostsNode[]): Target | undefined {
  const ids = [...new Set(nodes.map((n) => n.hostId))];
  const relayed = ids.filter(isRelayedHostId);
  if (relayed.length > 0) {
    const parts = relayed.map((id) => /^fleet:(.+)\/([^/]+)$/.exec(id)).filter((m): m is RegExpExecArray => m !== null);
    const fleet = ctx.fleets.get(parts[0]?.[1] ?? '');
    if (relayed.length < 2 || relayed.length !== ids.length || parts.some((p) => p[1] !== parts[0][1]) || !fleet?.via) {
      void notifyInfo(vscode.l10n.t('Through a login node, Prove with NCCL runs on two or more nodes of one fleet: select them.'));
      return undefined;
    }
    const launcher = fleet.with === 'pdsh' || fleet.with === 'clush' ? 'mpirun' : 'slurm';
    return { nodes: parts.map((p) => p[2]), via: fleet.via, launcher, partition: fleet.partition, entries: new Map() };
  }
  const hosts = ids.map((id) => ctx.model.get(id)).filter((h): h is HostEntry => h?.destination !== undefined);
  if (hosts.length < 2 || hosts.length !== ids.length) {
    void notifyInfo(vscode.l10n.t('Prove with NCCL runs nccl-tests across two or more SSH hosts: select them in the Hosts view.'));
    return undefined;
  }
  return {
    nodes: hosts.map((h) => h.destination as string),
    via: null,
    launcher: 'mpirun',
    entries: new Map(hosts.map((h) => [h.destination as string, h])),
  };
}

export async function proveNcclCommand(
  ctx: Ctx,
  texts: ReadOnlyTexts,
  clicked?: HostsNode,
  selected?: readonly HostsNode[],
): Promise<void> {
  const target = targetOf(ctx, selected && selected.length > 0 ? selected : clicked ? [clicked] : []);
  if (!target) return;
  const settings = readSettings();
  const options: NcclProveOptions = {
    ...DEFAULT_NCCL_PROVE_OPTIONS,
    launcher: target.launcher,
    testsDir: settings.ncclTestsDir,
    ...(target.partition ? { partition: target.partition } : {}),
  };
  const use: UseConnection = (destination, jump, work) => {
    const entry = target.entries.get(destination) ?? {
      id: sshHostId(destination),
      label: destination,
      kind: 'ssh',
      origin: 'fleet',
      destination,
      ...(jump ? { jump } : {}),
    };
    return ctx.diagnoser.withConnection(entry, work);
  };
  const title = vscode.l10n.t('Proving with NCCL on {0}', target.nodes.join(', '));
  const report = await withAbortableProgress(title, (progress, signal) =>
    withNcclNodes({ nodes: target.nodes, via: target.via, options, nccl: settings.nccl, signal, use }, (reached) => {
      progress.report({ message: vscode.l10n.t('{0} nodes checked; nccl-tests runs…', reached.nodes.length) });
      // The run's probe is a fresh diagnosis: it replaces the tree's for the hosts listed there.
      for (const n of reached.nodes) {
        const entry = target.entries.get(n.host);
        if (entry) ctx.model.setOutcome(entry.id, { kind: 'diagnosed', report: n.report, diagnosis: n.diagnosis, finishedAt: new Date() });
      }
      return runNcclProof({ ...reached, via: target.via, options, nccl: settings.nccl, signal, confirmBusy });
    }),
  ).then(
    (r) => r,
    (e: unknown) => {
      void showError(
        ctx,
        vscode.l10n.t(
          'Prove with NCCL on {0}: {1}',
          target.nodes.join(', '),
          classifyConnectError(target.via ?? target.nodes[0], e).message,
        ),
      );
      return undefined;
    },
  );
  if (report) await finish(ctx, texts, report);
}

/** A modal: the busy GPUs and their processes; the run loads every GPU of the nodes. */
async function confirmBusy(busy: readonly BusyGpu[]): Promise<boolean> {
  const run = vscode.l10n.t('Run');
  const detail = `${busy.map(busyText).join('\n')}\n\n${vscode.l10n.t('nccl-tests loads these GPUs and their links while these processes run.')}`;
  return (
    (await vscode.window.showWarningMessage(vscode.l10n.t('GPUs to run NCCL on are busy. Run anyway?'), { modal: true, detail }, run)) ===
    run
  );
}

async function finish(ctx: Ctx, texts: ReadOnlyTexts, report: NcclProofReport): Promise<void> {
  const text = formatNcclProof(report);
  ctx.log.info(`proof with NCCL:\n${text}`);
  try {
    const logged = appendNcclProofAudit(report, null);
    if (logged) ctx.log.info(`recorded in ${logged}`);
  } catch (e) {
    ctx.log.warn(`could not append to the audit log: ${errorText(e)}`);
  }
  await texts.show(`NCCL proof ${report.nodes.join(' ')}`, text);
  const where = report.nodes.join(', ');
  const said =
    report.status === 'refused'
      ? vscode.l10n.t('Prove with NCCL on {0}: nothing was run. {1}', where, report.refusals.join(' '))
      : report.verdict
        ? `${where}: ${report.verdict.verdict}`
        : vscode.l10n.t('Prove with NCCL on {0}: {1}, no result', where, report.status);
  await notifyWithLog(report.verdict?.tone === 'ok' ? 'info' : 'error', said, ctx.log);
}
