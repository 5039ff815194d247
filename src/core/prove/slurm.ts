// A two-node proof through a login node with Slurm (docs/perftest.md §1): the nodes are probed as
// the relay probes them (one srun step, perftest's check included), then every measurement runs in
// one more srun step, one task per node: the peer's task serves, the host's task is the client. The
// login node's session owns srun: a cancel or the deadline TERMs it, and Slurm stops the step's
// tasks on both nodes (core/transport/relay/loginScript.ts RUN_TOOL).
import type { Client } from 'ssh2';
import { NcclAssumptions } from '../diagnosis';
import { diagnoseViaLoginNode } from '../fleet/relay';
import { RELAY_ENV as ENV, nodeCommand, RUN_TOOL } from '../transport';
import { exec } from '../ssh/exec';
import { PROBE_REMOTE_COMMAND } from '../probe/script';
import { shQuote } from '../shellText';
import { candidatePorts, ShellRun, sideRuns } from './direct';
import { DiagnosedHost } from './endpoints';
import type { Executor } from './index';
import { Measurement } from './plan';
import { PROOF_PROBE_COMMANDS } from './probe';
import { ScriptContext, ScriptEvent, ScriptEventReader, slurmNodeScript } from './scripts';
import { t } from '../l10n';

// srun's options for the two tasks of one proof, one per node, each with the GPUs it asked for.
const TWO_TASKS = '--nodes=2 --ntasks=2 --ntasks-per-node=1 ${GP:+--gres=gpu:$GP} --label --kill-on-bad-exit=0 --job-name=gdr-doctor-prove';

export interface SlurmNodes {
  readonly login: string;
  /** The measured node (the client) and its peer (the server), as Slurm names them. */
  readonly host: string;
  readonly peer: string;
  readonly partition?: string;
}

const PARTITION = /^[A-Za-z0-9._-]{1,128}$/;
const NODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function checkNodes(n: SlurmNodes): void {
  for (const node of [n.host, n.peer]) if (!NODE.test(node)) throw new Error(`not a Slurm node name: ${JSON.stringify(node)}`);
  if (n.host === n.peer) throw new Error('a Slurm proof needs two different nodes');
  if (n.partition !== undefined && !PARTITION.test(n.partition))
    throw new Error(`not a Slurm partition name: ${JSON.stringify(n.partition)}`);
}

/** Both nodes probed for a proof through the login node; a node that could not be probed is an error naming it. */
export async function probeViaSlurm(
  client: Client,
  n: SlurmNodes,
  nccl: NcclAssumptions,
  signal?: AbortSignal,
): Promise<[DiagnosedHost, DiagnosedHost]> {
  checkNodes(n);
  const results = await diagnoseViaLoginNode(client, {
    tool: 'slurm',
    loginHost: n.login,
    nodes: `${n.host},${n.peer}`,
    partition: n.partition,
    commands: PROOF_PROBE_COMMANDS,
    nccl,
    signal,
  });
  const of = (node: string): DiagnosedHost => {
    const r = results.find((x) => x.host === node);
    if (!r?.report || !r.diagnosis) throw new Error(`${node}: not probed through ${n.login}: ${r?.error?.message ?? 'no result'}`);
    return { host: node, report: r.report, diagnosis: r.diagnosis };
  };
  return [of(n.host), of(n.peer)];
}

/** Every measurement in one srun step on the two nodes; results as the tasks report them. */
export function slurmExecutor(client: Client, n: SlurmNodes, ctx: ScriptContext): Executor {
  checkNodes(n);
  return async (measurements, done, signal) => {
    const runs = measurements.map((m) => ({ m, port: candidatePorts(1)[0] }));
    const totalS = measurements.reduce((s, m) => s + m.limitS + 70, 0);
    const reported = new Set<string>();
    // Each line read once, as it arrives (events.ts); a measurement is done once both its tasks reported.
    const reader = new ScriptEventReader(ctx.tag);
    const onStdout = (chunk: Buffer) => {
      const before = reader.events.length;
      reader.pushBytes(chunk);
      if (reader.events.length === before) return;
      for (const m of measurements) {
        if (reported.has(m.id) || !ended(m, reader.events)) continue;
        reported.add(m.id);
        done(m, sideRuns(m, { ...ctx, signal }, reader.events, [], n.peer));
      }
    };
    const r = await exec(client, PROBE_REMOTE_COMMAND, {
      stdin: loginScript(ctx, n, runs, totalS),
      timeoutMs: (totalS + 60) * 1000,
      maxBytes: 64 * 1024 * 1024,
      signal,
      onStdout,
    });
    for (const m of measurements) if (!reported.has(m.id)) finishUnreported(m, reader.events, r, n, { ...ctx, signal }, done);
  };
}

