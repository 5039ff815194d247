// gdr-doctor's own SSH layer (src/core/ssh) against real sshd hosts of the lab: host keys are
// checked before any authentication, auth follows OpenSSH's order, ProxyJump chains work.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connect, SshConnection } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { ConnectError } from '../../src/core/ssh/errors';
import { exec } from '../../src/core/ssh/exec';
import { localResolveEnv } from '../../src/core/ssh/nodeConfigFs';
import { noPrompts, SshPrompts } from '../../src/core/ssh/prompts';
import { resolveSshConfig, SshTarget } from '../../src/core/ssh/sshConfig';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { until } from '../support/until';

// Our own lab records and network: other suites and helpers run labs of their own.
const RECORDS = '/tmp/gdrlab-records-connect.json';
const NETWORK = { bridge: 'gdrbr13', subnet: 13 };

let lab: Lab;
let gpu: LabHost, jump1: LabHost, jump2: LabHost, inner: LabHost;
let n = 0;

/** Writes an ssh_config for one case and resolves `dest` through it, as the CLI does. */
function target(dest: string, lines: string[]): SshTarget {
  const file = path.join(lab.dir, `case-${++n}.conf`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return resolveSshConfig(parseDestination(dest), localResolveEnv(file));
}

function hostBlock(h: LabHost, extra: string[] = [], knownHosts = lab.knownHostsPath): string[] {
  return [
    `Host ${h.name}`,
    `  HostName ${h.address}`,
    `  Port ${h.port}`,
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  IdentityAgent none',
    ...extra.map((l) => `  ${l}`),
  ];
}

const withKey = (h: LabHost, extra: string[] = [], kh?: string) =>
  hostBlock(h, ['User gdr', `IdentityFile ${lab.keys.plain}`, 'IdentitiesOnly yes', ...extra], kh);

function resolveHopIn(file: string) {
  return async (hop: string) => resolveSshConfig(parseDestination(hop), localResolveEnv(file));
}

async function run(t: SshTarget, prompts: SshPrompts = noPrompts, file?: string): Promise<string> {
  let conn: SshConnection | undefined;
  try {
    conn = await connect(t, { prompts, resolveHop: file ? resolveHopIn(file) : async () => assert.fail('no hops expected') });
    const r = await exec(conn.client, 'hostname; id -un', { timeoutMs: 10_000, maxBytes: 1 << 20 });
    return r.stdout.toString();
  } finally {
    conn?.close();
  }
}

async function refusal(p: Promise<unknown>): Promise<ConnectError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  assert.ok(e instanceof ConnectError, `expected a ConnectError, got ${String(e)}`);
  return e;
}

const freshKnownHosts = () => {
  const file = path.join(lab.dir, `kh-${++n}`);
  fs.writeFileSync(file, '');
  return file;
};

