// The fault matrix of the probe over SSH, against real sshd hosts of the lab: hung commands, a
// connection dropped mid-output, a server that never speaks, a refused port, 10 MB of output,
// bytes that are not UTF-8, a German-locale host, and destinations full of shell syntax. Each
// case checks the host's own evidence (process list, call log, sshd log, etc-upper) as well as
// what the tool reports.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../../src/core/probe/commands';
import { CommandResult } from '../../src/core/probe/frames';
import { ProbeReport, ProbeRunner, runProbe } from '../../src/core/probe/runProbe';
import { sshRunner } from '../../src/core/transport/sshRunner';
import { connect, SshConnection } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { ConnectError } from '../../src/core/ssh/errors';
import { exec } from '../../src/core/ssh/exec';
import { localResolveEnv } from '../../src/core/ssh/nodeConfigFs';
import { noPrompts } from '../../src/core/ssh/prompts';
import { resolveSshConfig } from '../../src/core/ssh/sshConfig';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, LabHost, startLab } from '../lab/lab';
import { until } from '../support/until';
import { freePort } from '../lab/ports';

const CAP = 8 * 1024 * 1024; // the probe's default cap per stream (commands.ts DEFAULT_MAX_OUTPUT_BYTES)
let lab: Lab;
let gpu: LabHost, de: LabHost;
let n = 0;

function open(name: string, config = lab.sshConfigPath): Promise<SshConnection> {
  const target = resolveSshConfig(parseDestination(name), localResolveEnv(config));
  return connect(target, { prompts: noPrompts, resolveHop: async () => assert.fail('no jump hosts here') });
}

/** One probe of a lab host through the real SSH runner; `raw` is the byte stream as it arrived. */
async function probe(
  name: string,
  options: { commands?: readonly ProbeCommandSpec[]; deadlineMs?: number } = {},
): Promise<{ report: ProbeReport; raw: Buffer }> {
  const conn = await open(name);
  let raw: Buffer = Buffer.alloc(0);
  const runner: ProbeRunner = async (script, request) => {
    const out = await sshRunner(conn.client)(script, request);
    raw = out.stdout;
    return out;
  };
  try {
    return { report: await runProbe(runner, { host: name, ...options }), raw };
  } finally {
    conn.close();
  }
}

async function run(name: string, command: string): Promise<string> {
  const conn = await open(name);
  try {
    const r = await exec(conn.client, command, { timeoutMs: 20_000, maxBytes: 1 << 20 });
    assert.equal(r.exitCode, 0, r.stderr.toString());
    return r.stdout.toString();
  } finally {
    conn.close();
  }
}

function section(report: ProbeReport, id: string): CommandResult {
  const r = report.commands.find((c) => c.id === id);
  assert.ok(r, `no section ${id}`);
  return r;
}

/** The table with new limits for the nvidia-smi commands (the ones the faults target). */
const withSmiLimit = (timeoutS: number) => PROBE_COMMANDS.map((c) => (c.command.startsWith('nvidia-smi') ? { ...c, timeoutS } : c));

const hungFakes = (h: LabHost) => h.processes().filter((p) => / nvidia-smi /.test(` ${p.args} `) || /^sleep 300$/.test(p.args));

const cli = (args: string[]) => runCli(args);

