import * as assert from 'node:assert/strict';
import { parseNumactl } from '../../../src/core/parsers/numactl';
import { checksFor, firstLines, range, readFixture } from '../../support/parsing';
import { summarizeNumactl } from '../../../src/cli/summary/numactl';

const { parsed, failure } = checksFor(parseNumactl);

const seed = readFixture('numactl', 'seed-xeon-gold-5318y-2node.txt');
const epyc = readFixture('numactl', 'amd-epyc-2socket-nps4-8node-mi210.txt');
const power9 = readFixture('numactl', 'power9-ac922-witherspoon-6node-gpu-memory-nodes.txt');
const gh200 = readFixture('numactl', 'grace-hopper-gh200-9node-hbm-wrapped.txt');
const single = readFixture('numactl', 'intel-i5-13500-single-node.txt');
const noNuma = readFixture('numactl', 'uma-no-numa-available.txt');

describe('parseNumactl', () => {
  describe('real outputs', () => {
    it('reads a 2-node Intel host (seed, Xeon Gold 5318Y)', () => {
      assert.deepEqual(parsed(seed), {
        numaAvailable: true,
        nodes: [
          { id: 0, cpus: range(0, 23), sizeMb: 257434, freeMb: 201543 },
          { id: 1, cpus: range(24, 47), sizeMb: 258027, freeMb: 213800 },
        ],
        distances: [
          [10, 20],
          [20, 10],
        ],
      });
    });

    it('reads an 8-node AMD EPYC NPS4 host whose distance rows end in a space', () => {
      const value = parsed(epyc);
      assert.deepEqual(
        value.nodes.map((node) => node.id),
        range(0, 7),
      );
      assert.deepEqual(value.nodes[0].cpus, [...range(0, 15), ...range(128, 143)]);
      assert.deepEqual(value.nodes[7], { id: 7, cpus: [...range(112, 127), ...range(240, 255)], sizeMb: 64492, freeMb: 55638 });
      assert.deepEqual(value.distances[0], [10, 12, 12, 12, 32, 32, 32, 32]);
      assert.deepEqual(value.distances[5], [32, 32, 32, 32, 12, 10, 12, 12]);
      assert.equal(value.distances.length, 8);
    });

    it('reads non-contiguous node ids and CPU-less GPU memory nodes (POWER9 AC922: 0, 8, 252-255)', () => {
      const value = parsed(power9);
      assert.deepEqual(
        value.nodes.map((node) => node.id),
        [0, 8, 252, 253, 254, 255],
      );
      assert.deepEqual(value.nodes[1], { id: 8, cpus: range(64, 127), sizeMb: 130784, freeMb: 129864 });
      assert.deepEqual(value.nodes[2], { id: 252, cpus: [], sizeMb: 0, freeMb: 0 });
      // Distances are indexed by position in `nodes`: row 1 is node 8, row 2 is node 252.
      assert.deepEqual(value.distances[1], [40, 10, 80, 80, 80, 80]);
      assert.deepEqual(value.distances[2], [80, 80, 10, 80, 80, 80]);
    });

    it('reads numactl --hardware on Grace Hopper, joining a cpus line wrapped by the mail it was posted in', () => {
      const value = parsed(gh200);
      assert.equal(value.nodes.length, 9);
      assert.deepEqual(value.nodes[0], { id: 0, cpus: range(0, 71), sizeMb: 490037, freeMb: 484432 });
      assert.deepEqual(value.nodes[1], { id: 1, cpus: [], sizeMb: 97280, freeMb: 97279 });
      assert.deepEqual(value.nodes[8], { id: 8, cpus: [], sizeMb: 0, freeMb: 0 });
      assert.deepEqual(value.distances[0], [10, 80, 80, 80, 80, 80, 80, 80, 80]);
      assert.deepEqual(value.distances[1], [80, 10, 255, 255, 255, 255, 255, 255, 255]);
    });

    it('reads a single-node host', () => {
      assert.deepEqual(parsed(single), {
        numaAvailable: true,
        nodes: [{ id: 0, cpus: range(0, 19), sizeMb: 64081, freeMb: 56611 }],
        distances: [[10]],
      });
    });

    it('accepts "No NUMA available on this system" as a host without NUMA', () => {
      assert.deepEqual(parsed(noNuma), { numaAvailable: false, nodes: [], distances: [] });
    });
  });

  describe('variants of real outputs', () => {
    it('accepts "No distance information available." in place of the matrix', () => {
      const value = parsed(`${firstLines(seed, 7)}No distance information available.\n`);
      assert.equal(value.nodes.length, 2);
      assert.deepEqual(value.distances, []);
    });

    it('reads CRLF line endings and trailing blank lines the same', () => {
      assert.deepEqual(parsed(`${seed.replace(/\n/g, '\r\n')}\r\n\r\n`), parsed(seed));
    });
  });

  describe('malformed input', () => {
    it('refuses empty input at line 1', () => {
      assert.equal(failure('').line, 1);
      assert.match(failure('\n \n').message, /empty/);
    });

    it("refuses garbage and other commands' output at the first line", () => {
      assert.equal(failure('hello world\n').line, 1);
      failure(readFixture('lscpu', 'seed-xeon-gold-5318y-2socket-old-layout.txt'), 1, /expected "available: N nodes/);
    });

    it('refuses a header whose count disagrees with its node list', () => {
      failure(seed.replace('available: 2 nodes (0-1)', 'available: 3 nodes (0-1)'), 1, /says 3 nodes but lists 2/);
    });

    it('refuses output cut inside a node block, at the last line', () => {
      failure(firstLines(seed, 5), 5, /input ends after line 5; expected "node 1 size: N MB"/);
    });

    it('refuses output cut before the last distance row', () => {
      failure(firstLines(seed, 10), 10, /distance row for node 1/);
    });

    it('refuses a distance row cut in the middle', () => {
      failure(seed.replace('  1:  20  10', '  1:  20'), 11, /must hold 2 numbers/);
    });

    it('refuses a node block for the wrong node', () => {
      failure(seed.replace('node 1 cpus:', 'node 2 cpus:'), 5, /expected "node 1 cpus:"/);
    });

    it('refuses a CPU that is not a number', () => {
      assert.equal(failure(seed.replace('node 0 cpus: 0 1 2', 'node 0 cpus: 0 x 2')).line, 2);
    });

    it('refuses a missing "node distances:" line', () => {
      assert.equal(failure(`${firstLines(seed, 7)}  0:  10  20\n`).line, 8);
    });

    it('refuses a distance header or row naming other nodes', () => {
      assert.equal(failure(seed.replace('node   0   1', 'node   0   2')).line, 9);
      assert.equal(failure(seed.replace('  1:  20  10', '  2:  20  10')).line, 11);
    });

    it('refuses text after the distance matrix', () => {
      failure(`${seed}garbage\n`, 12, /unexpected text/);
    });

    it('refuses text after "No NUMA available on this system"', () => {
      assert.equal(failure(`${noNuma}${seed}`).line, 2);
    });
  });
});

describe('summarizeNumactl', () => {
  it('lists nodes with CPUs and memory, then the distance matrix', () => {
    const text = summarizeNumactl(parsed(power9));
    assert.match(text, /^numactl: 6 NUMA node\(s\)$/m);
    assert.match(text, /^ {2}node 8: CPUs 64-127 \(64\), 130784 MB, 129864 MB free$/m);
    assert.match(text, /^ {2}node 252: no CPUs, no memory \(placeholder node\)$/m);
    assert.match(text, /^ {4}8: {2}40 {2}10 {2}80 {2}80 {2}80 {2}80$/m);
    assert.ok(!text.endsWith('\n'));
  });

  it('calls a CPU-less node with memory a memory-only node (GH200 GPU memory)', () => {
    assert.match(summarizeNumactl(parsed(gh200)), /^ {2}node 1: no CPUs \(memory-only node\), 97280 MB, 97279 MB free$/m);
  });

  it('says when NUMA is not available', () => {
    assert.match(summarizeNumactl(parsed(noNuma)), /^numactl: No NUMA available on this system/);
  });
});
