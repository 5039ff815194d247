// The connection pool (src/core/ssh/pool.ts) against a real sshd of the lab: the host's own sshd
// log and process list tell how many logins there were and whether a session is still open.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runProbe } from '../../src/core/probe/runProbe';
import { sshRunner } from '../../src/core/transport/sshRunner';
import { connect } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { localResolveEnv } from '../../src/core/ssh/nodeConfigFs';
import { ConnectionPool, PoolCloseReason } from '../../src/core/ssh/pool';
import { noPrompts } from '../../src/core/ssh/prompts';
import { resolveSshConfig } from '../../src/core/ssh/sshConfig';
import { assertLabCanRun, cleanupStale, Lab, LabHost, startLab } from '../lab/lab';
import { until } from '../support/until';

let lab: Lab;
let host: LabHost;
/** The lab's ssh_config plus `Host pool-keepalive` with fast keepalives. */
let configPath: string;

function openFrom(config: string) {
  return (name: string) => {
    const target = resolveSshConfig(parseDestination(name), localResolveEnv(config));
    return connect(target, { prompts: noPrompts, resolveHop: async () => assert.fail('no jump hosts here') });
  };
}

/** Logins the host's sshd accepted so far (its own log). */
const logins = () =>
  fs
    .readFileSync(host.sshdLogPath, 'utf8')
    .split('\n')
    .filter((l) => /^Accepted publickey for gdr /.test(l)).length;

/** sshd may write its log line after the client is in: wait for at least `n` new ones, then count them all. */
async function newLogins(since: number, n: number): Promise<number> {
  await until(`${n} new login(s) in the sshd log`, () => logins() - since >= n);
  return logins() - since;
}
/** The per-connection sshd processes on the host (privileged monitor and the user's session). */
const sessionSshds = () => host.processes().filter((p) => /^sshd: gdr/.test(p.args));

/** A pool whose close events can be awaited. */
function poolWith(options: { idleMs?: number; config?: string } = {}) {
  const closes: { host: string; reason: PoolCloseReason }[] = [];
  const pool = new ConnectionPool({
    open: openFrom(options.config ?? configPath),
    idleMs: options.idleMs ?? 0,
    onClose: (h, reason) => closes.push({ host: h, reason }),
  });
  return { pool, closes };
}

async function probeThrough(pool: ConnectionPool, name: string) {
  return pool.use(name, (conn) => runProbe(sshRunner(conn.client), { host: name }));
}

