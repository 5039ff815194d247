// `gdr-doctor nccl-log`, the built CLI run as a user runs it: summary first, --json shape, stdin,
// several files, exit statuses, and host text made safe for a terminal.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliSync } from '../../support/cli';
import { FIXTURES } from '../../support/paths';

const cli = runCliSync;

const fixture = (name: string) => path.join(FIXTURES, 'nccl-log', name);
const GDR = fixture('ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5.txt');
const PART1 = fixture('ib-no-module-2-containers-part1-start-cut.txt');
const PART2 = fixture('ib-no-module-2-containers-part2-channels-cut.txt');

describe('gdr-doctor nccl-log', () => {
  it('is listed in gdr-doctor --help and has its own --help', () => {
    assert.match(cli(['--help']).stdout, /^ {2}nccl-log FILE\.\.\. \[--json\]/m);
    const help = cli(['nccl-log', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: gdr-doctor nccl-log FILE\.\.\. \[--json\]/);
  });

  it('prints the verdict first, then per host the GDRDMA count, the NIC of each GPU and the HCAs', () => {
    const r = cli(['nccl-log', GDR]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^NCCL 2\.16\.5 \(built for CUDA 11\.8\), network IB; 1 host, 1 rank seen/);
    assert.equal(lines[1], 'Verdict: gdr: GPU Direct RDMA on every network connection');
    assert.equal(lines[3], 'n013: GPU Direct RDMA used on 6 of 6 network connections (network IB)');
    assert.equal(lines[4], '  GPU 0 (busId 81000, rank 0): NICs mlx5_2 (6 of 6 GDRDMA); DMA-BUF available');
    assert.equal(lines[5], '  HCAs: mlx5_0 RoCE, GDR enabled; mlx5_2 IB, GDR enabled');
  });

  it('gives the JSON keys the issue lists, with several files read as one job, and every reason per host', () => {
    const r = cli(['nccl-log', PART1, PART2, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    for (const key of ['ncclVersion', 'network', 'hcas', 'netConnections', 'verdict', 'hosts', 'findings', 'rayFolded', 'dropped'])
      assert.ok(key in j, key);
    assert.equal(j.ncclVersion, null);
    assert.equal(j.network, 'IB');
    assert.deepEqual(j.netConnections, { total: 11, gdrdma: 0 });
    assert.equal(j.verdict, 'no-gdr');
    assert.deepEqual(
      j.hcas,
      ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3'].map((name) => ({ name, net: 'IB', gdr: false, dmabuf: null })),
    );
    assert.deepEqual(
      j.hosts.map((h: { name: string; gdrOffReasons: unknown[] }) => [h.name, h.gdrOffReasons.length]),
      [
        ['6a5a91752e39', 1],
        ['21346d5cefce', 3],
      ],
    );
    assert.deepEqual(
      j.files.map((f: { name: string }) => f.name),
      [PART1, PART2],
    );
    assert.equal(j.findings[0].id, 'nccl-log.no-gdrdma');
  });

  it('reads standard input for "-", naming it <stdin>', () => {
    const r = cli(['nccl-log', '-', '--json'], fs.readFileSync(GDR, 'utf8'));
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.verdict, 'gdr');
    assert.deepEqual(j.files, [{ name: '<stdin>', lines: 87, ncclLines: 74 }]);
  });

  it('exits 2 naming a file without one NCCL line, and still summarizes the others', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-nccl-'));
    const other = path.join(dir, 'train.log');
    fs.writeFileSync(other, 'epoch 1 loss 0.5\nepoch 2 loss 0.4\n');
    const alone = cli(['nccl-log', other]);
    assert.equal(alone.status, 2);
    assert.equal(alone.stdout, '');
    assert.match(alone.stderr, new RegExp(`^${other.replace(/[.]/g, '\\.')}:1: no NCCL log lines`));
    const both = cli(['nccl-log', GDR, other]);
    assert.equal(both.status, 2);
    assert.match(both.stdout, /^Verdict: gdr/m);
    fs.rmSync(dir, { recursive: true });
  });

  it('exits 66 naming a file it cannot read, 64 on bad usage', () => {
    const missing = cli(['nccl-log', '/nonexistent/job.log']);
    assert.equal(missing.status, 66);
    assert.match(missing.stderr, /cannot read \/nonexistent\/job\.log: ENOENT/);
    assert.equal(cli(['nccl-log', GDR, '/nonexistent/job.log']).status, 66);
    for (const args of [['nccl-log'], ['nccl-log', GDR, '--jsn'], ['nccl-log', '-', '-']]) {
      const r = cli(args, '');
      assert.equal(r.status, 64, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('shows control characters from the log escaped on the terminal, exact in --json', () => {
    // The real 2.16.5 log with an OSC 52 (set the clipboard) sequence put into its network name.
    const text = fs.readFileSync(GDR, 'utf8').replace('Using network IB', 'Using network IB\u001b]52;c;AAAA\u0007');
    const plain = cli(['nccl-log', '-'], text);
    assert.equal(plain.status, 0, plain.stderr);
    assert.doesNotMatch(plain.stdout, /[\u001b\u0007]/);
    assert.match(plain.stdout, /network IB\\033\]52;c;AAAA\\007;/);
    const json = cli(['nccl-log', '-', '--json'], text);
    assert.equal(JSON.parse(json.stdout).network, 'IB\u001b]52;c;AAAA\u0007');
  });

  it('is a parse kind too: gdr-doctor parse nccl-log FILE', () => {
    const r = cli(['parse', 'nccl-log', GDR, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).verdict, 'gdr');
  });
});
