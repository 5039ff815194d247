// The `watch` script behind F5's default build task must build and report in the format the
// task's problem matcher waits for ("[watch] build finished").
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../../support/paths';

describe('npm run watch (the F5 build task)', () => {
  it('builds once, announces it as the problem matcher expects, and keeps watching', async function () {
    this.timeout(60_000);
    const child = spawn(process.execPath, ['esbuild.js', '--watch'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const finished = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('[watch] build finished')) resolve(true);
      });
      child.once('exit', () => resolve(false));
    });
    const stillRunning = child.exitCode === null;
    child.kill('SIGTERM');
    assert.ok(finished, `watch output: ${out}`);
    assert.match(out, /\[watch\] build started/);
    assert.ok(stillRunning, 'watch mode keeps running after the first build');
  });
});
