// A relayed fleet at scale keeps per node only what its summary needs and puts the command outputs in a
// private temporary folder (relay/spill.ts): what is kept says the same (diagnosis, states, the comparisons'
// facts), the whole report reads back equal to the one parsed, through the real pdsh as without the folder,
// and the folder is private and goes away.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { diagnose } from '../../../src/core/diagnosis';
import { RelaySpill, relayDiagnose } from '../../../src/core/fleet/relay';
import { groupFleet } from '../../../src/core/fleet/grouping';
import { withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { runProbe } from '../../../src/core/probe/runProbe';
import { newBoundary } from '../../../src/core/probe/script';
import { replayedStream } from '../../../bench/relayReplay';
import { FakeHost, H100_STUBS } from '../probe/fakeHost';
import { localLogin, makeLoginNode } from './relayLocal';

async function replayedReport() {
  const boundary = newBoundary();
  const stdout = replayedStream(boundary);
  const report = await runProbe(async () => ({ stdout, stderr: Buffer.alloc(0), exitCode: 0, connectionLost: false, timedOut: false }), {
    host: 'gpu01',
    boundary,
  });
  return { report, diagnosis: diagnose(report) };
}

describe('relay: command outputs kept on disk at scale', function () {
  this.timeout(120_000);

  it('keeps the diagnosis, the states and the comparisons facts; reads the whole report back equal', async () => {
    const spill = await RelaySpill.create();
    try {
      const { report, diagnosis } = await replayedReport();
      const kept = await spill.keep(report, diagnosis);
      assert.deepEqual(kept.diagnosis, diagnosis);
      assert.ok(kept.report.commands.every((c) => c.stdout === '' && c.stderr === ''));
      assert.deepEqual(
        kept.report.commands.map((c) => [c.id, c.state, c.exitCode]),
        report.commands.map((c) => [c.id, c.state, c.exitCode]),
      );
      assert.deepEqual(Object.keys(kept.report.facts).sort(), ['numactl', 'topo']);
      assert.deepEqual(kept.report.facts.topo, report.facts.topo);
      assert.deepEqual(await spill.load(kept.report, kept.file), report);
      assert.equal(fs.statSync(spill.dir).mode & 0o777, 0o700);
      assert.equal(fs.statSync(kept.file).mode & 0o777, 0o600);
    } finally {
      await spill.remove();
    }
    assert.equal(fs.existsSync(spill.dir), false);
  });

  it('through the real pdsh: the same results and groups as without the folder, every report read back whole', async () => {
    const host: FakeHost = makeLoginNode(H100_STUBS);
    const spill = await RelaySpill.create();
    try {
      const opts = { tool: 'pdsh' as const, loginHost: 'login', nodes: 'n[1-3]' };
      const plain = await relayDiagnose(localLogin(host), opts);
      const spilled = await relayDiagnose(localLogin(host), { ...opts, spill });
      assert.deepEqual(
        groupFleet(withFleetFindings(spilled)).map((g) => [g.key, g.hosts]),
        groupFleet(withFleetFindings(plain)).map((g) => [g.key, g.hosts]),
      );
      for (const [i, r] of spilled.entries()) {
        assert.ok(r.fullReport && plain[i].report);
        const whole = await r.fullReport();
        const same = (x: typeof whole) => x.commands.map((c) => [c.id, c.state, c.stdout, c.stderr]);
        assert.deepEqual(same(whole), same(plain[i].report!), r.host);
        assert.deepEqual(r.diagnosis?.findings, plain[i].diagnosis?.findings);
      }
    } finally {
      await spill.remove();
      host.cleanup();
    }
  });
});
