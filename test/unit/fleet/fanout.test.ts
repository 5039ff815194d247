// The direct fan-out over in-process hosts built on the real probe (the demo host's recorded
// outputs, a folder of saved outputs), with real timers: slots, order, every status, deadlines,
// cancel. Nothing here asserts how fast anything went, only what happened in which order.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fanOut, ProbedHost, ProbeHost } from '../../../src/core/fleet/fanout';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { DemoHost } from '../../../src/core/transport/demo';
import { offlineRunner } from '../../../src/core/transport/saved';
import { ProbeRunner, runProbe } from '../../../src/core/probe/runProbe';
import { ConnectError } from '../../../src/core/ssh/errors';
import { FIXTURES } from '../probe/fakeHost';
import { DEMO_DIR } from '../../support/paths';

/** How each lab-less host behaves; the name's prefix picks it (demo-3 → demo). */
type Kind = 'demo' | 'clean' | 'hang' | 'refused' | 'bug' | 'deaf';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const aborted = (signal: AbortSignal) =>
  new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));

/** The demo host's stream cut after its first sections, handed back once the host is stopped (as exec() does). */
function hangingRunner(signal: AbortSignal, onHang: () => void): ProbeRunner {
  return async (script, request) => {
    const full = await new DemoHost(DEMO_DIR).runner()(script, request);
    const cut = full.stdout.indexOf(Buffer.from(`${request.boundary} BEGIN lsmod`));
    onHang();
    await aborted(signal);
    return { ...full, stdout: full.stdout.subarray(0, cut), exitCode: null };
  };
}

class Hosts {
  active = 0;
  maxActive = 0;
  readonly started: string[] = [];
  readonly hanging: string[] = [];
  private readonly cleanDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-fanout-'));

  constructor() {
    fs.copyFileSync(path.join(FIXTURES, 'os-release/ubuntu-22.04.5.txt'), path.join(this.cleanDir, 'os-release.txt'));
  }

  readonly probeHost: ProbeHost = async (host, signal) => {
    this.started.push(host);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await sleep(1 + ((host.length * 7) % 13)); // a little jitter, so hosts end out of order
      return await this.probe(host.split('-')[0] as Kind, host, signal);
    } finally {
      this.active--;
    }
  };

  cleanup(): void {
    fs.rmSync(this.cleanDir, { recursive: true, force: true });
  }

  private probe(kind: Kind, host: string, signal: AbortSignal): Promise<ProbedHost> {
    switch (kind) {
      case 'demo':
        return runProbe(new DemoHost(DEMO_DIR).runner(), { host }).then((report) => ({ report }));
      case 'clean': // a host whose only section is clean: no finding at all
        return runProbe(offlineRunner(this.cleanDir), { host, commands: PROBE_COMMANDS.filter((c) => c.id === 'os-release') }).then(
          (report) => ({ report }),
        );
      case 'hang':
        return runProbe(
          hangingRunner(signal, () => this.hanging.push(host)),
          { host },
        ).then((report) => ({ report }));
      case 'refused':
        throw new ConnectError(host, 'tcp', 'connection refused');
      case 'bug':
        throw new TypeError('something else went wrong');
      case 'deaf': // ignores the stop: only the fan-out's grace ends its slot
        return new Promise<ProbedHost>(() => undefined);
    }
  }
}

