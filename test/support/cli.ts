// Runs the built CLI (dist/cli.js) as a user would, without an SSH agent unless a test adds one.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { CLI } from './paths';

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCollected([process.execPath, CLI, ...args], { env: { ...process.env, SSH_AUTH_SOCK: '', ...env } });
}

/**
 * Runs `argv` to its end with no standard input, its output collected as text: the CLI, the real ssh,
 * either as another user. `detached`: in a session of its own, so no terminal can be asked anything.
 */
export function runCollected(argv: readonly string[], options: { env: NodeJS.ProcessEnv; detached?: boolean }): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The same, synchronously, with `input` on its standard input (the caller's environment as it is). */
export function runCliSync(args: readonly string[], input?: string): CliRun {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
