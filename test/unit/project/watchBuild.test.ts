// The watch scripts behind F5's default build task (.vscode/tasks.json "watch": esbuild and tsc side by
// side) must build and report in the format their tasks' problem matchers wait for: "[watch] build
// finished" for esbuild, and tsc's own watch messages for VS Code's $tsc-watch.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

/** Runs `command` until `until` shows in its stdout (true) or it exits first (false), then stops it. */
async function watchUntil(command: string[], until: string): Promise<{ seen: boolean; out: string; stillRunning: boolean }> {
  const child = spawn(command[0], command.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const seen = await new Promise<boolean>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(until)) resolve(true);
    });
    child.once('exit', () => resolve(false));
  });
  const stillRunning = child.exitCode === null;
  child.kill('SIGTERM');
  return { seen, out, stillRunning };
}

describe('npm run watch (the F5 build task)', () => {
  it('builds once, announces it as the problem matcher expects, and keeps watching', async function () {
    this.timeout(60_000);
    const { seen, out, stillRunning } = await watchUntil([process.execPath, 'esbuild.js', '--watch'], '[watch] build finished');
    assert.ok(seen, `watch output: ${out}`);
    assert.match(out, /\[watch\] build started/);
    assert.ok(stillRunning, 'watch mode keeps running after the first build');
  });
});

describe('npm run watch:tsc (type errors while debugging)', () => {
  it('type-checks once, in the words $tsc-watch waits for, and keeps watching', async function () {
    this.timeout(180_000);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const [tool, ...args] = manifest.scripts['watch:tsc'].split(' ');
    assert.equal(tool, 'tsc');
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const { seen, out, stillRunning } = await watchUntil([process.execPath, tsc, ...args], 'Watching for file changes.');
    assert.ok(seen, `tsc output: ${out}`);
    // The begin and end lines of VS Code's $tsc-watch background matcher, after tsc's timestamp.
    assert.match(out, /^\S.* - Starting compilation in watch mode\.\.\.$/m);
    assert.match(out, /^\S.* - Found 0 errors\. Watching for file changes\.$/m);
    assert.ok(stillRunning, 'tsc keeps watching after the first check');
  });
});
