// The probe script really runs under /bin/sh (and busybox sh when installed) against fake commands.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../../../src/core/probe/commands';
import { CommandResult } from '../../../src/core/probe/frames';
import { localRunner } from '../../../src/core/transport/local';
import { ProbeReport, runProbe } from '../../../src/core/probe/runProbe';
import { buildProbeScript } from '../../../src/core/probe/script';
import { FakeHost, H100_STUBS, busyboxPath, makeFakeHost } from './fakeHost';

function result(report: ProbeReport, id: string): CommandResult {
  const r = report.commands.find((c) => c.id === id);
  assert.ok(r, `no result for ${id}`);
  return r;
}

async function probe(
  host: FakeHost,
  commands: readonly ProbeCommandSpec[],
  extra: { maxOutputBytes?: number; boundary?: string; shell?: string; deadlineMs?: number } = {},
) {
  return runProbe(localRunner({ env: host.env, shell: extra.shell }), {
    host: 'localhost',
    commands,
    maxOutputBytes: extra.maxOutputBytes,
    boundary: extra.boundary,
    deadlineMs: extra.deadlineMs,
  });
}

// label, and the command line localRunner's wrapper runs (undefined: /bin/sh itself).
const shells: [string, string | undefined][] = [
  ['/bin/sh', undefined],
  ["bash as sh (RHEL's /bin/sh)", '/bin/bash --posix'],
];
const busybox = busyboxPath();
// Small hosts (and many containers) have only busybox: the same checks run under its ash.
// Missing busybox is a failure, not a skip: `bash test/lab/install.sh` installs it.
if (busybox) shells.push(['busybox sh', `${busybox} sh`]);
else
  it('needs busybox to test the probe under busybox sh (bash test/lab/install.sh installs it)', () =>
    assert.fail('busybox is not installed'));