/** The client reported, and so did the server, or it said it had no port (then it never reports). */
function ended(m: Measurement, events: readonly ScriptEvent[]): boolean {
  const mine = events.filter((e) => e.id === m.id);
  const reported = (role: string) => mine.some((e) => e.kind === 'R' && e.role === role);
  return reported('client') && (reported('server') || mine.some((e) => e.kind === 'N'));
}

function finishUnreported(
  m: Measurement,
  events: readonly ScriptEvent[],
  r: ShellRun,
  n: SlurmNodes,
  ctx: ScriptContext & { signal?: AbortSignal },
  done: Parameters<Executor>[1],
): void {
  const stopped = events.some((e) => e.id === m.id);
  if (!stopped && !ctx.signal?.aborted && !r.timedOut) {
    const srun =
      r.stderr.toString('utf8').trim() ||
      r.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => !l.includes(ctx.tag))
        .join('\n')
        .trim();
    done(m, {
      server: null,
      client: {
        exitCode: null,
        output: t('srun through {0} did not run this measurement: {1}', n.login, srun || `exit ${r.exitCode ?? '?'}`),
      },
      command: null,
    });
    return;
  }
  done(m, sideRuns(m, ctx, events, [r], n.peer));
}

/**
 * sh: `GP` = the GPUs per node to ask for, where the nodes have GPU GRES (sinfo %G: `gpu:8`,
 * `gpu:h100:8(S:0-1)`; the fewer of the two). A step gets only the devices it asks for: with
 * ConstrainDevices=yes (cgroup.conf) it cannot open /dev/nvidia* otherwise, and every GPU is asked for
 * so that the one measured is among them (it is named by PCI address, whatever CUDA_VISIBLE_DEVICES says).
 */
function gpuGresLine(nodes: string): string {
  return (
    `GP=; for g in $(sinfo -h -N -n ${shQuote(nodes)} -o %G 2>/dev/null | tr "," " "); do case $g in gpu*) c=\${g%%(*}; c=\${c##*:}; ` +
    'case $c in ""|*[!0-9]*) ;; *) if [ -z "$GP" ] || [ "$c" -lt "$GP" ]; then GP=$c; fi;; esac;; esac; done'
  );
}

/** The login node's script: one srun step on both nodes, asking for their GPUs where a GPU mode runs. */
export function loginScript(ctx: ScriptContext, n: SlurmNodes, runs: readonly { m: Measurement; port: number }[], totalS: number): string {
  const minutes = Math.max(1, Math.ceil(totalS / 60));
  const partition = n.partition !== undefined ? ` ${shQuote(`--partition=${n.partition}`)}` : '';
  const cmd = nodeCommand(slurmNodeScript(ctx, runs, n.peer));
  const gpus = runs.some((r) => r.m.mode !== 'host');
  return [
    ENV,
    `T=${shQuote(ctx.tag)}`,
    `C=${shQuote(cmd)}`,
    RUN_TOOL,
    ...(gpus ? [gpuGresLine(`${n.host},${n.peer}`)] : ['GP=']),
    `R srun${partition} --nodelist=${shQuote(`${n.host},${n.peer}`)} ${TWO_TASKS} --time=${minutes} --immediate=30 /bin/sh -c "$C"; rc=$?`,
    `printf '%s X %s\\n' "$T" "$rc"`,
    '',
  ].join('\n');
}