describe('probe fault matrix over SSH', function () {
  this.timeout(90_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale();
    lab = await startLab({
      hosts: [
        { name: 'gpu-faults', profile: 'healthy' },
        { name: 'gpu-de', profile: 'de-locale' },
      ],
    });
    [gpu, de] = lab.hosts;
  });
  after(async () => lab?.stop());
  afterEach(() => gpu.clearFaults());

  it("a hung command is stopped by the host's timeout; the other sections are kept", async () => {
    gpu.setFault('nvidia-smi', 'hang', 300);
    const { report } = await probe('gpu-faults', { commands: withSmiLimit(2) });
    assert.equal(report.finished, true);
    for (const id of ['topo', 'gpus', 'smi-q']) {
      const s = section(report, id);
      assert.equal(s.timedOut, true, id);
      assert.equal(s.exitCode, 124, id);
    }
    assert.equal(report.facts.lsmod?.parsed.ok, true);
    assert.equal(report.facts.lscpu?.parsed.ok, true);
    assert.equal(gpu.calls().filter((c) => c.cmd === 'nvidia-smi').length, 3, 'all three ran on the host');
    assert.deepEqual(hungFakes(gpu), [], 'nothing of the hung commands is left on the host');
  });

  it('a hung command ends at the client deadline, and is gone from the host long before its own limit', async () => {
    gpu.setFault('nvidia-smi', 'hang', 300);
    const calls = gpu.calls().length;
    const pending = probe('gpu-faults', { commands: withSmiLimit(600), deadlineMs: 3000 });
    await until('the hung fakes run on the host', () => hungFakes(gpu).some((p) => p.args === 'sleep 300'));
    const { report } = await pending;
    assert.equal(report.timedOut, true);
    assert.equal(report.finished, false);
    assert.equal(report.connectionLost, false);
    assert.equal(section(report, 'topo').state, 'not-run');
    assert.equal(section(report, 'lsmod').state, 'complete');
    assert.equal(report.facts.lsmod?.parsed.ok, true);
    assert.ok(
      gpu
        .calls()
        .slice(calls)
        .some((c) => c.cmd === 'lsmod'),
    );
    // Their limit is 600 s: only the probe's stop (TERM to the session, the script's trap) ends them.
    await until('the hung commands are gone from the host', () => hungFakes(gpu).length === 0);
  });

  it('a connection dropped mid-output is "connection lost", with the sections that arrived', async () => {
    gpu.setFault('nvidia-smi', 'hang', 2); // the quick sections arrive first
    gpu.setFault('nvidia-smi', 'drop', 3);
    const { report } = await probe('gpu-faults');
    assert.equal(report.connectionLost, true);
    assert.equal(report.finished, false);
    assert.equal(section(report, 'lsmod').state, 'complete');
    assert.equal(report.facts.lsmod?.parsed.ok, true);
    assert.equal(section(report, 'topo').complete, false);
    assert.ok(gpu.calls().some((c) => c.cmd === 'nvidia-smi'));
    await until('the host has no session left', () => !gpu.processes().some((p) => /^sshd: gdr/.test(p.args)));
  });

  it('a server that accepts TCP but never speaks fails at the connect timeout', async () => {
    const conf = path.join(lab.dir, `silent-${++n}.conf`);
    fs.writeFileSync(
      conf,
      `${fs.readFileSync(lab.sshConfigPath, 'utf8')}Host silent\n  HostName ${gpu.address}\n  Port ${gpu.port}\n  User gdr\n` +
        `  IdentityFile ${lab.keys.plain}\n  UserKnownHostsFile ${lab.knownHostsPath}\n  ConnectTimeout 2\n`,
    );
    const listener = gpu.listenerPid();
    process.kill(listener, 'SIGSTOP');
    try {
      // SIGSTOP is delivered asynchronously: /proc shows 'T' a moment later.
      await until('the listener is stopped', () => gpu.processes().find((p) => p.pid === listener)?.state === 'T');
      const err = await open('silent', conf).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConnectError, String(err));
      assert.equal(err.step, 'timeout');
    } finally {
      process.kill(listener, 'SIGCONT');
    }
    assert.match(await run('gpu-faults', 'hostname'), /^gpu-faults$/m, 'the host serves again once continued');
  });

  it('a refused port fails at the TCP step', async () => {
    const port = await freePort();
    const err = await open(`ssh://gdr@127.0.0.1:${port}`).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConnectError, String(err));
    assert.equal(err.step, 'tcp');
    assert.match(err.message, /connection refused/);
  });

  it('10 MiB of output is cut at the 8 MiB cap and flagged; the other sections are whole', async () => {
    const flood = 10 * 1024 * 1024;
    gpu.setFault('lscpu', 'flood', flood);
    const { report } = await probe('gpu-faults');
    const recorded = fs.readFileSync(path.join(gpu.hostDir, 'prof/out/lscpu.stdout'), 'utf8');
    const lscpu = section(report, 'lscpu');
    assert.equal(lscpu.truncated, true);
    assert.equal(lscpu.stdout.length, CAP);
    assert.equal(lscpu.stdout, (recorded + 'gdrlab flood\n'.repeat(Math.ceil(flood / 13))).slice(0, CAP));
    assert.equal(report.facts.lscpu?.partial, true);
    assert.equal(report.finished, true);
    assert.ok(report.commands.filter((c) => c.id !== 'lscpu').every((c) => c.complete && !c.truncated));
    assert.ok(!gpu.processes().some((p) => p.args === 'yes gdrlab flood'), 'the writer was stopped on the host');
  });

  it('an output just under the cap arrives whole and unflagged', async () => {
    const recorded = fs.readFileSync(path.join(gpu.hostDir, 'prof/out/lscpu.stdout'));
    gpu.setFault('lscpu', 'flood', CAP - recorded.length);
    const { report } = await probe('gpu-faults');
    const lscpu = section(report, 'lscpu');
    assert.equal(lscpu.truncated, false);
    assert.equal(lscpu.stdout.length, CAP);
    assert.equal(lscpu.stdout.slice(0, recorded.length), recorded.toString('utf8'));
  });

  it('bytes that are not UTF-8 arrive as sent and do not disturb the framing', async () => {
    // An /etc/modules saved in ISO-8859-1 by a German admin: "für" with ü = 0xFC.
    await run('gpu-faults', "printf '# Module f\\374r GPUDirect RDMA\\nnvidia-peermem\\n' | sudo tee /etc/modules >/dev/null");
    try {
      const written = fs.readFileSync(path.join(gpu.etcUpperDir, 'modules'));
      assert.deepEqual(written, Buffer.from('# Module f\xfcr GPUDirect RDMA\nnvidia-peermem\n', 'latin1'));
      const { report, raw } = await probe('gpu-faults');
      assert.ok(raw.includes(written), 'the bytes crossed SSH unchanged');
      const s = section(report, 'etc-modules');
      assert.equal(s.stdout, '==> /etc/modules <==\n# Module f\ufffdr GPUDirect RDMA\nnvidia-peermem\n\n');
      const facts = report.facts['etc-modules'];
      assert.deepEqual(facts?.parsed.ok && facts.parsed.value.files, [{ path: '/etc/modules', modules: ['nvidia-peermem'] }]);
      assert.equal(report.finished, true);
      assert.ok(report.commands.every((c) => c.complete));
    } finally {
      await run('gpu-faults', 'sudo rm -f /etc/modules');
    }
  });

  it('a German-locale host is probed under LC_ALL=C', async () => {
    // Without the probe, the host's sessions run in German (pam_env reads its /etc/environment).
    assert.equal(await run('gpu-de', 'lsmod >/dev/null; echo "$LC_ALL"'), 'de_DE.UTF-8\n');
    assert.equal(de.calls().at(-1)?.lcAll, 'de_DE.UTF-8');
    const before = de.calls().length;
    const { report } = await probe('gpu-de');
    const calls = de.calls().slice(before);
    assert.ok(calls.length >= 6, `fake commands ran: ${calls.map((c) => c.cmd).join(' ')}`);
    assert.deepEqual([...new Set(calls.map((c) => c.lcAll))], ['C']);
    for (const id of ['topo', 'smi-q', 'lscpu', 'numactl', 'lsmod', 'ofed'] as const) assert.equal(report.facts[id]?.parsed.ok, true, id);
  });

  describe('shell syntax in destinations is never executed', () => {
    const markers = () => ['client', 'host'].map((w) => path.join(lab.dir, `pwned-${w}`));
    const hostMarker = '/run/gdr-pwned';

    async function assertNothingRan(): Promise<void> {
      for (const m of markers()) assert.equal(fs.existsSync(m), false, `${m} exists`);
      assert.equal(await run('gpu-faults', `test -e ${hostMarker} && echo yes || echo no`), 'no\n', 'marker inside the host');
    }

    it('as destination text (host, user, ssh:// user)', async () => {
      const [m] = markers();
      const evil = [
        `gpu-faults;touch ${m}`,
        `$(touch ${m})`,
        `\`touch ${m}\``,
        `gdr$(touch${'${IFS}'}${m})@gpu-faults`,
        `x;touch${'${IFS}'}${hostMarker}@gpu-faults`,
        `ssh://gdr%24(touch%20${encodeURIComponent(m)})@gpu-faults`,
      ];
      const logBefore = fs.readFileSync(gpu.sshdLogPath, 'utf8').length;
      for (const d of evil) {
        const r = await cli(['diagnose', '-F', lab.sshConfigPath, d]);
        // Refused before any connection, naming the destination as typed (quoted, not run).
        assert.equal(r.status, 64, `${d}: ${r.stdout}${r.stderr}`);
        assert.ok(r.stderr.includes(`not a host: "${d}"`), r.stderr);
      }
      await assertNothingRan();
      // None of these names reached the host's sshd, not even as a user name it refuses.
      const log = fs.readFileSync(gpu.sshdLogPath, 'utf8').slice(logBefore);
      assert.ok(!/Invalid user/.test(log), log.slice(-2000));
    });

    it('as ssh_config HostName and User values', async () => {
      const [m1, m2] = markers();
      const conf = path.join(lab.dir, `evil-${++n}.conf`);
      const common = `  Port ${gpu.port}\n  IdentityFile ${lab.keys.plain}\n  UserKnownHostsFile ${lab.knownHostsPath}\n  StrictHostKeyChecking yes\n`;
      fs.writeFileSync(
        conf,
        `Host evil-hostname\n  HostName "127.0.0.1;touch ${m1}"\n  User gdr\n${common}` +
          `Host evil-user\n  HostName ${gpu.address}\n  User "gdr$(touch ${m2})"\n${common}` +
          `Host evil-user-host\n  HostName ${gpu.address}\n  User "\`touch ${hostMarker}\`"\n${common}`,
      );
      for (const d of ['evil-hostname', 'evil-user', 'evil-user-host']) {
        const r = await cli(['diagnose', '-F', conf, d]);
        assert.equal(r.status, 3, `${d}: ${r.stderr}`);
      }
      await assertNothingRan();
      const log = fs.readFileSync(gpu.sshdLogPath, 'utf8');
      assert.ok(log.includes('Invalid user gdr$(touch  from') && log.includes('Invalid user `touch  from'), log.slice(-2000));
    });
  });
});
