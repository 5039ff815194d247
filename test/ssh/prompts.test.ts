// The built CLI asking its questions on a real terminal (a tmux pane), as a user at a shell sees
// them: unknown host keys, passwords, keyboard-interactive, passphrases, Ctrl-C, and the
// non-interactive modes. Prompts must reach the terminal, never stdout; typed secrets are never shown.
// Needs root (the lab) and tmux; fails, not skips, without them.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from '../support/paths';
import { descendantPids, escape, Run as TmuxRun, sleep, sshCase, TmuxServer } from '../support/tmux';
import { assertLabCanRun, cleanupStale, Lab, LabHost, startLab } from '../lab/lab';

// Our own records file: another lab may be running with the default one at the same time.
const RECORDS = '/tmp/gdr-doctor-lab-prompts.records.json';
const PASSWORD = 'pwuser-lab-pw';
const terminal = new TmuxServer(`gdrdoc-prompts-${process.pid}`);

/** A CLI run in a pane of this file's own tmux server. */
class Run extends TmuxRun {
  constructor(dir: string, session: string, cliArgs: string[], stdinRedirect = '') {
    super(terminal, dir, session, cliArgs, { stdinRedirect });
  }
}

describe('gdr-doctor diagnose asking on a terminal (tmux)', function () {
  this.timeout(90_000);
  let lab: Lab;
  let host: LabHost;
  let fingerprint: string;
  let n = 0;

  /** A case folder with an ssh_config for alias `target` and its known_hosts. */
  function setUp(
    user: string,
    identityFile: string,
    knownHosts: 'empty' | 'known',
  ): { dir: string; conf: string; kh: string; session: string } {
    const id = ++n;
    return { ...sshCase(path.join(lab.dir, `prompts-${id}`), host, user, identityFile, knownHosts), session: `case${id}` };
  }

  before(async () => {
    assertLabCanRun();
    execFileSync('tmux', ['-V']); // missing: test/lab/install.sh installs it
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build first`);
    await cleanupStale(RECORDS);
    lab = await startLab({ hosts: [{ name: 'gpu-prompts', profile: 'healthy' }], recordsPath: RECORDS });
    host = lab.hosts[0];
    // The fingerprint as ssh-keygen computes it, independently of gdr-doctor's code.
    const pub = path.join(lab.dir, 'gpu-prompts.hostkey.pub');
    fs.writeFileSync(pub, `${host.hostKeyLine.split(' ').slice(1).join(' ')}\n`);
    fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', pub], { encoding: 'utf8' }).split(' ')[1];
  });

  after(async () => {
    terminal.kill();
    await lab?.stop();
    if (lab) fs.rmSync(lab.dir, { recursive: true, force: true });
  });

  it('shows an unknown host key as ssh does; "no" refuses with exit 3 and records nothing', async () => {
    const c = setUp('gdr', lab.keys.plain, 'empty');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target', '--json']);
    const screen = await run.waitFor(/continue connecting/);
    const name = `[${host.address}]:${host.port}`;
    assert.match(
      screen,
      new RegExp(
        `^The authenticity of host '${escape(name)}' can't be established\\.\\n` +
          `ED25519 key fingerprint is ${escape(fingerprint)}\\.\\nAre you sure you want to continue connecting \\(yes/no/\\[fingerprint\\]\\)\\? ?$`,
        'm',
      ),
    );
    run.type('no');
    run.key('Enter');
    assert.equal(await run.exitCode(), 3);
    assert.match(run.read('err'), /cannot reach \(host-key\)/);
    assert.equal(fs.readFileSync(c.kh, 'utf8'), '');
    assert.equal(run.read('out'), '', 'nothing on stdout');
    assert.doesNotMatch(run.read('err'), /authenticity/, 'the question went to the terminal, not stderr');
  });

  it('"yes" records the key in the UserKnownHostsFile of the ssh_config and goes on; next time nothing is asked', async () => {
    const c = setUp('gdr', lab.keys.plain, 'empty');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target', '--json']);
    await run.waitFor(/continue connecting/);
    run.type('yes');
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
    assert.equal(fs.readFileSync(c.kh, 'utf8'), `${host.hostKeyLine}\n`);
    assert.match(run.screen(), /^Warning: Permanently added '\[127\.0\.0\.1\]:\d+' \(ED25519\) to the list of known hosts\.$/m);
    assert.equal(JSON.parse(run.read('out')).host, 'target', 'stdout is the JSON report alone');

    fs.mkdirSync(`${c.dir}-again`);
    const again = new Run(`${c.dir}-again`, `${c.session}b`, ['diagnose', '-F', c.conf, 'target', '--batch']);
    assert.equal(await again.exitCode(), 0, again.read('err'));
  });

  it('asks a password user for the password without showing it, and logs in', async () => {
    const c = setUp('pwuser', lab.keys.unauthorized, 'known');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target', '--json']);
    await run.waitFor(/^\(target\) Password: ?$/m); // PAM's prompt, sent through keyboard-interactive
    run.type(PASSWORD);
    await sleep(300);
    assert.ok(!run.screen().includes(PASSWORD), 'typed characters are not echoed');
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
    assert.equal(JSON.parse(run.read('out')).target.user, 'pwuser');
    for (const text of [run.screen(), run.read('out'), run.read('err')]) assert.ok(!text.includes(PASSWORD));
    assert.match(fs.readFileSync(host.sshdLogPath, 'utf8'), /Accepted keyboard-interactive\/pam for pwuser/);
  });

  it('does not count the time a user takes to answer against ConnectTimeout', async () => {
    const c = setUp('pwuser', lab.keys.unauthorized, 'known');
    fs.appendFileSync(c.conf, '  ConnectTimeout 1\n');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target']);
    await run.waitFor(/^\(target\) Password: ?$/m);
    await sleep(2500); // the user thinks for longer than ConnectTimeout
    run.type(PASSWORD);
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
  });

  it('a wrong password is asked again as ssh does, then fails with exit 3 (auth)', async () => {
    const c = setUp('pwuser', lab.keys.unauthorized, 'known');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target']);
    // One keyboard-interactive prompt, then the password method's tries (NumberOfPasswordPrompts 3).
    await run.waitFor(/^\(target\) Password: ?$/m);
    run.type('wrong-pw-1');
    run.key('Enter');
    for (let i = 1; i <= 3; i++) {
      await run.waitFor(/^pwuser@target's password: ?$/m, i);
      run.type(`wrong-pw-${i + 1}`);
      run.key('Enter');
    }
    assert.equal(await run.exitCode(), 3);
    assert.match(run.read('err'), /^gdr-doctor: target: cannot reach \(auth\)/m);
    const screen = run.screen();
    assert.equal(screen.split('Permission denied, please try again.').length - 1, 2);
    assert.doesNotMatch(screen + run.read('err'), /wrong-pw/);
  });

  it('asks the passphrase of an encrypted key without showing it, again after a wrong one', async () => {
    const c = setUp('gdr', lab.keys.encrypted, 'known');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target', '--json']);
    const prompt = new RegExp(`^Enter passphrase for key '${escape(lab.keys.encrypted)}': ?$`, 'm');
    await run.waitFor(prompt);
    run.type('not-the-passphrase');
    run.key('Enter');
    await run.waitFor(prompt, 2);
    run.type(lab.keys.passphrase);
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
    assert.equal(JSON.parse(run.read('out')).target.user, 'gdr');
    for (const text of [run.screen(), run.read('err')]) {
      assert.ok(!text.includes(lab.keys.passphrase) && !text.includes('not-the-passphrase'));
    }
  });

  it('Ctrl-C cancels the prompt (not the program), stops the password tries, and leaves the terminal echoing', async () => {
    const c = setUp('pwuser', lab.keys.unauthorized, 'known');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target']);
    await run.waitFor(/^\(target\) Password: ?$/m);
    run.key('C-c');
    await run.waitFor(/^pwuser@target's password: ?$/m); // still running: the next method asks
    run.key('C-c');
    assert.equal(await run.exitCode(), 3);
    assert.match(run.read('err'), /cannot reach \(auth\)/);
    assert.equal(run.screen().split("pwuser@target's password:").length - 1, 1, 'no more password prompts after Ctrl-C');
    const stty = run.read('stty');
    assert.match(stty, /(^|\s)echo(\s|$)/);
    assert.match(stty, /(^|\s)icanon(\s|$)/);
  });

  it('ends a question whose connection failed meanwhile, instead of waiting for an answer', async () => {
    // The server drops the connection while the password prompt waits for the user.
    const c = setUp('pwuser', lab.keys.unauthorized, 'known');
    const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target']);
    await run.waitFor(/^\(target\) Password: ?$/m);
    // All of them: the unprivileged pre-auth child holds the socket too.
    const sessions = descendantPids(host.listenerPid());
    assert.ok(sessions.length > 0, 'the connection has a per-session sshd');
    for (const pid of sessions) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (e) {
        // A privilege-separated child may exit on its own once its parent is gone.
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      }
    }
    assert.equal(await run.exitCode(10_000), 3, 'the CLI exits with nothing typed');
    assert.match(run.read('err'), /cannot reach/);
    assert.match(run.read('stty'), /(^|\s)echo(\s|$)/);
  });

  for (const [why, args, stdin] of [
    ['--batch', ['--batch'], ''],
    ['standard input is not a terminal', [], '</dev/null'],
  ] as const) {
    it(`asks nothing when ${why === '--batch' ? 'given --batch' : 'stdin is not a terminal'}, and says why once on stderr`, async () => {
      const c = setUp('pwuser', lab.keys.unauthorized, 'empty');
      const run = new Run(c.dir, c.session, ['diagnose', '-F', c.conf, 'target', ...args], stdin);
      assert.equal(await run.exitCode(), 3);
      const err = run.read('err');
      assert.equal(err.split('gdr-doctor: not asking questions').length - 1, 1, err);
      assert.match(
        err,
        new RegExp(
          `not asking questions \\(${escape(why)}\\)` +
            `: an unknown host key is refused, so hosts must already be in known_hosts \\(or set StrictHostKeyChecking accept-new\\)`,
        ),
      );
      assert.match(err, /cannot reach \(host-key\)/);
      assert.doesNotMatch(run.screen(), /authenticity|assword/);
      assert.equal(fs.readFileSync(c.kh, 'utf8'), '');
    });
  }
});
