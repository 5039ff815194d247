// nccl-tests outputs damaged the ways pastes are: cut inside a row, a value garbled, a second run
// after the first, a -J file a killed run left open, rows beyond the cap, adversarial lines. Each input
// is a real fixture changed as the test says; a row that cannot be read whole is reported, never guessed.
import * as assert from 'node:assert/strict';
import { NCCL_TESTS_CAPS, parseNcclTests } from '../../../src/core/ncclTests';
import { expectError, expectOk, readFixture } from '../../support/parsing';

const H200 = 'h200-nccl2.28.9-all_reduce-2nodes-socket';

describe('nccl-tests outputs, damaged', () => {
  it('reports a last row cut in the middle as cut, and keeps the rows before it', () => {
    const text = readFixture('nccl-tests', `${H200}.txt`);
    const at = text.indexOf('   536870912     134217728     float     sum      -1   288668    1.86');
    const run = expectOk(parseNcclTests(text.slice(0, at + 50)));
    assert.equal(run.results.length, 26);
    assert.equal(run.results[25].size, 268435456);
    assert.deepEqual(
      run.problems.map((p) => [p.kind, p.why]),
      [['cut', 'it ends after 4 of 13 columns']],
    );
    assert.equal(run.concluded, false);
    assert.equal(run.average_bus_bandwidth, null);
  });

  it('reports a row with a value that is not a number as garbled, naming the column', () => {
    const text = readFixture('nccl-tests', `${H200}.txt`).replace('4662.43    1.80    1.80', '4662.43    1.8O    1.80');
    const run = expectOk(parseNcclTests(text));
    assert.equal(run.results.length, 26);
    assert.equal(run.problems.length, 1);
    assert.equal(run.problems[0].kind, 'garbled');
    assert.match(run.problems[0].why, /column 7 \(out-of-place algbw\) is "1\.8O"/);
  });

  it('reads one run: a second one pasted after it is not mixed in', () => {
    const a = readFixture('nccl-tests', 'nccl-tests-309-h100-ndr-2nodes.txt');
    const b = readFixture('nccl-tests', 'nccl-tests-309-h100-ndr-4nodes.txt');
    const run = expectOk(parseNcclTests(a + b));
    assert.equal(run.results.length, 32);
    assert.equal(run.hosts.length, 2);
    assert.equal(run.average_bus_bandwidth, 139.56);
  });

  it('refuses a -J file that a killed run left unterminated, naming the line', () => {
    const json = readFixture('nccl-tests', `${H200}.json`);
    const cut = json.slice(0, json.indexOf('"size":536870912'));
    expectError(parseNcclTests(cut), 1, /not whole JSON/);
  });

  it('refuses text that holds no nccl-tests line at all', () => {
    expectError(parseNcclTests(readFixture('nccl-log', 'ibext-plugin-no-gdrdma-8-gpus-cut.txt')), 1, /no nccl-tests result table/);
  });

  it('keeps at most the row cap and says it stopped', () => {
    const row = '     1048576        262144     float     sum      -1    82.17   12.76   24.73      0    82.21   12.75   24.71      0\n';
    const run = expectOk(parseNcclTests(row.repeat(NCCL_TESTS_CAPS.rows + 5)));
    assert.equal(run.results.length, NCCL_TESTS_CAPS.rows);
    assert.equal(run.truncated, true);
  });

  it('reads adversarial lines (one huge line of digits and spaces, thousands of "#  Rank" lines) to the end', () => {
    const huge = `${'1 '.repeat(200_000)}\n`;
    const ranks = '#  Rank  0 Group  0 Pid 1 on '.repeat(5_000);
    const run = expectOk(parseNcclTests(`${huge}${ranks}\n${readFixture('nccl-tests', 'nccl-tests-294-rows-only-2nodes.txt')}`));
    assert.equal(run.results.length, 5);
    assert.equal(run.problems[0].kind, 'garbled');
  });

  it("reads a row that mpirun's --tag-output split with its tag in the middle (it tags what it reads, not lines)", () => {
    const text = readFixture('nccl-tests', 'p4d-a100-efa-2nodes-tag-output-old-layout.txt').replace(
      '183834   23.36   43.81  5e-07',
      '183834   23.36   43.81[1,0]<stdout>:  5e-07',
    );
    const run = expectOk(parseNcclTests(text));
    assert.deepEqual([run.results.length, run.problems.length, run.results[29].out_of_place?.error], [30, 0, 5e-7]);
  });
});
