// Quick fixes against simulated GPU hosts: what ran is read from each host's call log (command, uid)
// and what changed from its copy-on-write /etc (etc-upper), never only from gdr-doctor's own words.
// This lab uses loopback hosts only and its own records file, beside other labs of the same machine.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FixPlan, FixResult } from '../../src/core/fixes';
import { SshConnection } from '../../src/core/ssh/connect';
import { exec } from '../../src/core/ssh/exec';
import { noPrompts, SshPrompts } from '../../src/core/ssh/prompts';
import { REPO_ROOT } from '../support/paths';
import { runCli } from '../support/cli';
import { fixOverSsh, openLabHost } from '../support/labFix';
import { assertLabCanRun, cleanupStale, Lab, LabHost, LabUser, startLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-fixes.records.json';
const USERS: LabUser[] = [
  { name: 'gdr', uid: 1500, sudo: 'nopasswd', keys: ['plain'] },
  { name: 'pwuser', uid: 1501, sudo: 'password', password: 'pwuser-lab-pw', keys: [] },
  { name: 'nosudo', uid: 1502, sudo: 'none', password: 'nosudo-lab-pw', keys: ['plain'] },
  { name: 'root', uid: 0, sudo: 'none', keys: ['plain'] },
];
const CONF = 'modules-load.d/nvidia-peermem.conf';
const CONF_TEXT = '# GPUDirect RDMA peer-memory module, loaded at boot (written by gdr-doctor persist-peermem)\nnvidia-peermem\n';

let lab: Lab;

/** Each host's CLI runs append to that host's own audit log in the lab folder. */
const auditLogOf = (host: string) => path.join(lab.dir, `audit-${host}.log`);
const audited = (host: string) =>
  fs
    .readFileSync(auditLogOf(host), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

function cli(args: string[]) {
  const host = args.find((a) => a.includes('fx-'))?.replace(/^.*@/, '') ?? 'none';
  return runCli(args, { GDR_DOCTOR_AUDIT_LOG: auditLogOf(host) });
}

const modprobes = (h: LabHost) => h.calls().filter((c) => c.cmd === 'modprobe');
const upper = (h: LabHost, rel: string) => path.join(h.etcUpperDir, rel);
const readUpper = (h: LabHost, rel: string) => fs.readFileSync(upper(h, rel), 'utf8');

/** Answers the login password and the sudo password separately, counting the sudo questions. */
function passwords(login: string | null, sudo: string | null): SshPrompts & { sudoAsked: number } {
  const p = {
    ...noPrompts,
    sudoAsked: 0,
    password: async (_user: string, host: string) => {
      if (!host.endsWith(' (sudo)')) return login;
      p.sudoAsked++;
      return sudo;
    },
  };
  return p;
}

const open = (destination: string, prompts: SshPrompts): Promise<SshConnection> => openLabHost(lab.sshConfigPath, destination, prompts);
/** The core API as the CLI drives it: plan, then apply, sudo's password through the same prompts. */
const fix = (destination: string, fixId: FixPlan['fixId'], prompts: SshPrompts): Promise<FixResult> =>
  fixOverSsh(lab.sshConfigPath, destination, fixId, prompts);

function diagnoseIds(destination: string): Promise<string[]> {
  return cli(['diagnose', '-F', lab.sshConfigPath, destination, '--json']).then((r) => {
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout).findings as { id: string }[]).map((f) => f.id);
  });
}

