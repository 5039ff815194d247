// Every real nccl-tests output in test/fixtures/nccl-tests, read as users paste it: the values stated
// here were read off each file by eye (ranks, nodes, rows, the largest size and its busbw, the average).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { largestRow, parseNcclTests } from '../../../src/core/ncclTests';
import { ncclLogNearTop } from '../../../src/core/ncclLog/detect';
import type { NcclTestsRun } from '../../../src/core/ncclTests';
import { expectOk, readFixture } from '../../support/parsing';
import { fixtureFiles } from '../../support/paths';

interface Expected {
  readonly test: string | null;
  readonly release: string | null;
  readonly layout: NcclTestsRun['layout'];
  readonly ranks: number;
  readonly hosts: number;
  readonly rows: number;
  readonly largest: readonly [number, number];
  readonly average: number | null;
  readonly problems?: number;
}

const EXPECTED: Readonly<Record<string, Expected>> = {
  'a3mega-h100-2nodes-16ranks-page.txt': {
    test: 'all_reduce_perf',
    release: null,
    layout: 'new',
    ranks: 16,
    hosts: 2,
    rows: 31,
    largest: [8589934592, 338.82],
    average: 70.742,
  },
  'h200-nccl2.28.9-all_gather-2nodes-socket.txt': {
    test: 'all_gather_perf',
    release: '2.28.9',
    layout: 'new',
    ranks: 2,
    hosts: 1,
    rows: 24,
    largest: [67108864, 1.85],
    average: 0.382307,
  },
  'h200-nccl2.28.9-all_reduce-1rank-socket.txt': {
    test: 'all_reduce_perf',
    release: '2.28.9',
    layout: 'new',
    ranks: 1,
    hosts: 1,
    rows: 26,
    largest: [268435456, 0],
    average: 0,
  },
  'h200-nccl2.28.9-all_reduce-2nodes-socket.txt': {
    test: 'all_reduce_perf',
    release: '2.28.9',
    layout: 'new',
    ranks: 2,
    hosts: 1,
    rows: 27,
    largest: [536870912, 1.86],
    average: 0.546689,
  },
  'h200-nccl2.28.9-sendrecv-2nodes-socket.txt': {
    test: 'sendrecv_perf',
    release: '2.28.9',
    layout: 'new',
    ranks: 2,
    hosts: 1,
    rows: 24,
    largest: [67108864, 1.51],
    average: 0.363042,
  },
  'nccl-tests-249-markdown-no-hash-cut.txt': {
    test: 'all_reduce_perf',
    release: null,
    layout: 'new',
    ranks: 1,
    hosts: 1,
    rows: 0,
    largest: [0, 0],
    average: null,
    problems: 1,
  },
  'nccl-tests-290-h100-ndr-2nodes-srun-ring.txt': {
    test: null,
    release: null,
    layout: 'new',
    ranks: 16,
    hosts: 2,
    rows: 11,
    largest: [8589934592, 89.9],
    average: 85.5294,
  },
  'nccl-tests-290-h100-ndr-2nodes-srun.txt': {
    test: null,
    release: null,
    layout: 'new',
    ranks: 16,
    hosts: 2,
    rows: 11,
    largest: [8589934592, 155.57],
    average: 142.735,
  },
  'nccl-tests-294-rows-only-2nodes.txt': {
    test: null,
    release: null,
    layout: 'inferred',
    ranks: 0,
    hosts: 0,
    rows: 5,
    largest: [2147483648, 444.25],
    average: 406.034,
  },
  'nccl-tests-309-h100-ndr-2nodes.txt': {
    test: 'all_reduce_perf',
    release: '2.26.2',
    layout: 'new',
    ranks: 16,
    hosts: 2,
    rows: 32,
    largest: [17179869184, 469.21],
    average: 139.56,
  },
  'nccl-tests-309-h100-ndr-4nodes.txt': {
    test: 'all_reduce_perf',
    release: '2.26.2',
    layout: 'new',
    ranks: 32,
    hosts: 4,
    rows: 32,
    largest: [17179869184, 365.84],
    average: 107.51,
  },
  'nccl-tests-309-h100-ndr-8nodes.txt': {
    test: null,
    release: null,
    layout: 'new',
    ranks: 64,
    hosts: 8,
    rows: 14,
    largest: [8589934592, 320.7],
    average: 183.055,
  },
  'oci-b4.8-a100-2nodes-slurm-trimmed.txt': {
    test: 'all_reduce_perf',
    release: '2.29.3',
    layout: 'new',
    ranks: 4,
    hosts: 2,
    rows: 4,
    largest: [8589934592, 189.6],
    average: null,
  },
  'p4d-a100-efa-2nodes-tag-output-old-layout.txt': {
    test: null,
    release: '2.9.9',
    layout: 'old',
    ranks: 16,
    hosts: 2,
    rows: 30,
    largest: [4294967296, 43.81],
    average: 11.2432,
  },
};

