// StrictHostKeyChecking=no with a CHANGED host key, held to the real ssh: its loud warning, a key
// login only (no password, no keyboard-interactive), and no sudo password for a fix either, not
// even one VS Code remembered. The host's key is fine; the client's known_hosts holds another.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FixSession, newSudoMarker, prepareFix, sshFixSession } from '../../src/core/fixes';
import { noPrompts, SshPrompts } from '../../src/core/ssh/prompts';
import { runWithSudo, SudoDeps } from '../../src/vscode/fixes/sudoPassword';
import { defaultUsers, Lab, LabHost, startTestLab } from '../lab/lab';
import { runCli } from '../support/cli';
import { assertLinesWithin, hostBlock, openVia, ourRun, realSsh, refusal, writeConfig } from '../support/sshCase';

const RECORDS = '/tmp/gdrlab-records-changed-key.json';
const SUDO_PW = 'keysudo-lab-pw';

let lab: Lab;
let h: LabHost;

/** ssh_config for `ck` as `user`; `changed`: known_hosts holds another key than the host's. */
function config(user: string, changed: boolean, lines: string[] = []): string {
  const kh = path.join(lab.dir, changed ? 'kh-changed' : 'kh-right');
  const strict = changed ? 'no' : 'yes';
  return writeConfig(
    lab.dir,
    hostBlock('ck', h, [`User ${user}`, `UserKnownHostsFile ${kh}`, `StrictHostKeyChecking ${strict}`, 'IdentitiesOnly yes', ...lines]),
  );
}
const keyLogin = (user: string, changed: boolean) => config(user, changed, [`IdentityFile ${lab.keys.plain}`, 'BatchMode yes']);
const modprobes = () => h.calls().filter((c) => c.cmd === 'modprobe');

/** The session of a fix, recording every stdin its commands got (a sudo password would be there). */
function recording(session: FixSession): FixSession & { stdins: string[] } {
  const stdins: string[] = [];
  return {
    ...session,
    stdins,
    shell: { run: (command, options) => (stdins.push(options.stdin ?? ''), session.shell.run(command, options)) },
  };
}

/** VS Code's sudo path with a remembered password (under whatever key) and a question that must not come. */
function remembered(): SudoDeps & { asked: number } {
  const deps = {
    asked: 0,
    secrets: { get: async () => SUDO_PW, store: async () => undefined, delete: async () => undefined },
    ask: async () => (deps.asked++, { password: SUDO_PW, remember: false }),
    note: () => undefined,
  };
  return deps;
}

describe('a changed host key under StrictHostKeyChecking=no, held to the real ssh', function () {
  this.timeout(90_000);

  before(async () => {
    const keysudo = { name: 'keysudo', uid: 1503, sudo: 'password' as const, password: SUDO_PW, keys: ['plain' as const] };
    lab = await startTestLab({
      recordsPath: RECORDS,
      hosts: [{ name: 'ck', profile: 'needs-peermem', users: [...defaultUsers, keysudo] }],
    });
    h = lab.host('ck');
    fs.writeFileSync(path.join(lab.dir, 'kh-right'), `${h.hostKeyLine}\n`);
    fs.writeFileSync(path.join(lab.dir, 'kh-changed'), `${h.rotatedHostKeyLine}\n`);
  });
  after(async () => lab?.stop());

  it("warns in ssh's words and goes on with the key login", async () => {
    const file = keyLogin('gdr', true);
    const real = await realSsh(file, 'ck');
    assert.equal(real.status, 0, real.stderr);
    const warned: string[] = [];
    assert.equal(await ourRun(file, 'ck', { ...noPrompts, warn: (_h, lines) => warned.push(...lines) }), 'ck\ngdr\n');
    assert.ok(warned.length >= 12, warned.join('\n'));
    assertLinesWithin(warned, real.stderr.split(/\r?\n/));
  });

  it('asks for no password and sends none, as the real ssh asks SSH_ASKPASS for none', async () => {
    const marker = path.join(lab.dir, 'askpass-asked');
    const askpass = path.join(lab.dir, 'askpass.sh');
    fs.writeFileSync(askpass, `#!/bin/sh\necho asked >> '${marker}'\necho pwuser-lab-pw\n`, { mode: 0o755 });
    const env = { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force' };
    const passwordOnly = (changed: boolean) => config('pwuser', changed, [`IdentityFile ${lab.keys.unauthorized}`]);
    const asked: string[] = [];
    const prompts: SshPrompts = {
      ...noPrompts,
      password: async () => (asked.push('password'), 'pwuser-lab-pw'),
      keyboardInteractive: async () => (asked.push('kbd'), ['pwuser-lab-pw']),
    };

    const real = await realSsh(passwordOnly(true), 'ck', env);
    assert.equal(real.status, 255);
    assert.match(real.stderr, /Password authentication is disabled to avoid man-in-the-middle attacks/);
    assert.equal(fs.existsSync(marker), false, 'the real ssh asked nothing');
    assert.equal((await refusal(ourRun(passwordOnly(true), 'ck', prompts))).step, 'auth');
    assert.deepEqual(asked, [], 'gdr-doctor asked nothing');

    // With the right key known, both ask and log in: the askpass above was not simply unused.
    assert.equal((await realSsh(passwordOnly(false), 'ck', env)).stdout, 'ck\npwuser\n');
    assert.ok(fs.existsSync(marker));
    assert.equal(await ourRun(passwordOnly(false), 'ck', prompts), 'ck\npwuser\n');
  });

  it('refuses a fix that needs the sudo password (CLI), saying why, and runs nothing as root', async () => {
    const r = await runCli(['fix', '-F', keyLogin('keysudo', true), 'ck', 'load-peermem', '--yes'], {
      GDR_DOCTOR_AUDIT_LOG: path.join(lab.dir, 'audit.log'),
    });
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /no password is sent to ck: its host key does not match known_hosts/);
    assert.match(r.stderr, /ck: @ {4}WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! {5}@/);
    assert.deepEqual(modprobes(), []);
  });

  it('never sends a remembered sudo password over it, even for a plan made over a trusted connection', async () => {
    const marker = newSudoMarker();
    const trusted = await openVia(keyLogin('keysudo', false), 'ck');
    const changed = await openVia(keyLogin('keysudo', true), 'ck');
    try {
      const plan = await prepareFix(sshFixSession(trusted, 'ck'), 'load-peermem', marker);
      assert.deepEqual([plan.status, plan.privilege], ['ready', 'sudo-password']);
      const replanned = await prepareFix(sshFixSession(changed, 'ck'), 'load-peermem', marker);
      assert.equal(replanned.status, 'refused');
      assert.match(replanned.summary, /host key does not match known_hosts/);

      for (const p of [plan, replanned]) {
        const session = recording(sshFixSession(changed, 'ck'));
        const deps = remembered();
        const result = await runWithSudo(p, session, marker, deps);
        assert.equal(result.status, 'refused', result.message);
        assert.ok(!session.stdins.some((s) => s.includes(SUDO_PW)), 'the password went nowhere');
        assert.equal(deps.asked, 0);
      }
      assert.deepEqual(modprobes(), []);

      // Over the trusted connection the same plan does send it: the test above could have failed.
      const session = recording(sshFixSession(trusted, 'ck'));
      assert.equal((await runWithSudo(plan, session, marker, remembered())).status, 'applied');
      assert.deepEqual(session.stdins.filter((s) => s.includes(SUDO_PW)).length, 1);
      assert.deepEqual(
        modprobes().map((c) => c.uid),
        [0],
      );
    } finally {
      trusted.close();
      changed.close();
    }
  });
});
