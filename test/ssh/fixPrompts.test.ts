// `gdr-doctor fix` without --yes on a real terminal (a tmux pane): the plan with the exact command,
// the question, and sudo's password asked by the CLI itself. What ran is read from the host's call
// log and its lsmod, never from gdr-doctor's own words. Typed passwords are never shown or kept.
// Needs root (the lab) and tmux; fails, not skips, without them.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAuditLog } from '../support/labFix';
import { CLI } from '../support/paths';
import { realSshArgs } from '../support/sshCase';
import { Run, RunOptions, sleep, sshCase, SshCase, TmuxServer } from '../support/tmux';
import { Lab, LabHost, startTestLab } from '../lab/lab';

// Our own records file and tmux server: other labs and suites may run on this machine at the same time.
const RECORDS = '/tmp/gdr-doctor-lab-fixprompts.records.json';
const PASSWORD = 'pwuser-lab-pw'; // pwuser's login and sudo password in the lab's default users
const terminal = new TmuxServer(`gdrdoc-fixprompts-${process.pid}`);

const QUESTION = /^Apply this on target\? \[y\/N\] ?/m;
// The plan's command, written out here from the fix's documented script (README: modprobe only from
// root-owned system directories, refused beside the other module, checked in /sys/module after), not
// imported from src: the step's first and last lines exactly, and these lines of it in this order.
const STEP_HEADER = '    1. load nvidia_peermem (modprobe nvidia_peermem)';
const LOAD_LINES = [
  "$ LC_ALL=C sudo -n /bin/sh -c 'PATH=/usr/sbin:/sbin:/usr/bin:/bin",
  'export PATH',
  'LC_ALL=C',
  'export LC_ALL',
  'exec </dev/null',
  'tool() {',
  'M=$(tool modprobe) || exit 1',
  'if [ -d /sys/module/nv_peer_mem ]; then echo "gdr-doctor: nv_peer_mem is loaded, and only one peer-memory module may be: nothing was changed" >&2; exit 1; fi',
  '"$M" nvidia_peermem || exit $?',
  `echo "gdr-doctor: nvidia_peermem is loaded"'`,
];

/** Where the plan's load step starts in `text` (its header), or -1 when the step is not the command above. */
function loadStepAt(text: string): number {
  const at = text.indexOf(`${STEP_HEADER}\n`);
  if (at < 0) return -1;
  const lines: string[] = [];
  for (const l of text.slice(at + STEP_HEADER.length + 1).split('\n')) {
    if (!l.startsWith('       ')) break;
    lines.push(l.slice(7));
  }
  let next = 0;
  for (const l of lines) if (l === LOAD_LINES[next]) next++;
  const whole = lines[0] === LOAD_LINES[0] && lines.at(-1) === LOAD_LINES.at(-1) && next === LOAD_LINES.length;
  return whole ? at : -1;
}

const modprobes = (h: LabHost) => h.calls().filter((c) => c.cmd === 'modprobe');

