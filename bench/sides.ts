// The two sides of the bench, each timed from the caller's point of view (wall clock):
//   gdr-doctor: resolve (ssh -G) + connect (host key, auth) + one exec of the probe + parse;
//               or, on the connection its pool already holds, the exec + parse only.
//   OpenSSH:    `ssh -F <config> <host> '<the same commands, one after another>'`, a fresh process
//               and a fresh connection each time (no ControlMaster), as a user runs it.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../src/core/probe/commands';
import { ProbeReport, runProbe } from '../src/core/probe/runProbe';
import { sshRunner } from '../src/core/transport/sshRunner';
import { connect, SshConnection } from '../src/core/ssh/connect';
import { parseDestination } from '../src/core/ssh/destination';
import { noPrompts } from '../src/core/ssh/prompts';
import { ConnectionPool } from '../src/core/ssh/pool';
import { resolveTarget } from '../src/core/ssh/resolveTarget';
import { parallelCommand, sequentialCommand } from './sequentialCommand';

export interface Timed<T> {
  readonly ms: number;
  readonly value: T;
}

export interface OpenSshResult {
  readonly exitCode: number | null;
  readonly stdoutBytes: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The SSH agent is out of both sides: gdr-doctor's CLI passes none, so ssh gets none either. */
export function envWithoutAgent(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SSH_AUTH_SOCK;
  return env;
}

/** Throws unless the probe ran to its end over a live connection: a broken run is not a timing. */
export function assertComplete(report: ProbeReport, what: string): void {
  if (!report.finished || report.connectionLost || report.timedOut) {
    throw new Error(
      `${what}: probe did not complete (finished=${report.finished} connectionLost=${report.connectionLost} timedOut=${report.timedOut})` +
        `: ${report.notes.join(' | ')}`,
    );
  }
}

/**
 * A connection pool as the tool keeps one (src/core/ssh/pool.ts): opening = resolve + connect.
 * idleMs 0: the bench closes it itself at the end of each round.
 */
export function benchPool(sshConfigPath: string): ConnectionPool {
  const resolve = (host: string) => resolveTarget(parseDestination(host), sshConfigPath);
  return new ConnectionPool({ idleMs: 0, open: async (host) => connect(await resolve(host), { prompts: noPrompts, resolveHop: resolve }) });
}

export interface Diagnosed {
  readonly report: ProbeReport;
  /** The connection it ran on: lets the caller check that a re-diagnose did not reconnect. */
  readonly conn: SshConnection;
}

/**
 * A diagnose through the pool: on an empty pool this is a fresh one (resolve + connect + probe +
 * parse), on a pool holding the host's connection only the probe + parse.
 */
export async function gdrDiagnose(
  pool: ConnectionPool,
  host: string,
  commands: readonly ProbeCommandSpec[] = PROBE_COMMANDS,
): Promise<Timed<Diagnosed>> {
  const t0 = performance.now();
  const value = await pool.use(host, async (conn) => ({ report: await runProbe(sshRunner(conn.client), { host, commands }), conn }));
  const ms = performance.now() - t0;
  assertComplete(value.report, `gdr-doctor diagnose of ${host}`);
  return { ms, value };
}

/** For reading the numbers only: the probe's own cost, the same script with every command a no-op. */
export const NOOP_COMMANDS: readonly ProbeCommandSpec[] = PROBE_COMMANDS.map((c) => ({ ...c, command: 'true' }));

export const OPENSSH_COMMAND = sequentialCommand(PROBE_COMMANDS);
/** The commands all at once, as a hand-written script would run them (sequentialCommand.ts). */
export const OPENSSH_PARALLEL_COMMAND = parallelCommand(PROBE_COMMANDS);

/** One `ssh -F config host '<commands>'` run; rc 255 (ssh's own failure) throws. */
export async function openSsh(host: string, sshConfigPath: string, command = OPENSSH_COMMAND): Promise<Timed<OpenSshResult>> {
  const { ms, value } = await runProcess(['ssh', '-F', sshConfigPath, '-o', 'BatchMode=yes', host, command], envWithoutAgent());
  if (value.exitCode === 255 || value.exitCode === null)
    throw new Error(`ssh ${host} failed (rc ${value.exitCode}): ${value.stderr.trim()}`);
  return { ms, value: { exitCode: value.exitCode, stdoutBytes: value.stdoutBytes, stdout: value.stdout, stderr: value.stderr } };
}

export interface ProcessRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stdoutBytes: number;
  readonly stderr: string;
}

/** Runs a process to its end, stdin given, wall-clock timed from spawn to close. */
export function runProcess(argv: readonly string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<Timed<ProcessRun>> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const ms = performance.now() - t0;
      const stdout = Buffer.concat(out);
      resolve({
        ms,
        value: { exitCode, stdout: stdout.toString('utf8'), stdoutBytes: stdout.length, stderr: Buffer.concat(err).toString('utf8') },
      });
    });
    child.stdin.end(stdin);
  });
}
