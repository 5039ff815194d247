// Runs one measurement over direct SSH (docs/perftest.md §1): on one host both sides in one exec;
// on two hosts the server's exec first, the client's once the server says it listens. A deadline or
// a cancel stops the execs, and exec() TERMs (then KILLs) each remote session, whose trap stops
// perftest: nothing is left running on either host.
import { randomBytes, randomInt } from 'node:crypto';
import type { Client } from 'ssh2';
import { exec } from '../ssh/exec';
import { PROBE_REMOTE_COMMAND } from '../probe/script';
import type { Executor } from './index';
import { SideRuns } from './outcome';
import { Measurement } from './plan';
import {
  clientScript,
  commandLine,
  loopbackScript,
  ScriptContext,
  ScriptEvent,
  ScriptEventReader,
  scriptEvents,
  serverScript,
} from './scripts';
import { RoleRun } from './types';
import { t } from '../l10n';

export interface ShellRun {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly connectionLost: boolean;
}

/** A host a proof runs scripts on (POSIX sh on stdin). */
export interface ProveShell {
  readonly host: string;
  /** How the other host reaches this one for perftest's TCP connection: its SSH HostName. */
  readonly address: string;
  run(
    script: string,
    o: { readonly timeoutMs: number; readonly signal?: AbortSignal; readonly onStdout?: (chunk: Buffer) => void },
  ): Promise<ShellRun>;
}

/** Each side prints a few KiB; a cap far above that. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export function sshProveShell(client: Client, host: string, address: string): ProveShell {
  return { host, address, run: (script, o) => exec(client, PROBE_REMOTE_COMMAND, { stdin: script, maxBytes: MAX_OUTPUT_BYTES, ...o }) };
}

export function newRunTag(): string {
  return `gdrp-${randomBytes(8).toString('hex')}`;
}

/** TCP ports to try for perftest's out-of-band connection: below Linux's default ephemeral range (32768+). */
export function candidatePorts(n = 8): number[] {
  const out = new Set<number>();
  while (out.size < n) out.add(randomInt(20000, 32768));
  return [...out];
}

export interface RunContext extends ScriptContext {
  readonly signal?: AbortSignal;
}

/** The client-side deadline of an exec: the remote `timeout` ends each side first. */
const execTimeoutMs = (m: Measurement, sides: number) => (m.limitS * sides + 40) * 1000;

export async function runOnOneHost(shell: ProveShell, m: Measurement, ctx: RunContext): Promise<SideRuns> {
  const r = await shell.run(loopbackScript(ctx, m, candidatePorts()), { timeoutMs: execTimeoutMs(m, 2), signal: ctx.signal });
  const events = scriptEvents(r.stdout.toString('utf8'), ctx.tag);
  return sideRuns(m, ctx, events, [r], '127.0.0.1');
}

export async function runOnTwoHosts(client: ProveShell, server: ProveShell, m: Measurement, ctx: RunContext): Promise<SideRuns> {
  // The server's lines are read as they come, each once (events.ts), until the client has started; from
  // then on nothing more is kept here (the server's exec keeps its output for the final reading).
  const reader = new ScriptEventReader(ctx.tag);
  let clientRun: Promise<ShellRun | null> = Promise.resolve(null);
  let started = false;
  const onStdout = (chunk: Buffer) => {
    if (started) return;
    reader.pushBytes(chunk);
    const port = reader.events.find((e) => e.kind === 'P')?.port;
    if (port !== undefined && reader.events.some((e) => e.kind === 'L')) {
      started = true;
      clientRun = client.run(clientScript(ctx, m, server.address, port), { timeoutMs: execTimeoutMs(m, 1), signal: ctx.signal });
    }
  };
  const serverRun = await server.run(serverScript(ctx, m, candidatePorts()), {
    timeoutMs: execTimeoutMs(m, 2),
    signal: ctx.signal,
    onStdout,
  });
  const clientDone = await clientRun;
  const events = [
    ...scriptEvents(serverRun.stdout.toString('utf8'), ctx.tag),
    ...(clientDone ? scriptEvents(clientDone.stdout.toString('utf8'), ctx.tag) : []),
  ];
  return sideRuns(m, ctx, events, clientDone ? [serverRun, clientDone] : [serverRun], server.address);
}

/** The two sides' results from the script's lines; a stopped exec says why the rest is missing. */
export function sideRuns(
  m: Measurement,
  ctx: RunContext,
  events: readonly ScriptEvent[],
  runs: readonly ShellRun[],
  serverAddress: string,
): SideRuns {
  const mine = events.filter((e) => e.id === m.id);
  const role = (r: 'server' | 'client'): RoleRun | null => {
    const e = mine.find((x) => x.kind === 'R' && x.role === r);
    return e ? { exitCode: e.exitCode ?? null, output: e.output ?? '' } : null;
  };
  const port = mine.find((e) => e.kind === 'P')?.port;
  const stopped = ctx.signal?.aborted ? 'cancelled' : runs.some((r) => r.timedOut) ? 'timed-out' : undefined;
  const lost = runs.find((r) => r.connectionLost && !r.timedOut);
  const client =
    role('client') ??
    (lost && !stopped
      ? { exitCode: null, output: t('connection to the host lost: {0}', lost.stderr.toString('utf8').trim() || t('no exit status')) }
      : null);
  const side = { endpoint: m.client, cuda: m.mode, sizeBytes: ctx.sizeBytes, durationS: ctx.durationS };
  return {
    server: role('server'),
    client,
    stopped,
    noPort: mine.some((e) => e.kind === 'N'),
    command: commandLine(side, port ?? '<port>', serverAddress),
  };
}

/** Each measurement in order over direct SSH; stops when the signal aborts. */
export function directExecutor(client: ProveShell, server: ProveShell | null, ctx: ScriptContext): Executor {
  return async (measurements, done, signal) => {
    for (const m of measurements) {
      if (signal?.aborted) return;
      const run = { ...ctx, signal };
      done(m, server ? await runOnTwoHosts(client, server, m, run) : await runOnOneHost(client, m, run));
    }
  };
}
