// `gdr-doctor diagnose <host list>` against a lab fleet: 19 hosts with their own addresses (network
// namespaces on the lab network 7), mostly healthy, some needing nvidia_peermem loaded or without an RDMA
// NIC, diagnosed by the built CLI over direct SSH fan-out. Faults on single hosts (a hung nvidia-smi,
// a connection dropped mid-output, an sshd that accepts and never speaks, a changed host key) must
// leave every other host's result intact and correct.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, LabHostSpec, startLab } from '../lab/lab';
import { until } from '../support/until';

const RECORDS = '/tmp/gdrlab-records-fleet.json';
const NETWORK = { bridge: 'gdrbr7', subnet: 7 };
const HANG = 'gpu16';
const DROP = 'gpu17';
const SILENT = 'gpu18';
const ROTATED = 'gpu19';
const NO_PEERMEM = ['gpu13', 'gpu14'];
const NO_NIC = 'gpu15';

function specs(): LabHostSpec[] {
  return Array.from({ length: 19 }, (_, i) => {
    const name = `gpu${String(i + 1).padStart(2, '0')}`;
    const profile = NO_PEERMEM.includes(name) ? 'needs-peermem' : name === NO_NIC ? 'no-nic' : 'healthy';
    return { name, profile, netns: true };
  });
}

/** Signals a process of a lab host; false when it has already gone. */
function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

interface HostJson {
  host: string;
  status: string;
  path: string;
  error?: { step: string; message: string };
  durationMs: number;
  report?: {
    host: string;
    timedOut: boolean;
    connectionLost: boolean;
    finished: boolean;
    commands: { id: string; state: string }[];
    findings: { id: string; severity: string }[];
  };
}

