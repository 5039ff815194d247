// The built CLI (dist/cli.js), run as a user runs it: exit statuses, messages, stdin, --json.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, FIXTURES, fixtureFiles } from '../../support/paths';

function cli(args: string[], input?: string) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const seedTopo = path.join(FIXTURES, 'topo/seed-xeon-gold-5318y-8gpu-3nic.txt');

describe('gdr-doctor CLI', () => {
  it('prints help with exit 0, and usage with 64 when no command is given', () => {
    const help = cli(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: gdr-doctor <command>/);
    assert.equal(cli([]).status, 64);
  });

  it('has --help on parse listing every kind', () => {
    const r = cli(['parse', '--help']);
    assert.equal(r.status, 0);
    for (const kind of [
      'topo',
      'ibv',
      'lscpu',
      'numactl',
      'lsmod',
      'modinfo',
      'ofed',
      'nvidia-version',
      'os-release',
      'gpus',
      'smi-q',
      'nccl-log',
    ]) {
      assert.match(r.stdout, new RegExp(`^  ${kind} `, 'm'), kind);
    }
  });

  it('exits 64 on bad usage: unknown command, unknown kind, unknown flag, extra input', () => {
    for (const args of [
      ['frobnicate'],
      ['parse'],
      ['parse', 'nope', seedTopo],
      ['parse', 'topo', seedTopo, '--jsn'],
      ['parse', 'topo', seedTopo, seedTopo],
    ]) {
      const r = cli(args);
      assert.equal(r.status, 64, args.join(' '));
      assert.ok(r.stderr.length > 0);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('exits 66 naming the file when it cannot be read', () => {
    const r = cli(['parse', 'topo', '/nonexistent/topo.txt']);
    assert.equal(r.status, 66);
    assert.match(r.stderr, /cannot read \/nonexistent\/topo\.txt: ENOENT/);
  });

  it('summarizes the seed topology: matrix, link meanings, nearest NIC per GPU', () => {
    const r = cli(['parse', 'topo', seedTopo]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /GPU0/);
    assert.match(r.stdout, /PIX/);
    assert.match(r.stdout, /mlx5_2/, 'GPU3 is PIX to NIC2 = mlx5_2');
  });

  it('prints the parsed topology as JSON, read from stdin with "-"', () => {
    const r = cli(['parse', 'topo', '-', '--json'], fs.readFileSync(seedTopo, 'utf8'));
    assert.equal(r.status, 0, r.stderr);
    const topo = JSON.parse(r.stdout);
    assert.equal(topo.gpus.length, 8);
    assert.deepEqual(topo.nics[2], { name: 'NIC2', device: 'mlx5_2' });
    assert.equal(topo.links.GPU3.NIC2, 'PIX');
    assert.equal(topo.links.NIC0.GPU4, 'SYS');
    assert.equal(topo.gpus[4].cpuAffinity, '32-63');
  });

  it('exits 2 with FILE:LINE: message and no stack trace on a parse error', () => {
    const lines = fs.readFileSync(seedTopo, 'utf8').split('\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-cli-'));
    const truncated = path.join(dir, 'cut.txt');
    fs.writeFileSync(truncated, `${lines.slice(0, 4).join('\n')}\n${lines[4].slice(0, 20)}\n`);
    const r = cli(['parse', 'topo', truncated]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`^${truncated.replace(/[.]/g, '\\.')}:5: `));
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    fs.rmSync(dir, { recursive: true });
    const stdin = cli(['parse', 'lscpu', '-'], 'this is not lscpu\n');
    assert.equal(stdin.status, 2);
    assert.match(stdin.stderr, /^<stdin>:1: /);
  });
});

/** Fixture folders and the kind that reads them. */
const KIND_OF_DIR: Record<string, string> = {
  topo: 'topo',
  ibv: 'ibv',
  lscpu: 'lscpu',
  numactl: 'numactl',
  lsmod: 'lsmod',
  modinfo: 'modinfo',
  ofed: 'ofed',
  'nvidia-version': 'nvidia-version',
  'os-release': 'os-release',
  gpus: 'gpus',
  'smi-q': 'smi-q',
  'nccl-log': 'nccl-log',
  lspci: 'lspci',
  'show-gids': 'show-gids',
  perftest: 'perftest',
  'nccl-conf': 'nccl-conf',
  'nccl-topo': 'nccl-topo',
  'fi-info': 'fi-info',
  'mlnx-qos': 'mlnx-qos',
  'nccl-tests': 'nccl-tests',
};

/** Fixture folders of whole collect folders (one per recorded machine, test/device/README.md), read by `diagnose --from`. */
const COLLECT_DIRS = ['device'];

describe('gdr-doctor parse reads every real fixture', () => {
  it('has a kind for every fixture folder', () => {
    const dirs = fs.readdirSync(FIXTURES).filter((d) => fs.statSync(path.join(FIXTURES, d)).isDirectory());
    assert.deepEqual(
      dirs.filter((d) => !(d in KIND_OF_DIR) && !COLLECT_DIRS.includes(d)),
      [],
    );
  });
  for (const [dir, kind] of Object.entries(KIND_OF_DIR)) {
    for (const file of fixtureFiles(dir)) {
      it(`${dir}/${path.basename(file)}`, () => {
        const r = cli(['parse', kind, file, '--json']);
        assert.equal(r.status, 0, r.stderr);
        assert.doesNotThrow(() => JSON.parse(r.stdout));
        assert.equal(cli(['parse', kind, file]).status, 0);
      });
    }
  }
});

describe('gdr-doctor diagnose --from reads every recorded collect folder', () => {
  for (const dir of COLLECT_DIRS) {
    for (const machine of fs.readdirSync(path.join(FIXTURES, dir))) {
      it(`${dir}/${machine}/collect: every command's output read, every fact parsed`, () => {
        const r = cli(['diagnose', '--from', path.join(FIXTURES, dir, machine, 'collect'), '--json']);
        assert.equal(r.status, 0, r.stderr);
        const report = JSON.parse(r.stdout);
        // Commands the probe gained after the recording have no file there: only the recorded ones must be read.
        const folder = path.join(FIXTURES, dir, machine, 'collect');
        const recorded = new Set(
          fs
            .readdirSync(folder)
            .filter((f) => f.endsWith('.rc'))
            .map((f) => f.slice(0, -'.rc'.length)),
        );
        const unread = report.commands
          .filter((c: { id: string; state: string }) => recorded.has(c.id) && c.state !== 'complete')
          .map((c: { id: string }) => c.id);
        assert.deepEqual(unread, []);
        assert.ok(recorded.size >= 20, `${recorded.size} commands recorded`);
        const unparsed = Object.entries(report.facts as Record<string, { parsed?: { ok: boolean } }>).filter(([, f]) => !f.parsed?.ok);
        assert.deepEqual(unparsed, []);
        assert.ok(report.facts.gpus.parsed.value.gpus.length > 0, 'the recorded machine has a GPU');
      });
    }
  }
});
