// The sides of the fleet bench, each a process of its own, timed from the outside (wall clock):
//   gdr-doctor: the built CLI, `node dist/cli.js diagnose <hosts> -F <cfg> -f C --json --batch`
//               (direct fan-out, one ssh2 connection per host), or with `--via login --with slurm`
//               (one connection to the login node, srun on the nodes). Its peak RSS is read inside
//               the process as it exits (fleetRss.mjs). Node's start-up is in the time, as pdsh's is.
//   pdsh:       `pdsh -R ssh -f C -w <hosts> '<the probe's commands in a row>'`, OpenSSH under it
//               with the lab's ssh_config; and, for reading, pdsh carrying gdr-doctor's own probe
//               script (the relay's per-node command, as `--with pdsh` runs it on a login node),
//               run from here and parsed by the relay's own code.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { foldHostList } from '../src/core/parsers/hostlist';
import { LoginRunner, relayDiagnose } from '../src/core/fleet/relay';
import type { FleetHostResult } from '../src/core/fleet/types';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import type { CommandResult } from '../src/core/probe/frames';
import { envWithoutAgent, OPENSSH_COMMAND, runProcess, Timed } from './sides';

/** One host whose probe did not complete: its status and why. */
const incompleteText = (r: FleetHostResult): string => `${r.host} (${r.status}: ${r.error?.message ?? r.report?.notes.join(' | ')})`;

const CLI = path.join(__dirname, '../dist/cli.js');
/** Over the whole run: probe commands (every side that runs the probe) stopped by their time limit. */
let commandsCut = 0;
export const commandsCutSoFar = () => commandsCut;
const RSS_HOOK = pathToFileURL(path.join(__dirname, 'fleetRss.mjs')).href;

/** One host of `diagnose --json` for many hosts (src/core/fleet/fleetReport.ts), as far as the bench reads it. */
export interface FleetJsonHost {
  readonly host: string;
  readonly status: string;
  readonly error?: { step: string; message: string };
  readonly report?: {
    finished: boolean;
    timedOut: boolean;
    connectionLost: boolean;
    commands: CommandResult[];
    findings: { id: string }[];
  };
}

export interface GdrRun {
  readonly hosts: FleetJsonHost[];
  /** Peak RSS of the CLI process, KiB. */
  readonly maxRssKiB: number;
  /** Commands the host's `timeout` stopped: on an overloaded machine the probe did less work than pdsh. */
  readonly commandsTimedOut: number;
}

/** `gdr-doctor diagnose …` through the built CLI; throws unless every host was probed to the end. */
export async function gdrCli(args: readonly string[], expected: readonly string[]): Promise<Timed<GdrRun>> {
  const rssFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-bench-rss-')), 'maxrss');
  try {
    const env = { ...envWithoutAgent(), GDR_BENCH_RSS_FILE: rssFile };
    const r = await runProcess([process.execPath, '--import', RSS_HOOK, CLI, 'diagnose', ...args, '--json', '--batch'], env);
    const what = `gdr-doctor diagnose ${args.join(' ')}`;
    if (r.value.exitCode !== 0) throw new Error(`${what}: exit ${r.value.exitCode}\n${r.value.stderr.slice(-3000)}`);
    const hosts = (JSON.parse(r.value.stdout) as { hosts: FleetJsonHost[] }).hosts;
    assertAllProbed(what, hosts, expected);
    const commandsTimedOut = hosts.reduce((n, h) => n + (h.report?.commands.filter((c) => c.timedOut).length ?? 0), 0);
    commandsCut += commandsTimedOut;
    return { ms: r.ms, value: { hosts, maxRssKiB: Number(fs.readFileSync(rssFile, 'utf8')), commandsTimedOut } };
  } finally {
    fs.rmSync(path.dirname(rssFile), { recursive: true, force: true });
  }
}

function assertAllProbed(what: string, hosts: readonly FleetJsonHost[], expected: readonly string[]): void {
  const names = hosts.map((h) => h.host).sort();
  if (names.join(',') !== [...expected].sort().join(','))
    throw new Error(`${what}: hosts ${names.join(',')}, expected ${expected.join(',')}`);
  const bad = hosts.filter((h) => !h.report?.finished || h.report.timedOut || h.report.connectionLost);
  if (bad.length > 0)
    throw new Error(
      `${what}: not probed to the end: ${bad.map((h) => `${h.host} (${h.status}${h.error ? `: ${h.error.message}` : ''})`).join('; ')}`,
    );
}

