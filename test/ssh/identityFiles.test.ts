// IdentityFiles ssh cannot use (a directory, a key this user may not read, one others may read)
// are skipped with ssh's own warning and authentication goes on with the next key: through the
// CLI, as root and as another user (nobody, holding a root-owned 0600 key), next to the real ssh.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { noPrompts } from '../../src/core/ssh/prompts';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { runCollected } from '../support/cli';
import { CLI } from '../support/paths';
import { hostBlock, ourRun, RealRun, refusal, writeConfig } from '../support/sshCase';

const RECORDS = '/tmp/gdrlab-records-identity-files.json';
const NOBODY = 65534;

let lab: Lab;
let h: LabHost;

const config = (identityFiles: string[]) =>
  writeConfig(
    lab.dir,
    hostBlock('idf', h, [
      'User gdr',
      'IdentitiesOnly yes',
      `UserKnownHostsFile ${lab.knownHostsPath}`,
      'StrictHostKeyChecking yes',
      'BatchMode yes',
      ...identityFiles.map((f) => `IdentityFile ${f}`),
    ]),
  );

/** argv run as `uid` (root: as it is), its HOME a folder of its own, no agent. */
function runAs(uid: number, argv: string[]): Promise<RealRun> {
  const home = fs.mkdtempSync(path.join(lab.dir, 'home-'));
  fs.chownSync(home, uid, uid);
  const cmd = uid === 0 ? argv : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...argv];
  return runCollected(cmd, { env: { PATH: process.env.PATH, HOME: home, SSH_AUTH_SOCK: '' }, detached: true });
}

/** `gdr-doctor diagnose` and the real ssh on the same config, as `uid`; both must reach the host. */
async function bothAs(uid: number, file: string): Promise<{ ours: RealRun; real: RealRun }> {
  const [ours, real] = await Promise.all([
    runAs(uid, [process.execPath, CLI, 'diagnose', '-F', file, 'idf', '--json']),
    runAs(uid, ['ssh', '-F', file, 'idf', 'id -un']),
  ]);
  assert.equal(real.status, 0, `the real ssh logs in: ${real.stderr}`);
  assert.equal(ours.status, 0, `gdr-doctor logs in: ${ours.stderr}`);
  assert.equal(JSON.parse(ours.stdout).host, 'idf');
  return { ours, real };
}

/** Each line ssh printed about `file` comes from gdr-doctor too, after the host's name. */
function assertSameWarning(file: string, ours: string, real: string, expected: RegExp): void {
  const said = real.split(/\r?\n/).filter((l) => l.includes(file));
  assert.ok(
    said.some((l) => expected.test(l)),
    `ssh said ${expected}: ${real}`,
  );
  for (const line of said) assert.ok(ours.includes(`idf: ${line}\n`), `gdr-doctor did not say ${JSON.stringify(line)}:\n${ours}`);
}

describe('identity files ssh cannot use, through the CLI and next to the real ssh', function () {
  this.timeout(60_000);

  before(async () => {
    lab = await startTestLab({ recordsPath: RECORDS, hosts: [{ name: 'idf', profile: 'healthy' }] });
    h = lab.host('idf');
  });
  after(async () => lab?.stop());

  it('skips a directory with "Is a directory" and logs in with the next key', async () => {
    const dir = fs.mkdtempSync(path.join(lab.dir, 'iddir-'));
    fs.chmodSync(dir, 0o700);
    const { ours, real } = await bothAs(0, config([dir, lab.keys.plain]));
    assertSameWarning(dir, ours.stderr, real.stderr, /^Load key ".*": Is a directory$/);
    assert.doesNotMatch(ours.stderr, /\n\s+at /, 'no stack trace');
  });

  it("skips a key others may read with ssh's UNPROTECTED PRIVATE KEY FILE warning", async () => {
    const open = path.join(lab.dir, 'id_open');
    fs.copyFileSync(lab.keys.plain, open);
    fs.chmodSync(open, 0o644);
    const { ours, real } = await bothAs(0, config([open, lab.keys.plain]));
    assertSameWarning(open, ours.stderr, real.stderr, /^Load key ".*": bad permissions$/);
    assert.match(ours.stderr, /idf: @ {9}WARNING: UNPROTECTED PRIVATE KEY FILE! {10}@/);
  });

  it('skips a root-owned 0600 key read as another user with "Permission denied"', async () => {
    const own = path.join(lab.dir, 'id_nobody');
    fs.copyFileSync(lab.keys.plain, own);
    fs.chownSync(own, NOBODY, NOBODY);
    fs.chmodSync(own, 0o600);
    assert.equal(fs.statSync(lab.keys.plain).mode & 0o777, 0o600);
    const { ours, real } = await bothAs(NOBODY, config([lab.keys.plain, own]));
    assertSameWarning(lab.keys.plain, ours.stderr, real.stderr, /^Load key ".*": Permission denied$/);
  });

  it('fails as an authentication failure, not a hang, when no key is usable', async () => {
    const dir = fs.mkdtempSync(path.join(lab.dir, 'iddir-'));
    const warned: string[] = [];
    const e = await refusal(ourRun(config([dir, `${dir}-absent`]), 'idf', { ...noPrompts, warn: (_h, lines) => warned.push(...lines) }));
    assert.equal(e.step, 'auth');
    assert.deepEqual(warned, [`Load key "${dir}": Is a directory`]);
  });
});
