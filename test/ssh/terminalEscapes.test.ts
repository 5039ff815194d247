// Escape sequences from a host, in a real terminal (a tmux pane): what a fix printed on a lab host
// (its modprobe error holds OSC 52, a screen clear and a fake prompt), and an SSH server's
// DISCONNECT message (a hostile ssh2 server, test/lab/hostileSsh.ts). The pane must show them as
// text (OpenSSH's \ooo), the terminal's clipboard must stay empty, and --json keeps the exact text.
// Needs root (the lab) and tmux; fails, not skips, without them.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { CLI } from '../support/paths';
import { escape, Run, sshCase, TmuxServer } from '../support/tmux';
import { HostileSsh, startHostileSsh } from '../lab/hostileSsh';
import { assertLabCanRun, cleanupStale, derivedProfile, Lab, startLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-escapes.records.json';
/** OSC 52 (the clipboard: "echo pwned"), clear screen, cursor home, a fake prompt, an 8-bit CSI. */
const ATTACK = '\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[Huser@laptop:~$ \u009b31mred';
/** How the pane must show it: each control character's UTF-8 bytes as \ooo, the rest as it is. */
const SHOWN = '\\033]52;c;ZWNobyBwd25lZA==\\007\\033[2J\\033[Huser@laptop:~$ \\302\\23331mred';
const MODPROBE_ERROR = `modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument ${ATTACK}`;
const terminal = new TmuxServer(`gdrdoc-escapes-${process.pid}`);

describe('host text on a real terminal (tmux): escape sequences shown, never run', function () {
  this.timeout(90_000);
  let lab: Lab;
  let profile: string | undefined;
  let hostile: HostileSsh;
  let n = 0;

  const buffers = () => terminal.tmux('list-buffers', '-F', '#{buffer_sample}').trim();

  before(async () => {
    assertLabCanRun();
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build first`);
    await cleanupStale(RECORDS);
    // The ofed-mismatch host's modprobe failure, with an attack appended.
    profile = derivedProfile(
      'needs-peermem whose modprobe nvidia_peermem fails with terminal escape sequences in its message.',
      'needs-peermem',
      { modprobeErrors: { nvidia_peermem: MODPROBE_ERROR } },
    );
    lab = await startLab({ hosts: [{ name: 'esc-fix', profile }], recordsPath: RECORDS });
    hostile = await startHostileSsh(path.join(lab.dir, 'hostile'), `Server going down. ${ATTACK}`);
    // tmux takes OSC 52 from programs only with set-clipboard on: then a paste buffer shows it arrived.
    terminal.tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
    terminal.tmux('set-option', '-s', 'set-clipboard', 'on');
  });

  after(async () => {
    terminal.kill();
    await hostile?.stop();
    await lab?.stop();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  function pane(args: string[]): Run {
    const dir = path.join(lab.dir, `esc-${++n}`);
    fs.mkdirSync(dir);
    return new Run(terminal, dir, `esc${n}`, args, { output: 'terminal', env: { GDR_DOCTOR_AUDIT_LOG: path.join(dir, 'audit.log') } });
  }

  it('this terminal runs OSC 52 when it arrives raw (what the tests below are about)', async () => {
    const dir = path.join(lab.dir, 'esc-raw');
    fs.mkdirSync(dir);
    terminal.tmux(
      'new-session',
      '-d',
      '-s',
      'raw',
      `printf '${ATTACK.replace(/\x1b/g, '\\033').replace(/\x07/g, '\\007').replace('\u009b', '')}'; sleep 600`,
    );
    for (let i = 0; i < 100 && buffers() === ''; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(buffers(), 'echo pwned');
    terminal.tmux('delete-buffer');
    terminal.tmux('kill-session', '-t', 'raw');
  });

  it('gdr-doctor fix: what modprobe printed is shown as text, the clipboard untouched', async () => {
    const c = sshCase(path.join(lab.dir, 'fix-case'), lab.host('esc-fix'), 'gdr', lab.keys.plain, 'known');
    const run = pane(['fix', '-F', c.conf, 'target', 'load-peermem', '--yes']);
    assert.equal(await run.exitCode(), 1);
    const screen = run.screen();
    assert.match(screen, new RegExp(`Invalid argument ${escape(SHOWN)}`), screen);
    assert.match(
      screen,
      /^target: load-peermem \(nvidia_peermem\): plan\n[^]*^target: load-peermem FAILED: /m,
      'what was printed before it is still on the screen',
    );
    assert.equal(buffers(), '', 'no clipboard write reached the terminal');
  });

  it('gdr-doctor fix --json keeps the exact text', async () => {
    const c = sshCase(path.join(lab.dir, 'fix-json'), lab.host('esc-fix'), 'gdr', lab.keys.plain, 'known');
    const r = await runCli(['fix', '-F', c.conf, 'target', 'load-peermem', '--yes', '--json'], {
      GDR_DOCTOR_AUDIT_LOG: path.join(c.dir, 'audit.log'),
    });
    assert.equal(r.status, 1, r.stderr);
    const { result } = JSON.parse(r.stdout) as { result: { message: string } };
    assert.ok(result.message.includes(MODPROBE_ERROR), result.message);
    assert.doesNotMatch(r.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, 'escaped as JSON, so the terminal gets no control character');
  });

  it("gdr-doctor diagnose: an SSH server's DISCONNECT message is shown as text", async () => {
    const dir = path.join(lab.dir, 'hostile-case');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'known_hosts'), `${hostile.knownHostsLine}\n`);
    fs.writeFileSync(path.join(dir, 'ssh_config'), hostile.sshConfig('hostile', path.join(dir, 'known_hosts')));
    const run = pane(['diagnose', '-F', path.join(dir, 'ssh_config'), 'hostile', '--batch']);
    assert.equal(await run.exitCode(), 3);
    const screen = run.screen();
    assert.match(
      screen,
      new RegExp(`^gdr-doctor: hostile: cannot reach \\(protocol\\): hostile: Server going down\\. ${escape(SHOWN)}$`, 'm'),
      screen,
    );
    assert.equal(buffers(), '');
  });
});

// tmux's own binary must be there: test/lab/install.sh installs it.
execFileSync('tmux', ['-V']);
