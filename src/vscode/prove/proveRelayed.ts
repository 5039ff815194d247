// Prove GPUDirect RDMA between two nodes of a fleet reached through a login node: one SSH connection
// to the login node (pooled like any host's); Slurm probes both nodes and runs the measurements as
// one srun step on the two (core/prove/slurm.ts). pdsh and clush have no steps: such fleets are told so.
import type * as vscode from 'vscode';
import { BusyGpu, ProofReport, ProveOptions, runProof } from '../../core/prove';
import { newRunTag } from '../../core/prove/direct';
import { probeViaSlurm, slurmExecutor, SlurmNodes } from '../../core/prove/slurm';
import { classifyConnectError } from '../../core/ssh/errors';
import { readSettings } from '../config';
import { Ctx, showError } from '../context';
import { isRelayedHostId } from '../fleet/fleetMembers';
import { FleetConfig } from '../fleet/fleetSettings';
import { HostEntry, sshHostId } from '../hosts/hostModel';
import type { HostsNode } from '../tree/nodes';
import { notifyInfo, withAbortableProgress } from '../notify';
import { t } from '../../core/l10n';

export type Progress = vscode.Progress<{ message?: string; increment?: number }>;

/** The notification counts measurements as they end. */
export function measuredProgress(progress: Progress): (done: number, total: number, what: string) => void {
  return (done, total, what) => progress.report({ increment: 100 / total, message: t('{0} measured ({1} of {2})', what, done, total) });
}

export interface RelayedPair {
  /** The measured node's host id (its proof shows there). */
  readonly hostId: string;
  readonly fleet: FleetConfig;
  readonly host: string;
  readonly peer: string;
}

/** Two selected nodes of one fleet behind a login node; undefined for anything else (said when it is a near miss). */
export function relayedPair(ctx: Ctx, nodes: readonly HostsNode[]): RelayedPair | undefined {
  const ids = [...new Set(nodes.map((n) => n.hostId))].filter(isRelayedHostId);
  if (ids.length === 0) return undefined;
  const parts = ids.map((id) => /^fleet:(.+)\/([^/]+)$/.exec(id)).filter((m): m is RegExpExecArray => m !== null);
  const fleet = ctx.fleets.get(parts[0]?.[1] ?? '');
  if (ids.length !== 2 || parts.length !== 2 || parts[0][1] !== parts[1][1] || !fleet?.via) {
    void notifyInfo(t('Through a login node, Prove GPUDirect RDMA measures between two nodes of one fleet: select two of its hosts.'));
    return undefined;
  }
  return { hostId: ids[0], fleet, host: parts[0][2], peer: parts[1][2] };
}

export async function proveRelayed(ctx: Ctx, pair: RelayedPair, options: ProveOptions, confirmBusy: (busy: readonly BusyGpu[]) => Promise<boolean>): Promise<ProofReport | undefined> {
  const via = pair.fleet.via as string;
  if (pair.fleet.with !== undefined && pair.fleet.with !== 'slurm') {
    void notifyInfo(t('{0} reaches its nodes with {1}; a proof through {2} needs Slurm (one srun step on both nodes).', pair.fleet.name, pair.fleet.with, via));
    return undefined;
  }
  const login: HostEntry = { id: sshHostId(via), label: via, kind: 'ssh', origin: 'fleet', destination: via };
  const nodes: SlurmNodes = { login: via, host: pair.host, peer: pair.peer, partition: pair.fleet.partition };
  return withAbortableProgress(t('Proving GPUDirect RDMA between {0} and {1} through {2}', pair.host, pair.peer, via), (progress, signal) =>
    ctx.diagnoser.withConnection(login, async (conn) => {
      progress.report({ message: t('checking both nodes (one srun step)…') });
      const [a, b] = await probeViaSlurm(conn.client, nodes, readSettings().nccl, signal);
      return runProof({
        host: a, peer: b, via, options, signal, confirmBusy, onProgress: measuredProgress(progress),
        execute: slurmExecutor(conn.client, nodes, { tag: newRunTag(), sizeBytes: options.sizeBytes, durationS: options.durationS }),
      });
    })).then((r) => r, async (e: unknown) => {
    await showError(ctx, t('Prove GPUDirect RDMA through {0}: {1}', via, classifyConnectError(via, e).message));
    return undefined;
  });
}
