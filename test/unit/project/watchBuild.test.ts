// The watch scripts behind F5's default build task (.vscode/tasks.json "watch": esbuild and tsc side by
// side) must build and report in the format their tasks' problem matchers wait for: "[watch] build
// finished" for esbuild, and tsc's own watch messages for VS Code's $tsc-watch.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

/** Runs `command` until `until` shows in its stdout (true) or it exits first (false), then stops it. */
async function watchUntil(
  command: string[],
  until: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ seen: boolean; out: string; stillRunning: boolean }> {
  const child = spawn(command[0], command.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
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
  it('builds once, announces it as the problem matcher expects (every bundle written by then), and keeps watching', async function () {
    this.timeout(60_000);
    // Into a temp folder: stopping the watch must not leave a half-written dist/cli.js behind for the
    // suites that run the built CLI (it did, when "finished" came after the first bundle only).
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-watch-dist-'));
    try {
      const env = { ...process.env, GDR_DIST_DIR: dist };
      const { seen, out, stillRunning } = await watchUntil([process.execPath, 'esbuild.js', '--watch'], '[watch] build finished', env);
      assert.ok(seen, `watch output: ${out}`);
      assert.equal(out.match(/\[watch\] build started/g)?.length, 1, 'one start for the three bundles');
      assert.ok(stillRunning, 'watch mode keeps running after the first build');
      for (const bundle of ['extension.js', 'cli.js', 'webview.js']) {
        assert.ok(fs.statSync(path.join(dist, bundle)).size > 10_000, `${bundle} written when "finished" is printed`);
      }
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
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