describe('gdr-doctor diagnose over a fleet (direct fan-out)', function () {
  this.timeout(180_000);
  let lab: Lab;
  let stoppedPid = 0;
  /** The slowest host of the first fan-out: the measure of this machine's speed right now. */
  let slowestMs = 0;
  /** Each host's finding ids from that first fan-out, with no fault anywhere: what "intact" means. */
  const baseline = new Map<string, string[]>();
  /**
   * The lab's ssh_config, with connects that wait longer than any deadline here (the deadline, not ConnectTimeout, must
   * end a silent host).
   */
  let slowConfig: string;

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    lab = await startLab({ hosts: specs(), recordsPath: RECORDS, network: NETWORK, readyTimeoutMs: 30_000 });
    slowConfig = path.join(lab.dir, 'ssh_config.fleet');
    fs.writeFileSync(slowConfig, `${fs.readFileSync(lab.sshConfigPath, 'utf8')}Host *\n  ConnectTimeout 600\n`);
  });
  after(async () => {
    if (stoppedPid) process.kill(stoppedPid, 'SIGCONT');
    await lab?.stop();
  });

  const cli = (args: string[], config = lab.sshConfigPath) => runCli(['diagnose', '-F', config, '--batch', ...args]);
  const ids = (h: HostJson) => (h.report?.findings ?? []).map((f) => f.id);
  // The GPUDirect RDMA verdicts, without probe.command-failed: on a 2-CPU machine running 19 hosts a
  // probe command can pass its own 10 s limit in one run and not in the next, whatever the other hosts do.
  const verdicts = (h: HostJson) =>
    ids(h)
      .filter((id) => id !== 'probe.command-failed')
      .sort();

  it('diagnoses every host of a host list, each with its own findings', async () => {
    const r = await cli(['gpu[01-15]', '--json', '-f', '4']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'no progress line without a terminal');
    const fleet = JSON.parse(r.stdout);
    const hosts: HostJson[] = fleet.hosts;
    assert.deepEqual(
      hosts.map((h) => h.host),
      specs()
        .slice(0, 15)
        .map((s) => s.name),
    );
    slowestMs = Math.max(...hosts.map((h) => h.durationMs));
    for (const h of hosts) baseline.set(h.host, verdicts(h));
    for (const h of hosts) {
      assert.equal(h.path, 'direct');
      assert.equal(h.report?.finished, true, h.host);
      assert.equal(h.report?.host, h.host);
    }
    const byName = new Map(hosts.map((h) => [h.host, h]));
    for (const name of NO_PEERMEM) assert.ok(ids(byName.get(name)!).includes('peermem.not-loaded'), `${name}: ${ids(byName.get(name)!)}`);
    assert.ok(ids(byName.get(NO_NIC)!).includes('rdma.none'), ids(byName.get(NO_NIC)!).join(' '));
    for (const h of hosts.filter((x) => !NO_PEERMEM.includes(x.host) && x.host !== NO_NIC)) {
      assert.ok(!ids(h).some((id) => id === 'peermem.not-loaded' || id === 'rdma.none'), `${h.host}: ${ids(h)}`);
    }
  });

  it("with faults on four hosts, the others' results stay intact and correct", async function () {
    // The per-host deadline must end the faulty hosts and let the healthy ones finish: three times
    // the slowest healthy host of the run above, so a loaded machine does not turn this into a race.
    const timeoutS = Math.min(240, Math.max(20, Math.ceil((3 * slowestMs) / 1000)));
    this.timeout(timeoutS * 1000 + 120_000);
    const hang = lab.host(HANG);
    hang.setFault('nvidia-smi', 'hang', 600);
    lab.host(DROP).setFault('nvidia-smi', 'hang', 2); // the quick sections go first
    lab.host(DROP).setFault('nvidia-smi', 'drop', 3);
    await lab.host(ROTATED).rotateHostKey();
    stoppedPid = lab.host(SILENT).listenerPid();
    process.kill(stoppedPid, 'SIGSTOP');
    // A GPU stuck in the driver leaves nvidia-smi unkillable: the probe's own watchdog (TERM at 30 s,
    // KILL 2 s later) cannot end it. Stopping the watchdog's timer (its `sleep 1`, the first step) is
    // the lab's way to make that so: only the deadline ends it.
    const frozen = new Set<number>();
    const freezer = setInterval(() => {
      for (const p of hang.processes())
        if (/^sleep [0-9]$/.test(p.args) && !frozen.has(p.pid) && signal(p.pid, 'SIGSTOP')) frozen.add(p.pid);
    }, 50);
    const callsBefore = hang.calls().length;
    try {
      const r = await cli(['gpu[01-19]', '--json', '-f', '4', '--timeout', String(timeoutS)], slowConfig);
      clearInterval(freezer);
      assert.equal(r.status, 3, r.stderr);
      const hosts: HostJson[] = JSON.parse(r.stdout).hosts;
      const byName = new Map(hosts.map((h) => [h.host, h]));
      assert.equal(hosts.length, 19);
      assert.ok(frozen.size > 0, "the watchdog's timer was stopped on the hung host");
      assert.ok(
        hang
          .calls()
          .slice(callsBefore)
          .some((c) => c.cmd === 'nvidia-smi'),
        'the hung nvidia-smi ran on its host',
      );

      const hung = byName.get(HANG)!;
      assert.deepEqual(
        [hung.status, hung.error?.step, hung.report?.timedOut, hung.report?.finished],
        ['timed-out', 'deadline', true, false],
      );
      assert.ok(
        hung.report?.commands.some((c) => c.state === 'complete'),
        'what arrived before the deadline is kept',
      );
      const dropped = byName.get(DROP)!;
      assert.deepEqual([dropped.status, dropped.report?.connectionLost, dropped.report?.finished], ['findings', true, false]);
      const silent = byName.get(SILENT)!;
      assert.deepEqual([silent.status, silent.error?.step, silent.report], ['timed-out', 'deadline', undefined]);
      const rotated = byName.get(ROTATED)!;
      assert.deepEqual([rotated.status, rotated.error?.step], ['unreachable', 'host-key']);
      assert.match(r.stderr, new RegExp(`${ROTATED}: cannot reach \\(host-key\\)`));
      assert.match(r.stderr, new RegExp(`${SILENT}: timed out`));

      for (const h of hosts.filter((x) => ![HANG, DROP, SILENT, ROTATED].includes(x.host))) {
        assert.ok(['ok', 'findings'].includes(h.status), `${h.host}: ${h.status}`);
        assert.deepEqual([h.report?.finished, h.report?.timedOut, h.report?.connectionLost], [true, false, false], h.host);
        assert.deepEqual(verdicts(h), baseline.get(h.host), `${h.host}: the same findings as without faults`);
      }
      assert.deepEqual(
        NO_PEERMEM.map((n) => ids(byName.get(n)!).includes('peermem.not-loaded')),
        [true, true],
      );
    } finally {
      clearInterval(freezer);
      for (const pid of frozen) signal(pid, 'SIGCONT');
      process.kill(stoppedPid, 'SIGCONT');
      stoppedPid = 0;
      for (const n of [HANG, DROP]) lab.host(n).clearFaults();
    }
    // The probe's stop (the deadline's TERM, then KILL) ended the hung commands: nothing of the hang is left.
    await until('the hung commands are gone from the host', () => !hang.processes().some((p) => /nvidia-smi|^sleep 600$/.test(p.args)));
  });

  it('groups hosts by identical findings, outliers first, and prints each host on request', async () => {
    const hostsFile = path.join(lab.dir, 'fleet-hosts');
    fs.writeFileSync(hostsFile, '# the fleet\ngpu[01-04]\ngpu13,gpu14  # without peermem\n');
    const r = await cli(['--hosts-file', hostsFile, NO_NIC, '--each', '-f', '3']);
    assert.equal(r.status, 0, r.stderr);
    const summary = r.stdout.slice(0, r.stdout.indexOf('\ngpu01 — collected'));
    assert.match(summary, /gpu\[13-14\]/);
    const [outliers, healthy] = [summary.indexOf('\ngpu[13-14] (2)\n'), summary.indexOf('\ngpu[01-04] (4)\n')];
    assert.ok(outliers > 0 && healthy > outliers, summary);
    for (const name of ['gpu01', 'gpu02', 'gpu03', 'gpu04', 'gpu13', 'gpu14', NO_NIC]) {
      assert.match(r.stdout, new RegExp(`\\n${name} — collected `), `--each prints ${name}`);
    }
  });

  it('groups in JSON the hosts with the same findings', async () => {
    const r = await cli(['gpu01,gpu02,gpu13,gpu14,gpu15', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const fleet = JSON.parse(r.stdout);
    const groupOf = (host: string) => fleet.groups.find((g: { hosts: string[] }) => g.hosts.includes(host));
    assert.equal(groupOf('gpu13'), groupOf('gpu14'));
    assert.equal(groupOf('gpu01'), groupOf('gpu02'));
    assert.notEqual(groupOf('gpu01'), groupOf('gpu13'));
    assert.notEqual(groupOf('gpu15'), groupOf('gpu13'));
    assert.equal(
      fleet.groups.reduce((n: number, g: { hosts: string[] }) => n + g.hosts.length, 0),
      5,
    );
  });

  it('one host of a list is reported as a single host, as before', async () => {
    const single = await cli(['gpu[02]']);
    assert.equal(single.status, 0, single.stderr);
    assert.match(single.stdout, /^gpu02 — collected /);
  });
});
