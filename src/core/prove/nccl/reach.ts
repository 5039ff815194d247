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
import { sshRunner } from '../../probe/sshRunner';
import type { SshConnection } from '../../ssh/connect';
import { exec } from '../../ssh/exec';
import type { ProveShell } from '../direct';
import type { DiagnosedHost } from '../endpoints';
import { ncclTestsCheckCommand } from './check';
import type { NcclProveOptions } from './options';
import { MAX_NCCL_OUTPUT_BYTES } from './run';

export interface NcclReachRequest {
  readonly nodes: readonly string[];
  readonly via: string | null;
  readonly options: NcclProveOptions;
  readonly nccl: NcclAssumptions;
  /** Opens a connection to `destination`, through `jump` (as `ssh -J jump`) when given. */
  readonly connect: (destination: string, jump: string | null) => Promise<SshConnection>;
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
  /** Connections opened here that the caller did not own: closed when the proof ends. */
  readonly opened: readonly SshConnection[];
}

export function ncclShell(client: Client, host: string, address: string): ProveShell {
  return {
    host,
    address,
    run: (script, o) => exec(client, PROBE_REMOTE_COMMAND, { stdin: script, maxBytes: MAX_NCCL_OUTPUT_BYTES, ...o }),
  };
}

export async function reachNcclNodes(req: NcclReachRequest): Promise<ReachedNodes> {
  const commands = [...PROBE_COMMANDS, ncclTestsCheckCommand(req.options.op, req.options.testsDir)];
  if (req.via !== null && req.options.launcher === 'slurm') return viaSlurm(req, req.via, commands);
  const login = req.via === null ? null : await req.connect(req.via, null);
  const opened: SshConnection[] = login ? [login] : [];
  try {
    const conns: SshConnection[] = [];
    for (const n of req.nodes) {
      conns.push(await req.connect(n, req.via));
      opened.push(conns[conns.length - 1]);
    }
    const nodes = await Promise.all(
      conns.map(async (c, i) => {
        const runner = sshRunner(c.client, req.signal);
        const d = await diagnoseHost({ kind: 'runner', host: req.nodes[i], runner }, { commands, nccl: req.nccl, signal: req.signal });
        return { host: req.nodes[i], report: d.report, diagnosis: d.diagnosis };
      }),
    );
    const launcherConn = login ?? conns[0];
    return {
      nodes,
      launcher: ncclShell(launcherConn.client, req.via ?? req.nodes[0], launcherConn.target.hostname),
      launcherIsFirstNode: login === null,
      // mpirun on the first node reaches the others as their SSH HostName; on a login node, by the names given.
      launcherNames: login === null ? conns.map((c) => c.target.hostname) : [...req.nodes],
      user: launcherConn.target.user,
      opened,
    };
  } catch (e) {
    for (const c of opened) c.close();
    throw e;
  }
}

async function viaSlurm(req: NcclReachRequest, via: string, commands: readonly ProbeCommandSpec[]): Promise<ReachedNodes> {
  const login = await req.connect(via, null);
  try {
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
      opened: [login],
    };
  } catch (e) {
    login.close();
    throw e;
  }
}