describe('fanOut', function () {
  this.timeout(20_000);
  let hosts: Hosts;
  beforeEach(() => (hosts = new Hosts()));
  afterEach(() => hosts.cleanup());

  const statuses = (results: FleetHostResult[]) => results.map((r) => `${r.host}:${r.status}`);

  it('never runs more hosts than the concurrency, keeps input order and tells each result once', async () => {
    const names = Array.from({ length: 23 }, (_, i) => (i % 3 === 0 ? `clean-${i}` : `demo-${i}`));
    const told: number[] = [];
    const results = await fanOut({
      hosts: names,
      probeHost: hosts.probeHost,
      concurrency: 4,
      onResult: (r, i) => {
        assert.equal(r.host, names[i]);
        told.push(i);
      },
    });
    assert.equal(hosts.maxActive, 4);
    assert.deepEqual(
      results.map((r) => r.host),
      names,
    );
    assert.deepEqual(
      [...told].sort((a, b) => a - b),
      names.map((_, i) => i),
    );
    assert.deepEqual(hosts.started, names, 'hosts start in the order given');
    for (const r of results) {
      assert.equal(r.path, 'direct');
      assert.equal(r.report?.host, r.host);
      if (r.host.startsWith('clean')) assert.deepEqual([r.status, r.diagnosis?.findings], ['ok', []]);
      else assert.deepEqual([r.status, r.diagnosis?.findings.some((f) => f.id === 'rdma.port-down')], ['findings', true]);
    }
  });

  it('defaults to 32 at a time', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `clean-${i}`);
    await fanOut({ hosts: names, probeHost: hosts.probeHost });
    assert.equal(hosts.maxActive, 32);
  });

  it('reports an unreachable host with its connect step, and any other failure as unreachable too', async () => {
    const results = await fanOut({ hosts: ['refused-a', 'demo-b', 'bug-c'], probeHost: hosts.probeHost });
    assert.deepEqual(statuses(results), ['refused-a:unreachable', 'demo-b:findings', 'bug-c:unreachable']);
    assert.deepEqual(results[0].error, { step: 'tcp', message: 'refused-a: connection refused' });
    assert.equal(results[2].error?.step, 'protocol');
    assert.match(results[2].error?.message ?? '', /something else went wrong/);
    assert.equal(results[0].report, undefined);
  });

  it('a hung host is stopped at its deadline, keeps what arrived, and never holds up the others', async () => {
    const names = ['hang-a', 'demo-b', 'demo-c', 'clean-d', 'demo-e', 'hang-f', 'clean-g'];
    const order: string[] = [];
    const results = await fanOut({
      hosts: names,
      probeHost: hosts.probeHost,
      concurrency: 2,
      hostDeadlineMs: 1500,
      onResult: (r) => order.push(r.host),
    });
    assert.deepEqual(statuses(results), [
      'hang-a:timed-out',
      'demo-b:findings',
      'demo-c:findings',
      'clean-d:ok',
      'demo-e:findings',
      'hang-f:timed-out',
      'clean-g:ok',
    ]);
    // With two slots and one held by hang-a, every host after it went through the other slot first.
    assert.deepEqual(order.slice(0, 4), ['demo-b', 'demo-c', 'clean-d', 'demo-e']);
    const hung = results[0];
    assert.equal(hung.error?.step, 'deadline');
    assert.match(hung.error?.message ?? '', /its deadline \(1\.5 s\)/);
    assert.equal(hung.report?.timedOut, true, 'the partial report is marked as cut by the deadline');
    assert.equal(hung.report?.finished, false);
    assert.equal(hung.report?.commands.find((c) => c.id === 'topo')?.state, 'complete');
    assert.equal(hung.report?.commands.find((c) => c.id === 'lsmod')?.state, 'not-run');
    assert.ok(hung.diagnosis, 'the partial report is diagnosed');
  });

  it('the overall deadline stops running hosts and ends hosts not yet started as timed out', async () => {
    const results = await fanOut({
      hosts: ['hang-a', 'demo-b', 'clean-c'],
      probeHost: hosts.probeHost,
      concurrency: 1,
      overallDeadlineMs: 300,
    });
    assert.deepEqual(statuses(results), ['hang-a:timed-out', 'demo-b:timed-out', 'clean-c:timed-out']);
    assert.deepEqual(hosts.started, ['hang-a']);
    assert.ok(results[0].report);
    assert.match(results[0].error?.message ?? '', /stopped by the overall deadline \(0\.3 s\)/);
    for (const r of results.slice(1)) {
      assert.deepEqual([r.report, r.durationMs, r.error?.step], [undefined, 0, 'deadline']);
      assert.match(r.error?.message ?? '', /not started before the overall deadline/);
    }
  });

  it('cancel stops running hosts (keeping what arrived) and cancels those not started', async () => {
    const controller = new AbortController();
    // Two slots: demo-a ends and hands its slot to hang-c; with both slots hanging, clean-d waits
    // for a slot until the cancel, whatever the timing (a third slot let it start and finish first).
    const names = ['demo-a', 'hang-b', 'hang-c', 'clean-d'];
    const pending = fanOut({ hosts: names, probeHost: hosts.probeHost, concurrency: 2, signal: controller.signal });
    while (hosts.hanging.length < 2) await sleep(5);
    controller.abort();
    const results = await pending;
    assert.equal(results[0].status, 'findings', 'a host that ended before the cancel keeps its result');
    for (const r of [results[1], results[2]]) {
      assert.deepEqual([r.status, r.error?.step, r.report?.timedOut], ['cancelled', 'cancelled', false]);
      assert.equal(r.report?.commands.find((c) => c.id === 'topo')?.state, 'complete');
    }
    assert.deepEqual([results[3].status, results[3].report], ['cancelled', undefined]);
    assert.ok(!hosts.started.includes('clean-d'), 'a host not started by the cancel never starts');
  });

  it('with the signal already aborted nothing starts', async () => {
    const results = await fanOut({ hosts: ['demo-a', 'clean-b'], probeHost: hosts.probeHost, signal: AbortSignal.abort() });
    assert.deepEqual(statuses(results), ['demo-a:cancelled', 'clean-b:cancelled']);
    assert.deepEqual(hosts.started, []);
  });

  it('a probe that ignores the stop is given up after the grace, and its slot goes to the next host', async () => {
    const results = await fanOut({
      hosts: ['deaf-a', 'demo-b'],
      probeHost: hosts.probeHost,
      concurrency: 1,
      hostDeadlineMs: 100,
      stopGraceMs: 100,
    });
    assert.deepEqual(statuses(results), ['deaf-a:timed-out', 'demo-b:findings']);
    assert.equal(results[0].report, undefined);
  });

  it('an empty list is an empty result', async () => {
    assert.deepEqual(await fanOut({ hosts: [], probeHost: hosts.probeHost }), []);
  });
});
