// Offline folders (`--from DIR`) and the collect script that makes them (the demo host, which replays
// such a folder: test/unit/demo/).
import * as assert from 'assert';
import { execFileSync, spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
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

  it('a hostile folder: links (to /dev/zero, to a secret), a FIFO and a 3 GiB file are refused or cut, with the reason', async () => {
    const secret = `SECRET-${randomBytes(16).toString('hex')}`;
    const secretFile = path.join(dir, 'secret');
    fs.writeFileSync(secretFile, `${secret}\n`);
    fs.symlinkSync('/dev/zero', path.join(dir, 'topo.txt'));
    fs.symlinkSync(secretFile, path.join(dir, 'os-release.txt'));
    execFileSync('mkfifo', [path.join(dir, 'ibv.txt')]);
    fs.writeFileSync(path.join(dir, 'lscpu.txt'), '');
    fs.truncateSync(path.join(dir, 'lscpu.txt'), 3 * 1024 ** 3);
    fs.symlinkSync(secretFile, path.join(dir, 'ofed.txt.target'));
    fs.writeFileSync(path.join(dir, 'ofed.txt'), 'MLNX_OFED_LINUX-23.10-1.1.9.0:\n');
    fs.symlinkSync(secretFile, path.join(dir, 'ofed.err'));
    const cap = 64 * 1024;
    const report = await runProbe(offlineRunner(dir), { host: dir, maxOutputBytes: cap });
    const byId = new Map(report.commands.map((c) => [c.id, c]));
    const noteLines = report.notes.join('\n').split('\n');
    for (const [id, why] of [
      ['topo', /topo\.txt is a symbolic link: a saved folder is read from regular files only/],
      ['os-release', /os-release\.txt is a symbolic link/],
      ['ibv', /ibv\.txt is not a regular file \(a FIFO/],
      ['ofed', /ofed\.err is a symbolic link/],
    ] as const) {
      assert.strictEqual(byId.get(id)?.state, 'not-run', id);
      assert.ok(
        noteLines.some((n) => n.startsWith(`${id}: `) && why.test(n)),
        `${id}: ${noteLines.join('\n')}`,
      );
    }
    const lscpu = byId.get('lscpu');
    assert.deepStrictEqual([lscpu?.truncated, lscpu?.stdout.length], [true, cap]);
    assert.ok(!JSON.stringify(report).includes(secret), 'the secret stays out of the report');
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

  describe('the collect script, in a folder another user could prepare', () => {
    it('refuses a folder that exists already (a planted link inside is not written through)', () => {
      const victim = path.join(dir, 'victim');
      fs.writeFileSync(victim, 'untouched\n');
      const planted = path.join(dir, 'gdr-out');
      fs.mkdirSync(planted, { mode: 0o777 });
      for (const id of ['topo', 'lsmod'])
        for (const ext of ['txt', 'err', 'rc']) fs.symlinkSync(victim, path.join(planted, `${id}.${ext}`));
      const script = path.join(dir, 'collect.sh');
      fs.writeFileSync(script, collectScript());
      const r = spawnSync('/bin/sh', [script, planted], { encoding: 'utf8' });
      assert.notStrictEqual(r.status, 0);
      assert.match(r.stderr, /gdr-doctor: .*gdr-out exists already: give the name of a folder that does not exist/);
      assert.strictEqual(fs.readFileSync(victim, 'utf8'), 'untouched\n');
    });

    it('writes a fresh folder and files only its owner can read, and never overwrites a file', () => {
      const host = makeFakeHost(H100_STUBS);
      try {
        const script = path.join(dir, 'collect.sh');
        fs.writeFileSync(script, collectScript());
        const out = path.join(dir, 'out');
        const r = spawnSync('/bin/sh', [script, out], { env: { ...host.env }, encoding: 'utf8' });
        assert.strictEqual(r.status, 0, r.stderr);
        assert.strictEqual(fs.statSync(out).mode & 0o777, 0o700);
        for (const name of fs.readdirSync(out)) assert.strictEqual(fs.statSync(path.join(out, name)).mode & 0o077, 0, name);
        // noclobber (set -C): a second run of one command into the same folder fails rather than overwrite.
        const again = spawnSync(
          '/bin/sh',
          [
            '-c',
            `${collectScript()
              .split('\n')
              .filter((l) => /^(set|umask|DIR=|TO=|run\(\))/.test(l))
              .join('\n')}\nrun topo 5 true`,
            'sh',
            out,
          ],
          {
            env: { ...host.env },
            encoding: 'utf8',
          },
        );
        assert.match(again.stderr, /cannot (overwrite|create) existing file|File exists/);
      } finally {
        host.cleanup();
      }
    });
  });
});
