// One SSH case against a lab host, run both ways: through gdr-doctor's SSH layer and through the
// real OpenSSH client on the same ssh_config file, so a test can hold the first to the second.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connect, SshConnection } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { ConnectError } from '../../src/core/ssh/errors';
import { exec } from '../../src/core/ssh/exec';
import { noPrompts, SshPrompts } from '../../src/core/ssh/prompts';
import { resolveTarget } from '../../src/core/ssh/resolveTarget';
import type { Lab, LabHost } from '../lab/lab';
import { CliRun, runCollected } from './cli';

/** `Host <alias>` for a lab host: its address and port, no agent, no global known_hosts unless given. */
export function hostBlock(alias: string, h: LabHost, lines: readonly string[]): string {
  const has = (k: string) => lines.some((l) => l.toLowerCase().startsWith(k.toLowerCase()));
  const defaults = [
    `HostName ${h.address}`,
    `Port ${h.port}`,
    'IdentityAgent none',
    ...(has('GlobalKnownHostsFile') ? [] : ['GlobalKnownHostsFile /dev/null']),
  ];
  return [`Host ${alias}`, ...[...defaults, ...lines].map((l) => `  ${l}`), ''].join('\n');
}

/**
 * The real ssh's options to log in to lab host `h` as `user` with the lab's plain key, batch mode, strict host
 * key checking against `knownHosts` only, and no ssh_config: what a test runs beside gdr-doctor, untouched by it.
 */
export function realSshArgs(lab: Lab, h: LabHost, user: string, knownHosts = lab.knownHostsPath): string[] {
  const options = [
    'IdentitiesOnly=yes',
    'BatchMode=yes',
    `UserKnownHostsFile=${knownHosts}`,
    'GlobalKnownHostsFile=/dev/null',
    'StrictHostKeyChecking=yes',
    'ConnectTimeout=5',
  ];
  return ['-F', 'none', '-i', lab.keys.plain, ...options.flatMap((o) => ['-o', o]), '-p', String(h.port), `${user}@${h.address}`];
}

let cases = 0;

/** Writes an ssh_config into `dir`; returns its path. */
export function writeConfig(dir: string, text: string): string {
  const file = path.join(dir, `case-${process.pid}-${++cases}.conf`);
  fs.writeFileSync(file, text);
  return file;
}

/** Resolves as the CLI does (ssh -G plus gdr-doctor's resolver) and connects. */
export async function openVia(configFile: string, destination: string, prompts: SshPrompts = noPrompts): Promise<SshConnection> {
  const resolve = (d: string) => resolveTarget(parseDestination(d), configFile);
  return connect(await resolve(destination), { prompts, resolveHop: resolve });
}

/** `hostname; id -un` through gdr-doctor's SSH layer. */
export async function ourRun(configFile: string, destination: string, prompts: SshPrompts = noPrompts): Promise<string> {
  const conn = await openVia(configFile, destination, prompts);
  try {
    return (await exec(conn.client, 'hostname; id -un', { timeoutMs: 10_000, maxBytes: 1 << 20 })).stdout.toString();
  } finally {
    conn.close();
  }
}

export async function refusal(p: Promise<unknown>): Promise<ConnectError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  assert.ok(e instanceof ConnectError, `expected a ConnectError, got ${String(e)}`);
  return e;
}

/** How a real ssh run ended: its status and output. */
export type RealRun = CliRun;

/**
 * The real `ssh -F <config> <destination> hostname; id -un`, in its own session (no terminal: it
 * asks nothing unless SSH_ASKPASS_REQUIRE=force is in `env`).
 */
export function realSsh(configFile: string, destination: string, env: NodeJS.ProcessEnv = {}): Promise<RealRun> {
  return runCollected(['ssh', '-F', configFile, destination, 'hostname; id -un'], {
    env: { ...process.env, SSH_AUTH_SOCK: '', ...env },
    detached: true,
  });
}

/** Asserts that `ours` appear among `theirs` in the same order (ssh may print more, e.g. Debian's hints). */
export function assertLinesWithin(ours: readonly string[], theirs: readonly string[]): void {
  let at = 0;
  for (const line of ours) {
    const found = theirs.indexOf(line, at);
    assert.ok(found >= 0, `ssh did not print ${JSON.stringify(line)} (after line ${at}):\n${theirs.join('\n')}`);
    at = found + 1;
  }
}