describe('SSH connections to simulated GPU hosts', function () {
  this.timeout(60_000);

  before(async () => {
    lab = await startTestLab({
      recordsPath: RECORDS,
      network: NETWORK,
      hosts: [
        { name: 'gpu-a', profile: 'healthy' },
        { name: 'jump-1', profile: 'no-gpu' },
        { name: 'jump-2', profile: 'no-gpu', netns: true },
        { name: 'gpu-inner', profile: 'no-peermem', netns: true },
      ],
    });
    [gpu, jump1, jump2, inner] = lab.hosts;
  });
  after(async () => lab?.stop());

  it('runs a command with a known host key and an identity file', async () => {
    assert.equal(await run(target('gpu-a', withKey(gpu))), 'gpu-a\ngdr\n');
  });

  it('refuses an unknown key under StrictHostKeyChecking=yes', async () => {
    const e = await refusal(run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking yes'], freshKnownHosts()))));
    assert.equal(e.step, 'host-key');
    assert.match(e.message, /not known \(SHA256:/);
  });

  it('records an unknown key under accept-new, then knows it', async () => {
    const kh = freshKnownHosts();
    const t = target('gpu-a', withKey(gpu, ['StrictHostKeyChecking accept-new'], kh));
    await run(t);
    assert.match(fs.readFileSync(kh, 'utf8'), new RegExp(`^\\[${gpu.address.replace(/\./g, '\\.')}\\]:${gpu.port} ssh-ed25519 `));
    await run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking yes'], kh)));
  });

  it("under StrictHostKeyChecking=no, records a new key; a changed one gets a key login only, with ssh's warning, as ssh does", async () => {
    const kh = freshKnownHosts();
    await run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking no'], kh)));
    assert.match(fs.readFileSync(kh, 'utf8'), /ssh-ed25519 /);
    fs.writeFileSync(kh, `${gpu.rotatedHostKeyLine}\n`);
    const warned: string[] = [];
    const prompts: SshPrompts = { ...noPrompts, warn: (_h, lines) => warned.push(...lines) };
    assert.equal(await run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking no'], kh)), prompts), 'gpu-a\ngdr\n');
    assert.ok(warned.includes('@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @'), warned.join('\n'));
    assert.ok(warned.includes('Password authentication is disabled to avoid man-in-the-middle attacks.'));
    assert.equal(fs.readFileSync(kh, 'utf8'), `${gpu.rotatedHostKeyLine}\n`, 'known_hosts is left alone');
  });

  it('sends no password and no keyboard-interactive answer over a changed key let through by StrictHostKeyChecking=no', async () => {
    const kh = freshKnownHosts();
    fs.writeFileSync(kh, `${gpu.rotatedHostKeyLine}\n`);
    const asked: string[] = [];
    const prompts: SshPrompts = {
      ...noPrompts,
      password: async () => (asked.push('password'), 'pwuser-lab-pw'),
      keyboardInteractive: async () => (asked.push('keyboard-interactive'), ['pwuser-lab-pw']),
    };
    const before = fs.readFileSync(gpu.sshdLogPath, 'utf8').length;
    const t = target(
      'gpu-a',
      hostBlock(gpu, ['User pwuser', 'IdentitiesOnly yes', `IdentityFile ${lab.keys.unauthorized}`, 'StrictHostKeyChecking no'], kh),
    );
    const e = await refusal(run(t, prompts));
    assert.equal(e.step, 'auth');
    assert.deepEqual(asked, [], 'nothing was asked, so nothing could be sent');
    const log = fs.readFileSync(gpu.sshdLogPath, 'utf8').slice(before);
    assert.doesNotMatch(log, /password|keyboard-interactive/i, 'the server saw neither method tried');
    assert.equal(
      await run(
        target('gpu-a', hostBlock(gpu, ['User pwuser', 'IdentitiesOnly yes', `IdentityFile ${lab.keys.unauthorized}`], lab.knownHostsPath)),
        prompts,
      ),
      'gpu-a\npwuser\n',
      'with the right key known, the password goes',
    );
  });

  it('asks under the default mode, showing the fingerprint; No refuses, Yes records', async () => {
    const kh = freshKnownHosts();
    const asked: string[] = [];
    const answer = (yes: boolean): SshPrompts => ({ ...noPrompts, confirmHostKey: async (q) => (asked.push(q.fingerprint), yes) });
    const e = await refusal(run(target('gpu-a', withKey(gpu, [], kh)), answer(false)));
    assert.equal(e.step, 'host-key');
    assert.equal(fs.readFileSync(kh, 'utf8'), '');
    await run(target('gpu-a', withKey(gpu, [], kh)), answer(true));
    assert.match(asked[0], /^SHA256:[A-Za-z0-9+/]{43}$/);
    assert.notEqual(fs.readFileSync(kh, 'utf8'), '');
  });

  it('refuses a changed key before any authentication, naming both fingerprints and the line', async () => {
    const kh = freshKnownHosts();
    fs.writeFileSync(kh, `${gpu.rotatedHostKeyLine}\n`);
    const before = fs.readFileSync(gpu.sshdLogPath, 'utf8').length;
    const e = await refusal(run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking accept-new'], kh))));
    assert.equal(e.step, 'host-key');
    assert.match(e.message, /CHANGED.*offered SHA256:\S+, known_hosts has SHA256:\S+ \(.*:1\)/);
    const log = fs.readFileSync(gpu.sshdLogPath, 'utf8').slice(before);
    assert.doesNotMatch(log, /Accepted|Failed|Postponed|userauth/i, 'no authentication reached the server');
  });

  it('finds the host in a known_hosts file hashed by ssh-keygen -H', async () => {
    const kh = freshKnownHosts();
    fs.writeFileSync(kh, `${gpu.hostKeyLine}\n`);
    execFileSync('ssh-keygen', ['-q', '-H', '-f', kh]);
    assert.match(fs.readFileSync(kh, 'utf8'), /^\|1\|/);
    assert.equal(await run(target('gpu-a', withKey(gpu, ['StrictHostKeyChecking yes'], kh))), 'gpu-a\ngdr\n');
  });

  it('rejects a key marked @revoked', async () => {
    const kh = freshKnownHosts();
    fs.writeFileSync(kh, `${gpu.hostKeyLine}\n@revoked * ${gpu.hostKeyLine.split(' ').slice(1).join(' ')}\n`);
    const e = await refusal(run(target('gpu-a', withKey(gpu, [], kh))));
    assert.match(e.message, /@revoked/);
  });

  it('authenticates with a key held by a real ssh-agent (IdentityAgent)', async () => {
    const sock = path.join(lab.dir, `agent-${++n}.sock`);
    const agent = execFileSync('ssh-agent', ['-a', sock, '-s'], { encoding: 'utf8' });
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(agent)?.[1]);
    try {
      execFileSync('ssh-add', [lab.keys.plain], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
      // No identity file at all: only the agent can log in.
      const t = target('gpu-a', [
        ...hostBlock(gpu, ['User gdr', `IdentityFile ${lab.keys.unauthorized}`, 'PasswordAuthentication no']).filter(
          (l) => !l.includes('IdentityAgent'),
        ),
        `  IdentityAgent ${sock}`,
      ]);
      assert.equal(await run(t), 'gpu-a\ngdr\n');
      assert.match(fs.readFileSync(gpu.sshdLogPath, 'utf8'), /Accepted publickey for gdr/);
    } finally {
      process.kill(pid);
    }
  });

  it('asks for the passphrase of an encrypted key', async () => {
    const t = target(
      'gpu-a',
      hostBlock(gpu, ['User gdr', `IdentityFile ${lab.keys.encrypted}`, 'IdentitiesOnly yes', 'PasswordAuthentication no']),
    );
    const asked: string[] = [];
    const out = await run(t, { ...noPrompts, passphrase: async (f) => (asked.push(f), lab.keys.passphrase) });
    assert.equal(out, 'gpu-a\ngdr\n');
    assert.deepEqual(asked, [lab.keys.encrypted]);
  });

  it('falls back to keyboard-interactive, showing the prompts as sent', async () => {
    const t = target('gpu-a', hostBlock(gpu, ['User pwuser', 'IdentitiesOnly yes', `IdentityFile ${lab.keys.unauthorized}`]));
    const seen: string[] = [];
    const out = await run(t, {
      ...noPrompts,
      keyboardInteractive: async (_h, _n, _i, prompts) => (seen.push(...prompts.map((p) => p.prompt)), ['pwuser-lab-pw']),
    });
    assert.equal(out, 'gpu-a\npwuser\n');
    assert.match(seen[0], /password/i);
  });

  it('uses password authentication when that is what is left', async () => {
    const t = target('gpu-a', hostBlock(gpu, ['User pwuser', 'IdentitiesOnly yes', `IdentityFile ${lab.keys.unauthorized}`]));
    assert.equal(await run(t, { ...noPrompts, password: async () => 'pwuser-lab-pw' }), 'gpu-a\npwuser\n');
  });

  it('reports a wrong password as an authentication failure', async () => {
    const t = target('gpu-a', hostBlock(gpu, ['User pwuser', 'IdentitiesOnly yes', `IdentityFile ${lab.keys.unauthorized}`]));
    const e = await refusal(run(t, { ...noPrompts, password: async () => 'wrong' }));
    assert.equal(e.step, 'auth');
  });

  it('goes through two ProxyJump hops, each verified as its own host', async () => {
    const file = path.join(lab.dir, 'jump.conf');
    fs.writeFileSync(file, [...withKey(jump1), ...withKey(jump2), ...withKey(inner, ['ProxyJump jump-1,jump-2'])].join('\n'));
    const t = resolveSshConfig(parseDestination('gpu-inner'), localResolveEnv(file));
    assert.equal(await run(t, noPrompts, file), 'gpu-inner\ngdr\n');
  });

  it("follows the first hop's own ProxyJump, as ssh -J does (jump-2 is reached through jump-1)", async () => {
    const file = path.join(lab.dir, 'jump-nested.conf');
    fs.writeFileSync(
      file,
      [...withKey(jump1), ...withKey(jump2, ['ProxyJump jump-1']), ...withKey(inner, ['ProxyJump jump-2'])].join('\n'),
    );
    const logins = () =>
      fs
        .readFileSync(jump1.sshdLogPath, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('Accepted publickey for gdr ')).length;
    const before = logins();
    const t = resolveSshConfig(parseDestination('gpu-inner'), localResolveEnv(file));
    assert.equal(await run(t, noPrompts, file), 'gpu-inner\ngdr\n');
    assert.equal(logins(), before + 1, 'one login on jump-1, the hop jump-2 was reached through');
  });

  it('refuses a ProxyJump loop before connecting anywhere', async () => {
    const file = path.join(lab.dir, 'jump-loop.conf');
    fs.writeFileSync(
      file,
      [...withKey(jump1, ['ProxyJump jump-2']), ...withKey(jump2, ['ProxyJump jump-1']), ...withKey(inner, ['ProxyJump jump-1'])].join(
        '\n',
      ),
    );
    const logins = () => fs.readFileSync(jump1.sshdLogPath, 'utf8').length + fs.readFileSync(jump2.sshdLogPath, 'utf8').length;
    // The earlier tests' sessions on the hops log their end after the client has gone: wait for them.
    const sessions = (h: LabHost) => h.processes().filter((p) => p.pid !== h.listenerPid() && p.args.startsWith('sshd'));
    await until("the earlier tests' sessions on the hops have ended", () => sessions(jump1).length + sessions(jump2).length === 0);
    const before = logins();
    const t = resolveSshConfig(parseDestination('gpu-inner'), localResolveEnv(file));
    const e = await refusal(run(t, noPrompts, file));
    assert.equal(e.step, 'proxy');
    assert.match(e.message, /ProxyJump goes more than 8 hops deep/);
    assert.equal(logins(), before, 'no hop was contacted');
  });

  it('says "connection refused" for a closed port', async () => {
    const e = await refusal(run(target('closed', ['Host closed', '  HostName 127.0.0.1', '  Port 1', '  User gdr'])));
    assert.equal(e.step, 'tcp');
    assert.match(e.message, /^closed: connection refused/);
  });
});