describe('gdr-doctor fix on simulated GPU hosts', function () {
  this.timeout(120_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    const host = (name: string, profile = 'needs-peermem') => ({ name, profile, users: USERS });
    lab = await startLab({
      recordsPath: RECORDS,
      hosts: [
        host('fx-cli'),
        host('fx-pw'),
        host('fx-wrongpw'),
        host('fx-root'),
        host('fx-etcmod'),
        host('fx-mismatch', 'ofed-mismatch'),
        host('fx-nosudo'),
      ],
    });
  });
  after(async () => lab?.stop());

  describe('through the CLI, as a NOPASSWD sudoer', () => {
    it('--dry-run prints the plan with the exact command and runs nothing', async () => {
      const h = lab.host('fx-cli');
      const r = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'load-peermem', '--dry-run']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /fx-cli: load-peermem \(nvidia_peermem\): plan/);
      assert.match(
        r.stdout,
        /\$ LC_ALL=C sudo -n \/bin\/sh -c '[\s\S]*M=\$\(tool modprobe\) \|\| exit 1\n[\s\S]*"\$M" nvidia_peermem \|\| exit \$\?\n/,
      );
      assert.match(r.stdout, /echo "gdr-doctor: nvidia_peermem is loaded"'\n/);
      assert.deepEqual(modprobes(h), []);
      assert.equal(fs.existsSync(auditLogOf('fx-cli')), false, 'a dry run is not audited');
    });

    it('refuses to apply without --yes when there is no terminal to ask on', async () => {
      const r = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'load-peermem']);
      assert.equal(r.status, 64);
      assert.match(r.stderr, /no terminal to ask on[\s\S]*--dry-run[\s\S]*--yes/);
      assert.deepEqual(modprobes(lab.host('fx-cli')), []);
    });

    it('loads the module once, as root, verifies it by probing again, and audits it', async () => {
      const h = lab.host('fx-cli');
      assert.ok((await diagnoseIds('fx-cli')).includes('peermem.not-loaded'), 'the profile starts with the module not loaded');
      const r = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'load-peermem', '--yes']);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /load-peermem applied: nvidia_peermem is loaded and registered \(nv_mem\)/);
      assert.deepEqual(
        modprobes(h).map((c) => [c.uid, c.args]),
        [[0, ['nvidia_peermem']]],
      );
      const audit = audited('fx-cli');
      assert.equal(audit.length, 1);
      assert.equal(audit[0].host, 'fx-cli');
      assert.equal(audit[0].fix, 'load-peermem');
      assert.equal(audit[0].status, 'applied');
      assert.match(audit[0].commands[0].command, /sudo -n .*modprobe nvidia_peermem/s);
      assert.ok(!Number.isNaN(Date.parse(audit[0].time)));
    });

    it('skips the load when the module is already loaded', async () => {
      const r = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'load-peermem', '--yes']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /nvidia_peermem is already loaded: nothing to do/);
      assert.equal(modprobes(lab.host('fx-cli')).length, 1, 'modprobe did not run again');
    });

    it('persists twice: one modules-load.d file with one line, and no temp file left', async () => {
      const h = lab.host('fx-cli');
      const first = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'persist-peermem', '--yes']);
      assert.equal(first.status, 0, first.stdout + first.stderr);
      assert.match(first.stdout, /\/etc\/modules-load\.d\/nvidia-peermem\.conf names nvidia-peermem/);
      assert.equal(readUpper(h, CONF), CONF_TEXT);
      const second = await cli(['fix', '-F', lab.sshConfigPath, 'fx-cli', 'persist-peermem', '--yes']);
      assert.equal(second.status, 0, second.stderr);
      assert.match(second.stdout, /already loaded at boot by \/etc\/modules-load\.d\/nvidia-peermem\.conf: nothing to do/);
      assert.equal(readUpper(h, CONF), CONF_TEXT);
      assert.deepEqual(fs.readdirSync(upper(h, 'modules-load.d')), ['nvidia-peermem.conf']);
      assert.equal(modprobes(h).length, 1, 'the loaded module was not loaded again');
    });

    it('leaves a host that diagnose reports clean of peer-memory problems', async () => {
      const ids = await diagnoseIds('fx-cli');
      assert.ok(!ids.includes('peermem.not-loaded'), ids.join(', '));
      assert.ok(!ids.includes('peermem.not-persistent'), ids.join(', '));
    });
  });

  describe('privilege', () => {
    it('as root: runs the commands directly, without sudo', async () => {
      const h = lab.host('fx-root');
      const r = await cli(['fix', '-F', lab.sshConfigPath, 'root@fx-root', 'load-peermem', '--yes', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const { result } = JSON.parse(r.stdout);
      assert.equal(result.status, 'applied');
      assert.equal(result.plan.privilege, 'root');
      assert.doesNotMatch(result.steps[0].command, /sudo/);
      assert.deepEqual(
        modprobes(h).map((c) => c.uid),
        [0],
      );
    });

    it('sudo with a password: asked once, sent on stdin, never shown or logged', async () => {
      const h = lab.host('fx-pw');
      const prompts = passwords('pwuser-lab-pw', 'pwuser-lab-pw');
      const result = await fix('pwuser@fx-pw', 'persist-peermem', prompts);
      assert.equal(result.status, 'applied', result.message);
      assert.equal(prompts.sudoAsked, 1);
      assert.equal(result.steps.length, 2, 'load, then persist');
      assert.ok(result.steps.every((s) => /sudo -S -p 'gdr-doctor-sudo-[0-9a-f]+'/.test(s.command)));
      assert.doesNotMatch(JSON.stringify(result), /pwuser-lab-pw|gdr-doctor-sudo-[0-9a-f]+'?:/);
      assert.deepEqual(
        modprobes(h).map((c) => [c.uid, c.args]),
        [[0, ['nvidia_peermem']]],
      );
      assert.equal(readUpper(h, CONF), CONF_TEXT);
    });

    it('a wrong sudo password stops the fix: nothing runs as root, nothing is written', async () => {
      const h = lab.host('fx-wrongpw');
      const prompts = passwords('pwuser-lab-pw', 'not-the-password');
      const result = await fix('pwuser@fx-wrongpw', 'persist-peermem', prompts);
      assert.equal(result.status, 'failed');
      assert.match(result.message, /sudo did not accept the password of pwuser on pwuser@fx-wrongpw.*nothing was changed/);
      assert.equal(prompts.sudoAsked, 1, 'asked once, not again');
      assert.equal(result.steps.length, 1);
      assert.deepEqual(modprobes(h), []);
      assert.equal(fs.existsSync(upper(h, 'modules-load.d')), false);
    });

    it('a user who may not use sudo gets a clear refusal, with or without a password to give', async () => {
      const h = lab.host('fx-nosudo');
      const unasked = await fix('nosudo@fx-nosudo', 'load-peermem', noPrompts);
      assert.equal(unasked.status, 'refused');
      assert.match(unasked.message, /sudo on nosudo@fx-nosudo needs the password of nosudo and none was given: nothing was changed/);
      const given = await fix('nosudo@fx-nosudo', 'load-peermem', passwords(null, 'nosudo-lab-pw'));
      assert.equal(given.status, 'failed');
      assert.match(
        given.message,
        /nosudo may not use sudo on nosudo@fx-nosudo \(sudo said: nosudo is not in the sudoers file\.\).*Log in as root/,
      );
      assert.deepEqual(modprobes(h), []);
    });
  });

  it('persists to /etc/modules where the host has no /etc/modules-load.d', async () => {
    const h = lab.host('fx-etcmod');
    // The host's view: no modules-load.d, and the /etc/modules of a real Ubuntu host (see the profile README).
    const etcModules = fs.readFileSync(path.join(REPO_ROOT, 'test/lab/profiles/needs-peermem/etc-modules-variant/modules'), 'utf8');
    const root = await open('root@fx-etcmod', noPrompts);
    try {
      const r = await exec(root.client, 'rm -rf /etc/modules-load.d && cat > /etc/modules', {
        stdin: etcModules,
        timeoutMs: 10_000,
        maxBytes: 65536,
      });
      assert.equal(r.exitCode, 0, r.stderr.toString());
    } finally {
      root.close();
    }
    const first = await fix('fx-etcmod', 'persist-peermem', noPrompts);
    assert.equal(first.status, 'applied', first.message);
    assert.equal(first.plan.fileChange?.path, '/etc/modules');
    assert.match(first.plan.fileChange?.diff ?? '', /^ eepro100\n\+nvidia-peermem\n$/m);
    assert.equal(readUpper(h, 'modules'), `${etcModules}nvidia-peermem\n`);
    const second = await fix('fx-etcmod', 'persist-peermem', noPrompts);
    assert.equal(second.status, 'nothing-to-do', second.message);
    assert.equal(readUpper(h, 'modules'), `${etcModules}nvidia-peermem\n`);
    assert.equal(fs.existsSync(path.join(h.etcUpperDir, CONF)), false, 'no modules-load.d file appeared');
    assert.deepEqual(
      fs.readdirSync(h.etcUpperDir).filter((f) => f.includes('gdr-doctor')),
      [],
      'no temp file left',
    );
  });

  it('modprobe "Invalid argument" is reported as peermem.ofed-mismatch and nothing is persisted', async () => {
    const h = lab.host('fx-mismatch');
    const r = await cli(['fix', '-F', lab.sshConfigPath, 'fx-mismatch', 'persist-peermem', '--yes', '--json']);
    assert.equal(r.status, 1, r.stderr);
    const { result } = JSON.parse(r.stdout);
    assert.equal(result.status, 'failed');
    assert.deepEqual(
      result.findings.map((f: { id: string }) => f.id),
      ['peermem.ofed-mismatch'],
    );
    assert.ok(
      result.findings[0].evidence.includes("modprobe nvidia_peermem: modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument"),
    );
    assert.match(
      result.message,
      /load nvidia_peermem \(modprobe nvidia_peermem\)" failed \(exit 1\)[\s\S]*Nothing was persisted[\s\S]*Invalid argument/,
    );
    assert.equal(result.steps.length, 1, 'the persist step did not run');
    assert.deepEqual(
      modprobes(h).map((c) => [c.uid, c.args]),
      [[0, ['nvidia_peermem']]],
    );
    assert.equal(fs.existsSync(upper(h, 'modules-load.d')), false);
    const [entry] = audited('fx-mismatch');
    assert.equal(entry.status, 'failed');
    assert.deepEqual(entry.findings, ['peermem.ofed-mismatch']);
    assert.equal(entry.commands[0].exitCode, 1);
  });
});