describe('connection pool against a real sshd', function () {
  this.timeout(60_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale();
    lab = await startLab({ hosts: [{ name: 'gpu-pool', profile: 'healthy' }] });
    host = lab.host('gpu-pool');
    configPath = path.join(lab.dir, 'pool.conf');
    const keepalive =
      `Host pool-keepalive\n  HostName ${host.address}\n  Port ${host.port}\n  User gdr\n  IdentityFile ${lab.keys.plain}\n  IdentitiesOnly yes\n` +
      `  UserKnownHostsFile ${lab.knownHostsPath}\n  StrictHostKeyChecking yes\n  ServerAliveInterval 1\n  ServerAliveCountMax 2\n`;
    fs.writeFileSync(configPath, fs.readFileSync(lab.sshConfigPath, 'utf8') + keepalive);
  });
  after(async () => lab?.stop());
  afterEach(async () => {
    // Nothing of one test's sessions may be left for the next one to count.
    for (const p of sessionSshds()) if (p.state === 'T') process.kill(p.pid, 'SIGCONT');
    await until('no session left on the host', () => sessionSshds().length === 0);
  });

  it('runs two probes over one login, and concurrent callers share one connect', async () => {
    const { pool } = poolWith();
    const before = logins();
    const lsmodBefore = host.calls().filter((c) => c.cmd === 'lsmod').length;
    const [a, b] = await Promise.all([pool.get('gpu-pool'), pool.get('gpu-pool')]);
    assert.equal(a, b);
    const first = await probeThrough(pool, 'gpu-pool');
    const second = await probeThrough(pool, 'gpu-pool');
    assert.equal(first.finished && second.finished, true);
    assert.equal(await newLogins(before, 1), 1, "the host's sshd accepted exactly one login");
    assert.equal(host.calls().filter((c) => c.cmd === 'lsmod').length - lsmodBefore, 2, 'both probes ran on the host');
    assert.equal(sessionSshds().length, 2, 'one connection: its monitor and its session process');
    pool.closeAll();
  });

  it('reopens a connection the host dropped', async () => {
    const { pool, closes } = poolWith();
    const before = logins();
    const first = await pool.get('gpu-pool');
    await newLogins(before, 1); // the monitor logs the login after the client is in: let it, before killing it
    await until('the session process forked after authentication', () => sessionSshds().length === 2);
    for (const p of sessionSshds()) process.kill(p.pid, 'SIGKILL');
    await until('the pool noticed the drop', () => closes.length > 0);
    assert.deepEqual(closes, [{ host: 'gpu-pool', reason: 'dropped' }]);
    assert.deepEqual(pool.hosts(), []);
    const report = await probeThrough(pool, 'gpu-pool');
    assert.equal(report.finished, true);
    assert.notEqual(await pool.get('gpu-pool'), first);
    assert.equal(await newLogins(before, 2), 2, 'a new login for the new connection');
    pool.closeAll();
  });

  it('closes a connection after the idle time, and logs in again on the next use', async () => {
    const { pool, closes } = poolWith({ idleMs: 300 });
    const before = logins();
    await probeThrough(pool, 'gpu-pool');
    await until('the idle close', () => closes.length > 0);
    assert.deepEqual(closes, [{ host: 'gpu-pool', reason: 'idle' }]);
    await until('the host ended the session', () => sessionSshds().length === 0);
    // The client said goodbye (SSH_DISCONNECT_BY_APPLICATION = 11): a close, not a dropped link.
    const log = fs.readFileSync(host.sshdLogPath, 'utf8');
    const port = /Received disconnect from 127\.0\.0\.1 port (\d+):11:/.exec(log)?.[1];
    assert.ok(port, log);
    assert.match(log, new RegExp(`Disconnected from user gdr 127\\.0\\.0\\.1 port ${port}\\b`));
    await probeThrough(pool, 'gpu-pool');
    assert.equal(await newLogins(before, 2), 2);
    pool.closeAll();
  });

  it('does not close a connection for being idle while a probe is using it', async () => {
    const { pool, closes } = poolWith({ idleMs: 200 });
    host.setFault('lsmod', 'hang', 1);
    try {
      const report = await probeThrough(pool, 'gpu-pool');
      assert.equal(report.finished, true);
      assert.equal(report.connectionLost, false);
    } finally {
      host.clearFaults();
    }
    await until('the idle close after the probe', () => closes.length > 0);
    assert.deepEqual(closes, [{ host: 'gpu-pool', reason: 'idle' }]);
  });

  it('notices through keepalives a connection whose server stopped answering', async () => {
    const { pool, closes } = poolWith();
    await pool.get('pool-keepalive');
    await until('the session process forked after authentication', () => sessionSshds().length === 2);
    const stopped = sessionSshds();
    for (const p of stopped) process.kill(p.pid, 'SIGSTOP');
    await until('the keepalive timeout', () => closes.length > 0);
    assert.deepEqual(closes, [{ host: 'pool-keepalive', reason: 'dropped' }]);
    assert.ok(
      stopped.every((p) => host.processes().find((q) => q.pid === p.pid)?.state === 'T'),
      'the old session was frozen, not closed',
    );
    for (const p of stopped) process.kill(p.pid, 'SIGKILL');
    const report = await probeThrough(pool, 'pool-keepalive');
    assert.equal(report.finished, true);
    pool.closeAll();
  });

  it('closes on request, and a close during the connect ends that connect', async () => {
    const { pool, closes } = poolWith();
    await pool.get('gpu-pool');
    pool.close('gpu-pool');
    assert.deepEqual(closes, [{ host: 'gpu-pool', reason: 'request' }]);
    await until('the host ended the session', () => sessionSshds().length === 0);
    const pending = pool.get('gpu-pool');
    pool.closeAll();
    await assert.rejects(pending, /closed on request while it was being opened/);
    assert.deepEqual(pool.hosts(), []);
  });

  it('keeps nothing from a failed connect, so the next use tries again', async () => {
    const { pool } = poolWith();
    await assert.rejects(pool.get('no-such-host.invalid'), /cannot resolve/);
    assert.deepEqual(pool.hosts(), []);
  });
});
