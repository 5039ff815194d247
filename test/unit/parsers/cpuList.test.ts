import * as assert from 'node:assert/strict';
import { MAX_CPU_ID, formatCpuList, parseCpuList } from '../../../src/core/parsers/cpuList';
import { range } from '../../support/parsing';

function cpus(text: string): number[] {
  const result = parseCpuList(text);
  if (!result.ok) assert.fail(`expected ${JSON.stringify(text)} to parse: ${result.reason}`);
  return result.value;
}

function reason(text: string): string {
  const result = parseCpuList(text);
  if (result.ok) assert.fail(`expected ${JSON.stringify(text)} to be refused, got ${JSON.stringify(result.value)}`);
  return result.reason;
}

describe('cpuList', () => {
  describe('parseCpuList', () => {
    it('reads ranges and single CPUs as lscpu and nvidia-smi topo print them', () => {
      assert.deepEqual(cpus('0-31,64-95'), [...range(0, 31), ...range(64, 95)]);
      assert.deepEqual(cpus('48-63,176-191'), [...range(48, 63), ...range(176, 191)]);
      assert.deepEqual(cpus('0,1'), [0, 1]);
      assert.deepEqual(cpus('5'), [5]);
      assert.deepEqual(cpus('0,8,252-255'), [0, 8, 252, 253, 254, 255]);
    });

    it('treats empty or blank text as no CPUs (memory-only NUMA node, empty affinity)', () => {
      assert.deepEqual(cpus(''), []);
      assert.deepEqual(cpus('   '), []);
    });

    it('sorts and removes duplicates', () => {
      assert.deepEqual(cpus('8-9,0-2,1'), [0, 1, 2, 8, 9]);
    });

    it('accepts surrounding whitespace', () => {
      assert.deepEqual(cpus(' 0-3 \n'), [0, 1, 2, 3]);
    });

    it('refuses text that is not a CPU list, saying what it found', () => {
      assert.match(reason('N/A'), /found "N\/A"/);
      assert.match(reason('0-'), /found "0-"/);
      assert.match(reason('-3'), /found "-3"/);
      assert.match(reason('0,,1'), /found ""/);
      assert.match(reason('0-31:2'), /found "0-31:2"/);
      assert.match(reason('0 1 2'), /found "0 1 2"/);
      assert.match(reason('0x3'), /found "0x3"/);
    });

    it('refuses backwards ranges', () => {
      assert.match(reason('31-0'), /runs backwards/);
    });

    it(`refuses CPU numbers above ${MAX_CPU_ID} instead of allocating a huge list`, () => {
      assert.match(reason('0-999999999'), /above 65535/);
      assert.deepEqual(cpus(`${MAX_CPU_ID}`), [MAX_CPU_ID]);
    });
  });

  describe('formatCpuList', () => {
    it('collapses consecutive CPUs into ranges', () => {
      assert.equal(formatCpuList([...range(0, 31), ...range(64, 95)]), '0-31,64-95');
      assert.equal(formatCpuList([0, 8, 252, 253, 254, 255]), '0,8,252-255');
    });

    it('prints a run of two as a range, like the kernel', () => {
      assert.equal(formatCpuList([4, 5]), '4-5');
    });

    it('sorts, ignores duplicates, and gives "" for no CPUs', () => {
      assert.equal(formatCpuList([3, 1, 2, 2, 7]), '1-3,7');
      assert.equal(formatCpuList([]), '');
      assert.equal(formatCpuList([9]), '9');
    });

    it('round-trips with parseCpuList', () => {
      for (const text of ['0-15,128-143', '96-111,224-239', '0-71', '3,5,7-9']) {
        assert.equal(formatCpuList(cpus(text)), text);
      }
      // lscpu (util-linux) prints a pair as "0,1"; the kernel's form is "0-1". Both mean the same CPUs.
      assert.equal(formatCpuList(cpus('0,1')), '0-1');
    });
  });
});
