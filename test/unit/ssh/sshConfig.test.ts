// The ssh_config resolver must answer as OpenSSH does: every case is checked against the real
// `ssh -G` on the same files, field by field.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDestination } from '../../../src/core/ssh/destination';
import { localResolveEnv } from '../../../src/core/ssh/nodeConfigFs';
import { resolveSshConfig } from '../../../src/core/ssh/sshConfig';
import { assertSameAsSsh } from '../../support/sshG';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-sshcfg-'));
// Relative Include paths are taken from ~/.ssh, so one case needs a folder there.
const userSshDir = path.join(os.homedir(), '.ssh');
const relDirName = `gdr-doctor-test-${process.pid}`;
const relDir = path.join(userSshDir, relDirName);

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

before(() => {
  fs.mkdirSync(relDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(relDir, 'cluster.conf'), 'Host rel-*\n  User reluser\n  Port 2022\n');
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(relDir, { recursive: true, force: true });
});

describe('ssh_config resolution (checked against ssh -G)', () => {
  const main = () =>
    write(
      'main.conf',
      `# cluster
Host login
  HostName login.cluster.example
  User alice
  Port 2200
Host gpu* !gpu13
  HostName %h.cluster.example
  ProxyJump login,bastion@jump:2022
  IdentityFile ~/.ssh/id_gpu_%r
  IdentitiesOnly yes
  StrictHostKeyChecking accept-new
  UserKnownHostsFile ~/.ssh/known_hosts.d/%h "/tmp/kh_two"
Host gpu13
  StrictHostKeyChecking=yes
  ConnectTimeout 7
Host *
  User bob
  Port 22
  IdentityFile %d/.ssh/id_fallback
  ServerAliveInterval 1m
  ServerAliveCountMax 5
  IdentityAgent ~/.ssh/agent.sock
  HashKnownHosts yes
  ProxyJump none
`,
    );

  it('applies Host blocks in order, first value wins, IdentityFile accumulates', async () => {
    const t = await assertSameAsSsh(main(), 'gpu07');
    assert.equal(t.hostname, 'gpu07.cluster.example');
    assert.equal(t.user, 'bob');
    assert.equal(t.proxyJump, 'login,bastion@jump:2022');
    assert.deepEqual(t.identityFiles, ['~/.ssh/id_gpu_%r', '%d/.ssh/id_fallback']);
    assert.equal(t.strictHostKeyChecking, 'accept-new');
  });

  it('honours negated patterns', async () => {
    const t = await assertSameAsSsh(main(), 'gpu13');
    assert.equal(t.hostname, 'gpu13');
    assert.equal(t.strictHostKeyChecking, 'yes');
    assert.equal(t.connectTimeout, 7);
    assert.equal(t.proxyJump, null);
  });

  it('lets user@host and ssh://user@host:port override the config', async () => {
    await assertSameAsSsh(main(), 'carol@login');
    const t = await assertSameAsSsh(main(), 'ssh://dave@login:2301');
    assert.equal(t.user, 'dave');
    assert.equal(t.port, 2301);
  });

  it('reads the defaults when nothing matches', async () => {
    await assertSameAsSsh(write('empty.conf', ''), 'somehost');
  });

  it('follows Include with globs, absolute and relative to ~/.ssh, and conditional on Host', async () => {
    write('conf.d/10-a.conf', 'Host inc-*\n  User incuser\n');
    write('conf.d/20-b.conf', 'Host inc-b\n  Port 2444\nHost *\n  ConnectTimeout 9\n');
    const file = write(
      'include.conf',
      `Include ${dir}/conf.d/*.conf\nInclude ${relDirName}/*.conf\nHost only-this\n  Include ${dir}/cond.conf\nHost *\n  ServerAliveInterval 15\n`,
    );
    write('cond.conf', 'User conditional\n');
    assert.equal((await assertSameAsSsh(file, 'inc-b')).port, 2444);
    assert.equal((await assertSameAsSsh(file, 'rel-x')).user, 'reluser');
    assert.equal((await assertSameAsSsh(file, 'only-this')).user, 'conditional');
    assert.notEqual((await assertSameAsSsh(file, 'other')).user, 'conditional');
  });

  it('evaluates Match host, originalhost, user and negation', async () => {
    const file = write(
      'match.conf',
      `Host n*
  HostName %h.internal
Match host *.internal user ops
  Port 2555
Match originalhost n2 !user ops
  Port 2666
Match all
  User deploy
`,
    );
    assert.equal((await assertSameAsSsh(file, 'ops@n1')).port, 2555);
    assert.equal((await assertSameAsSsh(file, 'n2')).port, 2666);
    assert.equal((await assertSameAsSsh(file, 'ops@n2')).port, 2555);
    await assertSameAsSsh(file, 'x');
  });

  it('handles case, quoting and the = syntax like ssh does', async () => {
    const file = write('case.conf', 'HOST GPU*\n  hostname = "%h.Example.org"\n  USER="mixed Case"\n');
    assert.equal((await assertSameAsSsh(file, 'GPU01')).hostname, 'gpu01.example.org');
    // Host patterns are case-sensitive in ssh_config: GPU* does not apply to gpu02.
    assert.equal((await assertSameAsSsh(file, 'gpu02')).hostname, 'gpu02');
  });

  it('reports Match exec as not evaluated instead of running it', () => {
    const file = write('exec.conf', 'Match exec "touch /tmp/gdr-should-not-exist"\n  Port 2777\n');
    const t = resolveSshConfig(parseDestination('h'), localResolveEnv(file));
    assert.equal(t.port, 22);
    assert.match(t.warnings[0], /exec\.conf:1: Match exec is not evaluated/);
    assert.equal(fs.existsSync('/tmp/gdr-should-not-exist'), false);
  });
});
