// Reaching the nodes of a proof with NCCL and the host that launches it (docs/nccl-tests.md §3): directly
// (each node over SSH; mpirun starts on the first node and reaches the others over their own SSH trust),
// through a login node with Slurm (the nodes probed by srun there, srun launches), or through a login node
// with mpirun (each node over SSH through the login node, mpirun launches there). The caller says how it
// opens a connection (the CLI's own, the extension's pool); the probe adds the nccl-tests check.
import type { Client } from 'ssh2';
import type { NcclAssumptions } from '../../diagnosis';
import { diagnoseViaLoginNode } from '../../fleet/relay';
import { diagnoseHost } from '../../host/diagnoseHost';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../../probe/commands';
import { PROBE_REMOTE_COMMAND } from '../../probe/script';
import { sshRunner } from '../../transport';
import type { SshConnection } from '../../ssh/connect';
import { exec } from '../../ssh/exec';
import type { ProveShell } from '../direct';
import type { DiagnosedHost } from '../endpoints';
import { ncclTestsCheckCommand } from './check';
import type { NcclProveOptions } from './options';
import { MAX_NCCL_OUTPUT_BYTES } from './run';

/** Runs `work` on a connection to `destination` (through `jump`, as `ssh -J jump`, when given); the caller's own or pooled. */
export type UseConnection = <T>(destination: string, jump: string | null, work: (conn: SshConnection) => Promise<T>) => Promise<T>;

export interface NcclReachRequest {
  readonly nodes: readonly string[];
  readonly via: string | null;
  readonly options: NcclProveOptions;
  readonly nccl: NcclAssumptions;
  readonly use: UseConnection;
  readonly signal?: AbortSignal;
}

export interface ReachedNodes {
  readonly nodes: DiagnosedHost[];
  readonly launcher: ProveShell;
  readonly launcherIsFirstNode: boolean;
  /** How the launcher names each node. */
  readonly launcherNames: string[];
  /** The login user where the launcher runs, for the audit log. */
  readonly user: string | null;
}

export function ncclShell(client: Client, host: string, address: string): ProveShell {
  return {
    host,
    address,
    run: (script, o) => exec(client, PROBE_REMOTE_COMMAND, { stdin: script, maxBytes: MAX_NCCL_OUTPUT_BYTES, ...o }),
  };
}

/** Connections to every destination at once, each through `jump` (nested scopes: all are released when `work` ends). */
function useAll<T>(
  use: UseConnection,
  dests: readonly string[],
  jump: string | null,
  work: (conns: SshConnection[]) => Promise<T>,
): Promise<T> {
  const step = (i: number, got: SshConnection[]): Promise<T> =>
    i === dests.length ? work(got) : use(dests[i], jump, (c) => step(i + 1, [...got, c]));
  return step(0, []);
}

/** Reaches and probes the nodes, then runs `work` while the connections are held. */
export function withNcclNodes<T>(req: NcclReachRequest, work: (reached: ReachedNodes) => Promise<T>): Promise<T> {
  const commands = [...PROBE_COMMANDS, ncclTestsCheckCommand(req.options.op, req.options.testsDir)];
  if (req.via !== null && req.options.launcher === 'slurm') {
    const via = req.via;
    return req.use(via, null, async (login) => work(await viaSlurm(req, via, login, commands)));
  }
  const direct = (login: SshConnection | null) =>
    useAll(req.use, req.nodes, req.via, async (conns) => {
      const nodes = await Promise.all(
        conns.map(async (c, i) => {
          const runner = sshRunner(c.client, req.signal);
          const d = await diagnoseHost({ kind: 'runner', host: req.nodes[i], runner }, { commands, nccl: req.nccl, signal: req.signal });
          return { host: req.nodes[i], report: d.report, diagnosis: d.diagnosis };
        }),
      );
      const launcherConn = login ?? conns[0];
      return work({
        nodes,
        launcher: ncclShell(launcherConn.client, req.via ?? req.nodes[0], launcherConn.target.hostname),
        launcherIsFirstNode: login === null,
        // mpirun on the first node reaches the others as their SSH HostName; on a login node, by the names given.
        launcherNames: login === null ? conns.map((c) => c.target.hostname) : [...req.nodes],
        user: launcherConn.target.user,
      });
    });
  return req.via === null ? direct(null) : req.use(req.via, null, (login) => direct(login));
}

async function viaSlurm(
  req: NcclReachRequest,
  via: string,
  login: SshConnection,
  commands: readonly ProbeCommandSpec[],
): Promise<ReachedNodes> {
  const results = await diagnoseViaLoginNode(login.client, {
    tool: 'slurm',
    loginHost: via,
    nodes: req.nodes.join(','),
    partition: req.options.partition,
    commands,
    nccl: req.nccl,
    signal: req.signal,
  });
  const nodes = req.nodes.map((n): DiagnosedHost => {
    const r = results.find((x) => x.host === n);
    if (!r?.report || !r.diagnosis) throw new Error(`${n}: not probed through ${via}: ${r?.error?.message ?? 'no result'}`);
    return { host: n, report: r.report, diagnosis: r.diagnosis };
  });
  return {
    nodes,
    launcher: ncclShell(login.client, via, login.target.hostname),
    launcherIsFirstNode: false,
    launcherNames: [...req.nodes],
    user: login.target.user,
  };
}
