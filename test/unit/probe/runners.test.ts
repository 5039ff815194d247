// Offline folders (`--from DIR`) and the collect script that makes them (the demo host, which replays
// such a folder: test/unit/demo/).
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { collectScript, offlineRunner } from '../../../src/core/transport/saved';
import { runProbe } from '../../../src/core/probe/runProbe';
import { H100_STUBS, fixture, makeFakeHost } from './fakeHost';

describe('offlineRunner', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-offline-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads <id>.txt files and reports the others as not collected', async () => {
    fs.writeFileSync(path.join(dir, 'topo.txt'), fixture('topo/dgx1-v100-direct-mlx5.txt'));
    fs.writeFileSync(path.join(dir, 'ibv.txt'), fixture('ibv/no-ib-devices-found-libibverbs-warnings.txt'));
    const report = await runProbe(offlineRunner(dir), { host: dir });
    const states = Object.fromEntries(report.commands.map((c) => [c.id, c.state]));
    assert.strictEqual(states.topo, 'complete');
    assert.strictEqual(states.ibv, 'complete');
    assert.strictEqual(Object.values(states).filter((s) => s === 'not-run').length, PROBE_COMMANDS.length - 2);
    const topo = report.facts.topo;
    assert.ok(topo?.parsed.ok);
    assert.deepStrictEqual(
      topo.parsed.value.nics.map((n) => n.name),
      ['mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3'],
    );
    assert.strictEqual(report.facts.lscpu, undefined);
    assert.strictEqual(report.finished, true);
  });

  it('uses <id>.rc and <id>.err when they are there', async () => {
    fs.writeFileSync(path.join(dir, 'ofed.txt'), '');
    fs.writeFileSync(path.join(dir, 'ofed.err'), 'sh: 1: ofed_info: not found\n');
    fs.writeFileSync(path.join(dir, 'ofed.rc'), '127\n');
    const report = await runProbe(offlineRunner(dir), { host: dir });
    const ofed = report.commands.find((c) => c.id === 'ofed');
    assert.deepStrictEqual([ofed?.exitCode, ofed?.missing, ofed?.stderr], [127, true, 'sh: 1: ofed_info: not found\n']);
    assert.strictEqual(report.facts.ofed, undefined);
  });

  it('reads a folder written by collectScript() on a (fake) host', async () => {
    const host = makeFakeHost(H100_STUBS);
    try {
      const script = path.join(dir, 'collect.sh');
      fs.writeFileSync(script, collectScript());
      execFileSync('/bin/sh', [script, path.join(dir, 'out')], { env: host.env, stdio: 'ignore' });
      assert.strictEqual(fs.readFileSync(path.join(dir, 'out', 'modinfo-nvidia-peermem.rc'), 'utf8'), '1\n');
      const report = await runProbe(offlineRunner(path.join(dir, 'out')), { host: 'saved' });
      for (const c of report.commands) assert.strictEqual(c.state, 'complete', c.id);
      assert.ok(report.facts.topo?.parsed.ok);
      assert.strictEqual(report.facts.topo.parsed.value.gpus.length, 8);
      const peermem = report.facts['modinfo-nvidia-peermem'];
      assert.strictEqual(peermem?.parsed.ok && peermem.parsed.value.found, false);
    } finally {
      host.cleanup();
    }
  });
});