describe('gdr-doctor fix asking on a terminal (tmux)', function () {
  this.timeout(90_000);
  let lab: Lab;
  let n = 0;

  /** A case folder logging in to `host` as `user`, with its own audit log; the CLI runs in a new pane. */
  function fixRun(
    host: LabHost,
    user: string,
    identityFile: string,
    options: RunOptions = { output: 'both' },
  ): SshCase & { run: Run; audit: string } {
    const id = ++n;
    const c = sshCase(path.join(lab.dir, `fixprompts-${id}`), host, user, identityFile, 'known');
    const audit = path.join(c.dir, 'audit.log');
    const env = { ...options.env, GDR_DOCTOR_AUDIT_LOG: audit };
    const run = new Run(terminal, c.dir, `fix${id}`, ['fix', '-F', c.conf, 'target', 'load-peermem'], { ...options, env });
    return { ...c, run, audit };
  }

  /** lsmod on the host, through OpenSSH as root: independent of gdr-doctor's code. */
  function lsmod(host: LabHost): string {
    return execFileSync('ssh', [...realSshArgs(lab, host, 'root'), 'lsmod'], {
      encoding: 'utf8',
      env: { ...process.env, SSH_AUTH_SOCK: '' },
    });
  }

  async function refuses(host: LabHost, answer: string, options?: RunOptions): Promise<Run> {
    const { run, audit } = fixRun(host, 'gdr', lab.keys.plain, options);
    await run.waitFor(QUESTION);
    if (answer !== '') run.type(answer);
    run.key('Enter');
    assert.equal(await run.exitCode(), 1, run.read('err'));
    assert.deepEqual(modprobes(host), [], 'modprobe never ran');
    assert.equal(fs.existsSync(audit), false, 'nothing was audited');
    assert.match(run.read('stty'), /(^|\s)echo(\s|$)/, 'the terminal echoes again');
    return run;
  }

  before(async () => {
    execFileSync('tmux', ['-V']); // missing: test/lab/install.sh installs it
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build first`);
    // Loopback hosts only, with the default users (gdr: NOPASSWD sudo; pwuser: sudo asks its password).
    lab = await startTestLab({
      hosts: [
        { name: 'fxp-gdr', profile: 'needs-peermem' },
        { name: 'fxp-pw', profile: 'needs-peermem' },
      ],
      recordsPath: RECORDS,
    });
    for (const h of lab.hosts) assert.doesNotMatch(lsmod(h), /^nvidia_peermem /m, 'the profile starts with the module not loaded');
  });

  after(async () => {
    terminal.kill();
    await lab?.stop();
    if (lab) fs.rmSync(lab.dir, { recursive: true, force: true });
  });

  it('shows the plan with the exact command, then asks; "n" refuses and runs nothing', async () => {
    const run = await refuses(lab.host('fxp-gdr'), 'n', { output: 'terminal' });
    const screen = run.screen();
    const plan = screen.indexOf('target: load-peermem (nvidia_peermem): plan\n');
    const step = loadStepAt(screen);
    const question = screen.search(QUESTION);
    assert.ok(plan >= 0 && step > plan, `the pane shows the plan and its command exactly:\n${screen}`);
    assert.ok(question > step, 'the question comes after the plan');
    assert.match(screen.slice(question), /^Apply this on target\? \[y\/N\] n\nNot applied: nothing was changed\.\n/);
  });

  it('an empty answer (Enter alone) refuses too; the plan is on stdout, the question is not', async () => {
    const run = await refuses(lab.host('fxp-gdr'), '');
    assert.match(run.read('err'), /^Not applied: nothing was changed\.$/m);
    assert.ok(loadStepAt(run.read('out')) >= 0, 'the plan is on stdout');
    assert.doesNotMatch(run.read('out'), /Apply this/);
  });

  it('asks on the terminal even when stdout and stderr are redirected, as ssh and sudo do', async () => {
    const run = await refuses(lab.host('fxp-gdr'), 'n', { output: 'files' });
    assert.ok(loadStepAt(run.read('out')) >= 0, 'the plan is in the redirected stdout');
    assert.match(run.read('err'), /^Not applied: nothing was changed\.$/m);
  });

  it('"y" applies: modprobe runs once, as root, and lsmod on the host shows nvidia_peermem', async () => {
    const h = lab.host('fxp-gdr');
    const { run, audit } = fixRun(h, 'gdr', lab.keys.plain);
    await run.waitFor(QUESTION);
    run.type('y');
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
    assert.match(run.read('out'), /^target: load-peermem applied: nvidia_peermem is loaded and registered \(nv_mem\)/m);
    assert.deepEqual(
      modprobes(h).map((c) => [c.uid, c.args]),
      [[0, ['nvidia_peermem']]],
    );
    assert.match(lsmod(h), /^nvidia_peermem\s+16384\s/m);
    const entries = readAuditLog(audit);
    assert.deepEqual(
      entries.map((e) => [e.host, e.fix, e.status]),
      [['target', 'load-peermem', 'applied']],
    );
  });

  it("asks pwuser's sudo password on the terminal without showing it, applies, and keeps it nowhere", async () => {
    const h = lab.host('fxp-pw');
    const { run, audit } = fixRun(h, 'pwuser', lab.keys.unauthorized);
    await run.waitFor(/^\(target\) Password: ?$/m); // the login: PAM's prompt through keyboard-interactive
    run.type(PASSWORD);
    run.key('Enter');
    const screen = await run.waitFor(QUESTION);
    assert.match(
      screen,
      /^ {7}\$ LC_ALL=C sudo -S -p 'gdr-doctor-sudo-[0-9a-f]+' \/bin\/sh -c 'PATH=/m,
      'the plan says sudo reads a password',
    );
    run.type('y');
    run.key('Enter');
    // Not anchored: with output 'both', the newline after "y" (stderr, through tee) may reach the pane after this prompt (/dev/tty).
    await run.waitFor(/pwuser@target \(sudo\)'s password: ?$/m);
    run.type(PASSWORD);
    await sleep(300);
    assert.ok(!run.screen().includes(PASSWORD), 'typed characters are not echoed');
    run.key('Enter');
    assert.equal(await run.exitCode(), 0, run.read('err'));
    assert.match(run.read('out'), /^target: load-peermem applied: /m);
    assert.deepEqual(
      modprobes(h).map((c) => [c.uid, c.args]),
      [[0, ['nvidia_peermem']]],
    );
    assert.match(lsmod(h), /^nvidia_peermem\s+16384\s/m);
    const log = fs.readFileSync(audit, 'utf8');
    assert.equal(JSON.parse(log).status, 'applied');
    const kept = { pane: run.screen(), stdout: run.read('out'), stderr: run.read('err'), 'audit log': log };
    for (const [where, text] of Object.entries(kept)) assert.ok(!text.includes(PASSWORD), `the password is not in the ${where}`);
    assert.match(run.read('stty'), /(^|\s)echo(\s|$)/, 'the terminal echoes again');
  });
});
