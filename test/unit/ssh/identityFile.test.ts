// Files the SSH layer reads that a user (or a workspace's ssh_config) names: an IdentityFile, an ssh_config,
// a known_hosts file. A FIFO among them would block the opening thread until some writer came (in VS Code,
// the extension host), so each is looked at before it is opened and only a regular file is read, up to a cap.
// The FIFO cases run in a child process: before the fix they hung it, and a hung child is killed, not the suite.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { utils } from 'ssh2';
import { loadIdentityFile } from '../../../src/core/ssh/identityFile';

const ROOT = path.join(__dirname, '../../..');

/** What `expression` (awaited, over src/ through tsx) gives in a fresh node, or how the node ended. */
function inChild(expression: string): { result?: unknown; signal: NodeJS.Signals | null } {
  const code = `require('tsx/cjs'); const src = (f) => require(${JSON.stringify(ROOT)} + '/src/' + f);
    (async () => ${expression})().then((r) => process.stdout.write(JSON.stringify(r ?? null)));`;
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 15_000 });
  return r.signal ? { signal: r.signal } : { result: JSON.parse(r.stdout), signal: null };
}

describe('ssh: files read only when regular', () => {
  let dir: string;
  let fifo: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-ssh-files-'));
    fifo = path.join(dir, 'id_fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an IdentityFile that is a FIFO is skipped with a warning, without waiting for a writer', () => {
    const r = inChild(`src('core/ssh/identityFile').loadIdentityFile(${JSON.stringify(fifo)}, async () => null)`);
    assert.deepEqual(r, {
      result: { skipped: [`Load key "${fifo}": not a regular file (a FIFO, socket or device), not opened`] },
      signal: null,
    });
  });

  it('an ssh_config or known_hosts that is a FIFO reads as missing', () => {
    const r = inChild(
      `[src('core/ssh/nodeConfigFs').nodeConfigFs.readFile(${JSON.stringify(fifo)}), src('core/regularFile').readTextIfRegular(${JSON.stringify(fifo)}, 1024)]`,
    );
    assert.deepEqual(r, { result: [null, null], signal: null });
  });

  it('a key behind a symbolic link loads; a key file over 1 MiB is not read whole and is "invalid format"', async () => {
    const key = path.join(dir, 'id_ed25519');
    fs.writeFileSync(key, utils.generateKeyPairSync('ed25519').private, { mode: 0o600 });
    fs.symlinkSync(key, path.join(dir, 'id_link'));
    const loaded = await loadIdentityFile(path.join(dir, 'id_link'), async () => null);
    assert.ok(loaded && 'key' in loaded && loaded.key.type === 'ssh-ed25519');
    const big = path.join(dir, 'id_big');
    fs.writeFileSync(big, '', { mode: 0o600 });
    fs.truncateSync(big, 3 * 1024 ** 3);
    assert.deepEqual(await loadIdentityFile(big, async () => null), { skipped: [`Load key "${big}": invalid format`] });
  });
});