describe('nccl-tests outputs: every real fixture in test/fixtures/nccl-tests', () => {
  const files = fixtureFiles('nccl-tests');

  it('has an expectation for every fixture', () =>
    assert.deepEqual(files.map((f) => path.basename(f)).sort(), Object.keys(EXPECTED).sort()));

  for (const file of files) {
    const name = path.basename(file);
    it(name, () => {
      const e = EXPECTED[name];
      const run = expectOk(parseNcclTests(readFixture('nccl-tests', name)));
      const largest = largestRow(run);
      assert.deepEqual(
        {
          test: run.test,
          release: run.nccl_release,
          layout: run.layout,
          ranks: run.devices.length,
          hosts: run.hosts.length,
          rows: run.results.length,
          largest: largest ? [largest.row.size, largest.busbw] : [0, 0],
          average: run.average_bus_bandwidth,
          problems: run.problems.length,
        },
        { ...e, problems: e.problems ?? 0 },
      );
    });
  }

  // nccl-tests computes busbw from algbw (doc/PERFORMANCE.md: all_reduce 2(n-1)/n, all_gather (n-1)/n,
  // sendrecv 1): every row read must agree to the two decimals printed, so no column was read for another.
  it('reads busbw and algbw from their own columns in every row (busbw = algbw × the collective factor)', () => {
    let checked = 0;
    for (const file of files) {
      const run = expectOk(parseNcclTests(readFixture('nccl-tests', path.basename(file))));
      if (run.devices.length === 0) continue;
      const n = Math.max(...run.devices.map((d) => d.rank)) + 1;
      const factor = run.test === 'sendrecv_perf' ? 1 : run.results[0]?.redop === 'none' ? (n - 1) / n : (2 * (n - 1)) / n;
      for (const row of run.results)
        for (const p of [row.out_of_place, row.in_place]) {
          if (!p) continue;
          checked++;
          assert.ok(Math.abs(p.alg_bw * factor - p.bus_bw) <= 0.02 + p.bus_bw * 0.001, `${path.basename(file)}:${row.line}`);
        }
    }
    assert.ok(checked > 500, `${checked} values`);
  });

  it('reads the same run from the -J JSON as from the text table beside it', () => {
    for (const base of ['all_reduce-2nodes', 'all_gather-2nodes', 'sendrecv-2nodes', 'all_reduce-1rank']) {
      const stem = `h200-nccl2.28.9-${base}-socket`;
      const text = expectOk(parseNcclTests(readFixture('nccl-tests', `${stem}.txt`)));
      const json = expectOk(parseNcclTests(readFixture('nccl-tests', `${stem}.json`)));
      assert.equal(json.source, 'json');
      assert.equal(json.nccl_version, text.nccl_version);
      assert.equal(json.test, text.test);
      assert.deepEqual(json.devices, text.devices);
      assert.deepEqual(
        json.results.map((r) => [r.size, r.count, r.type, r.redop, r.root]),
        text.results.map((r) => [r.size, r.count, r.type, r.redop, r.root]),
      );
      for (const [i, r] of json.results.entries()) {
        assert.ok(Math.abs((r.out_of_place?.bus_bw ?? 0) - (text.results[i].out_of_place?.bus_bw ?? 0)) <= 0.005, `${stem} row ${i}`);
        assert.equal(r.in_place?.nwrong, text.results[i].in_place?.nwrong);
      }
      assert.equal(json.average_bus_bandwidth, text.average_bus_bandwidth);
    }
  });

  it("takes an output with NCCL's INFO lines for an NCCL log too (the editor's nccl-log language), and one without them not", () => {
    const withLog = files
      .filter((f) => ncclLogNearTop(readFixture('nccl-tests', path.basename(f)).split('\n')))
      .map((f) => path.basename(f));
    assert.deepEqual(withLog, [
      'h200-nccl2.28.9-all_gather-2nodes-socket.txt',
      'h200-nccl2.28.9-all_reduce-1rank-socket.txt',
      'h200-nccl2.28.9-all_reduce-2nodes-socket.txt',
      'h200-nccl2.28.9-sendrecv-2nodes-socket.txt',
      'nccl-tests-294-rows-only-2nodes.txt',
      'p4d-a100-efa-2nodes-tag-output-old-layout.txt',
    ]);
  });
});