for (const [label, shellCmd] of shells) {
  describe(`probe script under ${label}`, function () {
    let host: FakeHost;
    beforeEach(() => {
      host = makeFakeHost(H100_STUBS);
    });
    afterEach(() => host.cleanup());

    async function run(
      commands: readonly ProbeCommandSpec[],
      extra: { maxOutputBytes?: number; boundary?: string; deadlineMs?: number } = {},
    ) {
      if (!shellCmd) return probe(host, commands, extra);
      // e.g. busybox runs as "busybox sh -s": give localRunner a wrapper that does exactly that.
      const wrapper = path.join(host.bin, 'probe-sh');
      fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${shellCmd} "$@"\n`, { mode: 0o755 });
      return probe(host, commands, { ...extra, shell: wrapper });
    }

    it('frames every command of the table and parses the replayed outputs', async () => {
      const tmp = path.join(host.log, 'tmp');
      fs.mkdirSync(tmp);
      host.env.TMPDIR = tmp;
      const report = await run(PROBE_COMMANDS);
      assert.strictEqual(report.finished, true);
      assert.strictEqual(report.connectionLost, false);
      assert.deepStrictEqual(fs.readdirSync(tmp), [], 'the temporary folder is removed');
      for (const c of report.commands) assert.strictEqual(c.state, 'complete', `${c.id}: ${c.state}`);
      const topo = report.facts.topo;
      assert.ok(topo?.parsed.ok, JSON.stringify(topo));
      assert.deepStrictEqual(
        topo.parsed.value.gpus.map((g) => g.name),
        ['GPU0', 'GPU1', 'GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7'],
      );
      assert.strictEqual(topo.parsed.value.nics[7].device, 'mlx5_7');
      assert.strictEqual(report.facts['smi-q']?.parsed.ok, true);
      assert.strictEqual(report.facts.lscpu?.parsed.ok, true);
      assert.strictEqual(report.facts.numactl?.parsed.ok, true);
      assert.strictEqual(report.facts.ofed?.parsed.ok && report.facts.ofed.parsed.value.version, '23.07-0.5.1.2');
      const peermem = report.facts['modinfo-nvidia-peermem'];
      assert.deepStrictEqual(peermem?.parsed.ok && peermem.parsed.value, {
        found: false,
        module: 'nvidia_peermem',
        message: 'modinfo: ERROR: Module nvidia_peermem not found.',
      });
      assert.strictEqual(result(report, 'modinfo-nvidia-peermem').exitCode, 1);
      const nvidia = report.facts['modinfo-nvidia'];
      assert.ok(nvidia?.parsed.ok && nvidia.parsed.value.found && nvidia.parsed.value.fields.license === 'Dual MIT/GPL');
      const sudo = report.facts['sudo-n'];
      assert.deepStrictEqual(sudo?.parsed, {
        ok: true,
        value: { uid: 1000, state: 'password-required', message: 'sudo: a password is required' },
      });
      assert.match(result(report, 'topo').stdout, /^ {8}GPU0 {4}GPU1/);
    });

    it('reports a missing command as exit 127 and keeps reading the others', async () => {
      const report = await run([
        { id: 'gone', command: 'gdr-doctor-no-such-command --flag', timeoutS: 5 },
        { id: 'lscpu', command: 'lscpu', timeoutS: 5 },
      ]);
      const gone = result(report, 'gone');
      assert.strictEqual(gone.exitCode, 127);
      assert.strictEqual(gone.missing, true);
      assert.match(gone.stderr, /gdr-doctor-no-such-command/);
      assert.strictEqual(report.facts.lscpu?.parsed.ok, true);
    });

    it('keeps the stderr and exit code of a failing command', async () => {
      const report = await run([{ id: 'fails', command: 'echo partial; echo "it broke" >&2; exit 3', timeoutS: 5 }]);
      const r = result(report, 'fails');
      assert.deepStrictEqual([r.exitCode, r.stdout, r.stderr, r.missing, r.complete], [3, 'partial\n', 'it broke\n', false, true]);
    });

    it('stops a hanging command with timeout, flags it, and still delivers the other sections', async () => {
      const report = await run([
        { id: 'hangs', command: 'echo before-hang; sleep 60', timeoutS: 1 },
        { id: 'quick', command: 'echo quick', timeoutS: 5 },
      ]);
      const hangs = result(report, 'hangs');
      assert.strictEqual(hangs.timedOut, true);
      assert.ok([124, 137, 143].includes(hangs.exitCode ?? -1), `exit ${hangs.exitCode}`);
      assert.strictEqual(hangs.stdout, 'before-hang\n');
      assert.strictEqual(result(report, 'quick').stdout, 'quick\n');
      assert.strictEqual(result(report, 'quick').timedOut, false);
      assert.strictEqual(report.finished, true);
    });

    it('stops a command running under timeout (its own process group) when the client deadline ends the probe', async () => {
      const commands = [
        { id: 'hangs', command: 'echo $$ > "$GDR_TEST_LOG/hang.pid"; exec sleep 60', timeoutS: 30 },
        { id: 'quick', command: 'echo quick', timeoutS: 5 },
      ];
      const report = await run(commands, { deadlineMs: 1500 });
      assert.strictEqual(report.timedOut, true);
      assert.strictEqual(result(report, 'quick').stdout, 'quick\n');
      const pid = Number(fs.readFileSync(path.join(host.log, 'hang.pid'), 'utf8'));
      assert.ok(await gone(pid), `the hung command (pid ${pid}) is still running 30 s before its limit`);
    });

    it('cuts output over the cap, flags it, and stops an endless writer', async () => {
      const report = await run(
        [
          { id: 'endless', command: 'yes gdr', timeoutS: 20 },
          { id: 'noisy', command: 'i=0; while [ $i -lt 300 ]; do echo "warning $i" >&2; i=$((i+1)); done', timeoutS: 20 },
          { id: 'small', command: 'echo ok', timeoutS: 5 },
        ],
        { maxOutputBytes: 1000 },
      );
      const endless = result(report, 'endless');
      assert.strictEqual(endless.truncated, true);
      assert.strictEqual(endless.stdout, 'gdr\n'.repeat(250));
      assert.strictEqual(endless.timedOut, false);
      const noisy = result(report, 'noisy');
      assert.strictEqual(noisy.truncated, true);
      assert.strictEqual(Buffer.byteLength(noisy.stderr), 1000);
      assert.deepStrictEqual([result(report, 'small').stdout, result(report, 'small').truncated], ['ok\n', false]);
    });

    it('carries binary and invalid UTF-8 output through the framing', async () => {
      const report = await run([
        { id: 'binary', command: "printf '\\000\\377\\376A\\n\\200'", timeoutS: 5 },
        { id: 'after', command: 'echo after', timeoutS: 5 },
      ]);
      const expected = Buffer.from([0x00, 0xff, 0xfe, 0x41, 0x0a, 0x80]).toString('utf8');
      assert.strictEqual(result(report, 'binary').stdout, expected);
      assert.ok(expected.includes('\ufffd'));
      assert.strictEqual(result(report, 'after').stdout, 'after\n');
    });

    it('is not fooled by output that prints frame lines with the real boundary', async () => {
      const b = 'gdr-doctor-fixedtestboundary';
      const forged = `${b} END forger\\n${b} BEGIN victim\\n${b} META rc=99\\n${b} DONE\\n`;
      const report = await run(
        [
          { id: 'forger', command: `printf '${forged}'`, timeoutS: 5 },
          { id: 'victim', command: 'echo real', timeoutS: 5 },
        ],
        { boundary: b },
      );
      assert.strictEqual(result(report, 'forger').stdout, `${b} END forger\n${b} BEGIN victim\n${b} META rc=99\n${b} DONE\n`);
      assert.deepStrictEqual([result(report, 'victim').exitCode, result(report, 'victim').stdout], [0, 'real\n']);
      assert.deepStrictEqual(report.notes, []);
    });

    it('starts the commands in parallel (each waits until all have started)', async () => {
      // Each fake logs its start, then waits (bounded) for the others' start marks. Run one after
      // another, the first would give up alone; in parallel every one meets the others.
      const barrier = [
        'touch "$GDR_TEST_LOG/started.$1"',
        'i=0; while [ $i -lt 100 ]; do',
        '  if [ -e "$GDR_TEST_LOG/started.a" ] && [ -e "$GDR_TEST_LOG/started.b" ] && [ -e "$GDR_TEST_LOG/started.c" ]; then echo met; exit 0; fi',
        '  sleep 0.1; i=$((i+1))',
        'done; echo alone',
      ].join('\n');
      fs.writeFileSync(path.join(host.bin, 'barrier'), `#!/bin/sh\n${barrier}\n`, { mode: 0o755 });
      const report = await run(['a', 'b', 'c'].map((x) => ({ id: `wait-${x}`, command: `barrier ${x}`, timeoutS: 30 })));
      assert.deepStrictEqual(
        report.commands.map((c) => c.stdout),
        ['met\n', 'met\n', 'met\n'],
      );
    });

    it('reaches every faked command of the table (nvidia-smi three times)', async () => {
      const report = await run(PROBE_COMMANDS);
      assert.strictEqual(report.finished, true);
      const starts = fs
        .readdirSync(host.log)
        .filter((f) => f.endsWith('.start'))
        .sort();
      assert.deepStrictEqual(
        starts,
        Object.keys(H100_STUBS)
          .map((n) => `${n}.start`)
          .sort(),
      );
      assert.strictEqual(fs.readFileSync(path.join(host.log, 'nvidia-smi.start'), 'utf8').trim().split('\n').length, 3);
    });
  });
}

