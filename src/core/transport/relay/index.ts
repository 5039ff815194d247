// Reaching compute nodes through a login node: one SSH exec there runs the site's srun, pdsh or clush
// (tools.ts) with a login script (loginScript.ts) that runs the probe on every node, and what comes
// back is split per node as it arrives (demux.ts). Each node's stream that arrived is then a host
// source of its own (`relay` in ../index.ts). The run through it, each node diagnosed as its stream
// ends, is the fleet's (core/fleet/relay).
import type { Client } from 'ssh2';
import type { ProbeRunner } from '../../probe/runProbe';
import { PROBE_REMOTE_COMMAND } from '../../probe/script';
import type { ByteSink } from '../../probe/streamCaps';
import type { StreamCutBy } from '../../probe/streamBudget';
import { exec, ExecResult } from '../../ssh/exec';
import { RELAY_TOOLS, relayCommand, RelayTool } from './tools';
import { t } from '../../l10n';

export * from './tools';
export { ENV as RELAY_ENV, loginScript, nodeCommand, nodeKeys, RUN_TOOL } from './loginScript';
export { NodeStream, RelayDemux } from './demux';
export type { Contest } from './demux';

const C_LOCALE_WITH_SBIN = 'LC_ALL=C; export LC_ALL\nPATH=$PATH:/usr/sbin:/sbin; export PATH\n';
// One name per `command -v`: dash prints only the first of several.
const DETECT_SCRIPT = `${C_LOCALE_WITH_SBIN}for t in ${RELAY_TOOLS.map(relayCommand).join(' ')}; do command -v "$t"; done\n`;

/** The relay tools the login node has, from `command -v` (Slurm: srun), in the order of preference. */
export async function detectRelayTools(client: Client, signal?: AbortSignal): Promise<RelayTool[]> {
  const r = await exec(client, PROBE_REMOTE_COMMAND, { stdin: DETECT_SCRIPT, timeoutMs: 15_000, maxBytes: 65_536, signal });
  if (r.connectionLost || r.timedOut)
    throw new Error(
      t(
        "cannot list the login node's tools: {0}",
        r.stderr.toString('utf8').trim() || (r.timedOut ? t('timed out') : t('connection lost')),
      ),
    );
  const found = new Set(
    r.stdout
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim().split('/').pop()),
  );
  return RELAY_TOOLS.filter((t) => found.has(relayCommand(t)));
}

/**
 * What running the login script gave: exec()'s result over SSH, a local shell in tests. Its output
 * went to the sinks; `stdout`/`stderr` hold only what a runner says itself (exec(): a channel that
 * would not open).
 */
export type LoginRun = Pick<ExecResult, 'stdout' | 'stderr' | 'exitCode' | 'timedOut' | 'connectionLost'>;

export interface LoginLimits {
  readonly timeoutMs: number;
  /** For output not given to a sink. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  readonly stdoutSink: ByteSink;
  readonly stderrSink: ByteSink;
}

/** Runs a login script (POSIX sh, on stdin to `/bin/sh -s`) with a deadline and cancel signal, its output into the sinks. */
export type LoginRunner = (script: string, limits: LoginLimits) => Promise<LoginRun>;

/** The login script over an open SSH connection to the login node. */
export function sshLoginRunner(client: Client): LoginRunner {
  // exec() TERMs the login node's session at the deadline or on cancel: pdsh, clush and srun die
  // with it, and Slurm cancels the step on the nodes.
  return (script, limits) => exec(client, PROBE_REMOTE_COMMAND, { stdin: script, ...limits });
}

/** One node's probe stream as the relay got it: the decoded stdout, what was said about the node, how it ended. */
export interface RelayedStream {
  readonly stdout: Buffer;
  readonly messages: readonly string[];
  readonly exitCode: number | null;
  readonly connectionLost: boolean;
  readonly timedOut: boolean;
  /** What cut the stream short (the node's budget or the run's), said in the report's notes. */
  readonly streamCut?: StreamCutBy;
}

/** The probe runner of a relayed node: its stream already arrived, so it hands that back. */
export function relayedRunner(stream: RelayedStream): ProbeRunner {
  const { stdout, messages, exitCode, connectionLost, timedOut, streamCut } = stream;
  return async () => ({
    stdout,
    stderr: Buffer.from(messages.join('\n')),
    exitCode,
    connectionLost,
    timedOut,
    ...(streamCut ? { streamCut } : {}),
  });
}