/** Direct fan-out: one ssh2 connection per host, at most `concurrency` at once. */
export function gdrFanOut(hosts: readonly string[], concurrency: number, sshConfigPath: string): Promise<Timed<GdrRun>> {
  return gdrCli([foldHostList(hosts), '-F', sshConfigPath, '-f', String(concurrency)], hosts);
}

/** Through the login node with Slurm: srun runs the probe on every node at once. */
export function gdrViaSlurm(login: string, nodes: readonly string[], sshConfigPath: string): Promise<Timed<GdrRun>> {
  return gdrCli(['--via', login, '--with', 'slurm', '-w', foldHostList(nodes), '-F', sshConfigPath], nodes);
}

/**
 * pdsh's ssh module with the lab's ssh_config: no `-l` (the config's user), BatchMode, strict
 * host key checking against the lab's known_hosts, no agent, no X11. pdsh splits these at spaces.
 */
export function pdshEnv(sshConfigPath: string): NodeJS.ProcessEnv {
  if (/\s/.test(sshConfigPath)) throw new Error(`pdsh cannot pass an ssh_config path with spaces: ${sshConfigPath}`);
  return {
    ...envWithoutAgent(),
    PDSH_RCMD_TYPE: 'ssh',
    PDSH_SSH_ARGS: `-F ${sshConfigPath} -o BatchMode=yes -o StrictHostKeyChecking=yes -x %h`,
  };
}

/** Each host's lines of pdsh's `host: line` output, put back together. */
export function splitPdshOutput(stdout: string): Map<string, string> {
  const byHost = new Map<string, string[]>();
  for (const line of stdout.split('\n')) {
    const m = /^([A-Za-z0-9._-]+): ?(.*)$/.exec(line);
    if (!m) continue;
    byHost.set(m[1], [...(byHost.get(m[1]) ?? []), m[2]]);
  }
  return new Map([...byHost].map(([h, lines]) => [h, lines.map((l) => `${l}\n`).join('')]));
}

/** `pdsh -R ssh -f C -w <hosts> '<commands in a row>'`; throws unless every host ran to the last command. */
export async function pdshSequential(
  hosts: readonly string[],
  concurrency: number,
  sshConfigPath: string,
): Promise<Timed<Map<string, string>>> {
  const argv = ['pdsh', '-R', 'ssh', '-f', String(concurrency), '-w', foldHostList(hosts), OPENSSH_COMMAND];
  const r = await runProcess(argv, pdshEnv(sshConfigPath));
  const byHost = splitPdshOutput(r.value.stdout);
  const last = `=== ${PROBE_COMMANDS[PROBE_COMMANDS.length - 1].id}\n`;
  const cut = hosts.filter((h) => !(byHost.get(h) ?? '').includes(last));
  if (cut.length > 0)
    throw new Error(`pdsh: no complete output from ${cut.join(',')} (exit ${r.value.exitCode}):\n${r.value.stderr.slice(-3000)}`);
  return { ms: r.ms, value: byHost };
}

/** Runs a relay login script here with /bin/sh, as the login node would, under the script's deadline. */
function localLogin(env: NodeJS.ProcessEnv): LoginRunner {
  return (script, limits) =>
    new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-s'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGTERM');
      }, limits.timeoutMs);
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => err.push(d));
      child.on('error', reject);
      child.on('close', (exitCode) => {
        clearTimeout(timer);
        resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode, timedOut, connectionLost: false });
      });
      child.stdin.end(script);
    });
}

/** For reading: pdsh carrying gdr-doctor's own probe (parallel, framed), parsed by the relay's code. */
export async function pdshProbe(hosts: readonly string[], concurrency: number, sshConfigPath: string): Promise<Timed<FleetHostResult[]>> {
  const t0 = performance.now();
  const results = await relayDiagnose(localLogin(pdshEnv(sshConfigPath)), {
    tool: 'pdsh',
    loginHost: 'this machine',
    nodes: foldHostList(hosts),
    concurrency,
  });
  const ms = performance.now() - t0;
  const bad = results.filter((r) => !r.report?.finished || r.report.timedOut || r.report.connectionLost);
  if (results.length !== hosts.length || bad.length > 0) {
    throw new Error(
      `pdsh with the probe script: ${results.length}/${hosts.length} hosts; not complete: ${bad.map(incompleteText).join('; ')}`,
    );
  }
  commandsCut += results.reduce((n, r) => n + (r.report?.commands.filter((c) => c.timedOut).length ?? 0), 0);
  return { ms, value: results };
}
