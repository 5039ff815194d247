// The login-node relay end to end on the REAL pdsh and clush (their local workers standing in for
// ssh, relayLocal.ts): the real login script, the real node command, the real probe over fake GPU
// commands that replay recorded outputs; each node's result must equal a direct probe of the same host.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { LoginRunner, relayDiagnose, RelayTool } from '../../../src/core/fleet/relay';
import { statusOfProbe } from '../../../src/core/fleet/status';
import type { FleetHostResult } from '../../../src/core/fleet/types';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { localRunner } from '../../../src/core/transport/local';
import { ProbeReport, runProbe } from '../../../src/core/probe/runProbe';
import { FakeHost, H100_STUBS } from '../probe/fakeHost';
import { localLogin, makeLoginNode } from './relayLocal';

// n3 loses its connection while probing (its whole session is killed, as a dropped ssh would);
// n5's nvidia-smi hangs past the run's deadline.
const STUBS: Record<string, string> = {
  ...H100_STUBS,
  lscpu: ['if [ "$GDR_NODE" = n3 ]; then kill -KILL -$(ps -o sid= -p $$ | tr -d " "); fi', H100_STUBS.lscpu].join('\n'),
  'nvidia-smi': ['if [ "$GDR_NODE" = n5 ]; then sleep 100; fi', H100_STUBS['nvidia-smi']].join('\n'),
};

// Generous limits: the comparison is about what the relay carries, not about a loaded machine
// making one run's command time out where the other's did not.
const COMMANDS = PROBE_COMMANDS.map((c) => ({ ...c, timeoutS: 120 }));

describe('relay through real pdsh and clush', function () {
  this.timeout(240_000); // real probes, several at once, on a machine other tests load too
  let host: FakeHost;
  let direct: { status: string; findings: unknown; outputs: unknown };
  /** What each command printed and how it ended: the node's report must carry exactly this. */
  const outputsOf = (report: ProbeReport) =>
    report.commands.map((c) => [c.id, c.state, c.exitCode, c.timedOut, c.truncated, c.stdout, c.stderr]);
  before(async () => {
    host = makeLoginNode(STUBS);
    fs.writeFileSync(path.join(host.log, 'down-n4'), '');
    fs.writeFileSync(path.join(host.log, 'noisy-n2'), '');
    const report = await runProbe(localRunner({ env: host.env }), { host: 'direct', commands: COMMANDS });
    const diagnosis = diagnose(report);
    direct = { status: statusOfProbe(report, diagnosis), findings: diagnosis.findings, outputs: outputsOf(report) };
    assert.ok(diagnosis.findings.length > 0, 'the fake host has findings to compare');
  });
  after(() => host.cleanup());

  const byHost = (results: FleetHostResult[]) => new Map(results.map((r) => [r.host, r]));
  const run = (tool: RelayTool, nodes: string) =>
    relayDiagnose(localLogin(host), { tool, loginHost: 'login', nodes, concurrency: 3, commands: COMMANDS });

  function assertLikeDirect(r: FleetHostResult | undefined, tool: RelayTool): void {
    assert.ok(r?.report && r.diagnosis, JSON.stringify(r?.error));
    assert.equal(r.path, tool);
    assert.equal(r.report.finished, true, r.report.notes.join('\n'));
    assert.deepEqual(
      r.report.commands.filter((c) => c.state !== 'complete').map((c) => c.id),
      [],
    );
    assert.deepEqual(outputsOf(r.report), direct.outputs);
    assert.deepEqual(r.diagnosis.findings, direct.findings);
    assert.equal(r.status, direct.status);
  }

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: every node like a direct probe, a refusing node unreachable with ssh's and ${tool}'s words`, async () => {
      const results = byHost(await run(tool, 'n[1-2],n4'));
      assert.deepEqual([...results.keys()], ['n1', 'n2', 'n4']);
      assertLikeDirect(results.get('n1'), tool);
      assertLikeDirect(results.get('n2'), tool);
      const notes = results.get('n2')?.report?.notes.join('\n') ?? '';
      assert.match(notes, /Welcome to n2/);
      assert.match(notes, /motd: be nice/);
      const down = results.get('n4');
      assert.equal(down?.status, 'unreachable');
      assert.equal(down.error?.step, 'relay');
      assert.match(down.error.message, /Connection refused/);
      assert.match(down.error.message, new RegExp(`${tool === 'pdsh' ? 'pdsh@\\S+: n4: sh' : 'clush: n4:'} exited with exit code 255`));
    });
  }

  it('pdsh: a node whose stream stops is a lost connection for it alone', async () => {
    const results = byHost(await run('pdsh', 'n[1-3]'));
    const lost = results.get('n3')?.report;
    assert.equal(lost?.connectionLost, true);
    assert.equal(lost.finished, false);
    assertLikeDirect(results.get('n1'), 'pdsh');
    assertLikeDirect(results.get('n2'), 'pdsh');
  });

  it('a node hanging past the deadline stops itself and keeps the sections that finished', async () => {
    // Two commands, so a loaded machine still finishes the quick one well within the node's 25 s.
    const commands = COMMANDS.filter((c) => c.id === 'topo' || c.id === 'uname');
    const results = byHost(
      await relayDiagnose(localLogin(host), { tool: 'pdsh', loginHost: 'login', nodes: 'n1,n5', deadlineMs: 30_000, commands }),
    );
    const slow = results.get('n5');
    assert.equal(slow?.status, 'timed-out');
    assert.equal(slow.report?.timedOut, true);
    assert.deepEqual(slow.error, { step: 'deadline', message: 'n5: the probe reached its time limit on the node' });
    const states = new Map(slow.report?.commands.map((c) => [c.id, c.state]));
    assert.deepEqual([states.get('uname'), states.get('topo')], ['complete', 'not-run']);
    assert.equal(results.get('n1')?.report?.finished, true);
    assert.deepEqual(
      results.get('n1')?.report?.commands.map((c) => c.state),
      ['complete', 'complete'],
    );
  });

  it('a cancel that comes as the run ends: a node whose probe did not finish is cancelled, though its stream ended', async () => {
    // As with srun: the step is TERMed, the probe's trap stops its commands, and the node still
    // prints its last line, so its stream looks whole; here n5 stops at its own limit instead.
    const commands = COMMANDS.filter((c) => c.id === 'topo' || c.id === 'uname');
    const abort = new AbortController();
    const cancelAtEnd: LoginRunner = async (script, limits) => {
      const r = await localLogin(host)(script, limits);
      abort.abort();
      return r;
    };
    const results = byHost(
      await relayDiagnose(cancelAtEnd, {
        tool: 'pdsh',
        loginHost: 'login',
        nodes: 'n1,n5',
        deadlineMs: 15_000,
        commands,
        signal: abort.signal,
      }),
    );
    assert.deepEqual([results.get('n5')?.status, results.get('n5')?.error?.step], ['cancelled', 'cancelled']);
    assert.equal(results.get('n5')?.report?.finished, false);
    assert.equal(results.get('n1')?.report?.finished, true);
    assert.notEqual(results.get('n1')?.status, 'cancelled', 'a node that finished keeps its result');
  });
});