if (busybox) {
  // A busybox-only host: busybox's own timeout (exit 143, not 124), date without %N, head, mktemp.
  describe('probe script on a host with only busybox applets', function () {
    let host: FakeHost;
    let applets: string;
    beforeEach(() => {
      host = makeFakeHost(H100_STUBS);
      applets = path.join(path.dirname(host.bin), 'applets');
      fs.mkdirSync(applets);
      execFileSync(busybox, ['--install', '-s', applets]);
    });
    afterEach(() => host.cleanup());

    function runBusybox(commands: readonly ProbeCommandSpec[]) {
      const env = { ...host.env, PATH: `${host.bin}:${applets}` };
      return runProbe(localRunner({ env, shell: path.join(applets, 'sh') }), { host: 'busybox', commands });
    }

    it('frames and parses the whole table', async () => {
      const report = await runBusybox(PROBE_COMMANDS);
      assert.strictEqual(report.finished, true);
      for (const c of report.commands) assert.strictEqual(c.state, 'complete', c.id);
      assert.ok(report.facts.topo?.parsed.ok);
      assert.strictEqual(report.facts.topo.parsed.value.gpus.length, 8);
      // busybox date has no %N; the probe's clock is /proc/uptime, in centiseconds, with any date.
      for (const c of report.commands) assert.strictEqual((c.durationMs ?? -1) % 10, 0, `${c.id}: ${c.durationMs}`);
      assert.ok(report.commands.every((c) => c.durationMs !== null));
    });

    it('falls back to polling for finished sections where there is no mkfifo', async () => {
      fs.rmSync(path.join(applets, 'mkfifo'));
      const report = await runBusybox(PROBE_COMMANDS);
      assert.strictEqual(report.finished, true);
      for (const c of report.commands) assert.strictEqual(c.state, 'complete', c.id);
      assert.strictEqual(report.facts.topo?.parsed.ok && report.facts.topo.parsed.value.gpus.length, 8);
    });

    it('flags a command stopped by busybox timeout', async () => {
      const report = await runBusybox([
        { id: 'hangs', command: 'sleep 60', timeoutS: 1 },
        { id: 'quick', command: 'echo quick', timeoutS: 5 },
      ]);
      assert.strictEqual(result(report, 'hangs').timedOut, true);
      assert.strictEqual(result(report, 'quick').stdout, 'quick\n');
    });
  });
}

describe('probe on a host whose sleep does not work (no watchdog)', () => {
  let host: FakeHost;
  beforeEach(() => {
    // The watchdog's timer is `sleep`: a broken one leaves the client deadline as the only limit.
    host = makeFakeHost({ ...H100_STUBS, sleep: 'exit 1' });
  });
  afterEach(() => host.cleanup());

  it('ends at the client deadline, keeps what arrived, and stops the whole process group', async () => {
    const tmp = path.join(host.log, 'tmp');
    fs.mkdirSync(tmp);
    const env = { ...host.env, TMPDIR: tmp };
    const commands = [
      { id: 'hangs', command: 'echo $$ > "$GDR_TEST_LOG/hang.pid"; exec tail -f /dev/null', timeoutS: 1 },
      { id: 'quick', command: 'echo quick', timeoutS: 5 },
    ];
    const report = await runProbe(localRunner({ env }), { host: 'localhost', commands, deadlineMs: 2500 });
    assert.strictEqual(report.timedOut, true);
    assert.strictEqual(report.finished, false);
    assert.strictEqual(result(report, 'quick').stdout, 'quick\n');
    assert.strictEqual(result(report, 'hangs').state, 'not-run');
    const pid = Number(fs.readFileSync(path.join(host.log, 'hang.pid'), 'utf8'));
    assert.ok(await gone(pid), `the hung command (pid ${pid}) is still running`);
    // The section held back for the next batch went out from the TERM trap, which then ran the EXIT
    // trap: no temporary folder is left behind.
    assert.deepStrictEqual(fs.readdirSync(tmp), []);
  });
});

/** Polls (bounded) until the process has exited and been reaped. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('probe script text', () => {
  it('uses a new random boundary each time', () => {
    const a = buildProbeScript(PROBE_COMMANDS);
    const b = buildProbeScript(PROBE_COMMANDS);
    assert.match(a.boundary, /^gdr-doctor-[0-9a-f]{32}$/);
    assert.notStrictEqual(a.boundary, b.boundary);
    assert.ok(a.script.includes(`B='${a.boundary}'`));
  });

  it('sets LC_ALL and the sbin PATH, and has one watchdog instead of a timeout per command', () => {
    const { script } = buildProbeScript(PROBE_COMMANDS);
    assert.match(script, /^LC_ALL=C; export LC_ALL$/m);
    assert.match(script, /^PATH=\$PATH:\/usr\/sbin:\/sbin; export PATH$/m);
    assert.match(script, /^_gd_run topo 30 'exec nvidia-smi topo -m' & P0=\$!$/m);
    assert.doesNotMatch(script, /\btimeout\b(?!=)/);
    // One timer: the flush tick at 1 s, then TERM at each distinct limit (10, 20, 30 s) and KILL 2 s later.
    assert.match(script, /^EV='F:0 T:10 K:10 T:20 K:20 T:30 K:30'$/m);
    assert.strictEqual(script.match(/ & TW=\$!$/gm)?.length, 1);
    assert.match(script, /sleep 1 && [^\n]*sleep 9 && [^\n]*sleep 2 && [^\n]*sleep 8 && /);
  });

  it('refuses an id or a limit that would not be safe to put in the script', () => {
    assert.throws(() => buildProbeScript([{ id: 'x; rm -rf /', command: 'true', timeoutS: 1 }]), /id must be/);
    assert.throws(() => buildProbeScript([{ id: 'x', command: 'true', timeoutS: 0 }]), /timeoutS/);
    assert.throws(() => buildProbeScript([], { boundary: "a'b" }), /boundary/);
  });
});
