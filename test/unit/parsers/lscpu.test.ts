import * as assert from 'node:assert/strict';
import { parseLscpu } from '../../../src/core/parsers/lscpu';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeLscpu } from '../../../src/cli/summary/lscpu';

const { parsed, failure } = checksFor(parseLscpu);

/** 1-based number of the first line of `text` that starts with `prefix`. */
function lineOf(text: string, prefix: string): number {
  const index = text.split('\n').findIndex((line) => line.startsWith(prefix));
  assert.ok(index >= 0, `no line starts with ${JSON.stringify(prefix)}`);
  return index + 1;
}

/** The text up to and including the first line that starts with `prefix`. */
function cutAfter(text: string, prefix: string): string {
  return text.split('\n').slice(0, lineOf(text, prefix)).join('\n');
}

const seed = readFixture('lscpu', 'seed-xeon-gold-5318y-2socket-old-layout.txt');
const epyc = readFixture('lscpu', 'amd-epyc-9534-2socket-nps4-h100nvl-new-layout.txt');
const xeonMax = readFixture('lscpu', 'intel-xeon-max-9480-hbm-16node-new-layout.txt');
const grace = readFixture('lscpu', 'grace-hopper-gh200-neoverse-v2-9node.txt');
const graceVm = readFixture('lscpu', 'grace-hopper-gh200-vm-flat-socket-dash.txt');
const i5 = readFixture('lscpu', 'intel-i5-13500-new-util-linux-flat-nonterminal.txt');

describe('parseLscpu', () => {
  describe('real outputs', () => {
    it('reads the old util-linux flat layout (seed, Xeon Gold 5318Y)', () => {
      const value = parsed(seed);
      assert.equal(value.modelName, 'Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz');
      assert.equal(value.cpus, 48);
      assert.equal(value.sockets, 2);
      assert.equal(value.coresPerSocket, 24);
      assert.equal(value.threadsPerCore, 1);
      assert.deepEqual(value.numaNodes, { 0: '0-23', 1: '24-47' });
      assert.equal(value.fields['Architecture'], 'x86_64');
      assert.equal(value.fields['L1d cache'], '48K');
      assert.equal(value.fields['L3 cache'], '36864K');
      assert.equal(value.fields['NUMA node(s)'], '2');
      assert.equal(Object.keys(value.fields).length, 25);
      assert.ok(
        Object.keys(value.fields).every((key) => !key.includes('/')),
        'flat layout keys are not prefixed',
      );
    });

    it('reads the new layout with sections and joins wrapped Flags (AMD EPYC 9534, NPS4)', () => {
      const value = parsed(epyc);
      assert.equal(value.modelName, 'AMD EPYC 9534 64-Core Processor');
      assert.equal(value.cpus, 256);
      assert.equal(value.sockets, 2);
      assert.equal(value.coresPerSocket, 64);
      assert.equal(value.threadsPerCore, 2);
      assert.deepEqual(value.numaNodes, {
        0: '0-15,128-143',
        1: '16-31,144-159',
        2: '32-47,160-175',
        3: '48-63,176-191',
        4: '64-79,192-207',
        5: '80-95,208-223',
        6: '96-111,224-239',
        7: '112-127,240-255',
      });
      // Keys nested under a valued line stay bare; keys under a value-less header get its name.
      assert.equal(value.fields['CPU op-mode(s)'], '32-bit, 64-bit');
      assert.equal(value.fields['CPU family'], '25');
      assert.equal(value.fields['Caches (sum of all)/L3'], '512 MiB (16 instances)');
      assert.equal(value.fields['Virtualization features/Virtualization'], 'AMD-V');
      assert.equal(value.fields['NUMA/NUMA node(s)'], '8');
      assert.equal(value.fields['Vulnerabilities/Spec rstack overflow'], 'Mitigation; Safe RET');
      assert.equal(value.fields['Caches (sum of all)'], undefined, 'a section header is not a field');
      const flags = value.fields['Flags'];
      assert.ok(flags.startsWith('fpu vme de pse tsc'));
      assert.ok(flags.endsWith('fsrm flush_l1d debug_swap'));
      for (const joined of [
        'nopl nonstop_tsc',
        'cmp_legacy svm extapic cr8_legacy abm',
        'stibp ibrs_enhanced',
        'xsavec xgetbv1',
        'nrip_save tsc_scale',
        'vpclmulqdq avx512_vnni',
      ]) {
        assert.ok(flags.includes(joined), `Flags should contain ${JSON.stringify(joined)}`);
      }
    });

    it('keeps empty CPU lists of memory-only NUMA nodes (Xeon Max 9480 with HBM, 16 nodes)', () => {
      const value = parsed(xeonMax);
      assert.equal(value.cpus, 224);
      assert.equal(value.coresPerSocket, 56);
      assert.equal(value.modelName, 'Intel (R) Xeon (R) CPU Max 9480');
      assert.equal(value.fields['BIOS Model name'], 'Intel (R) Xeon (R) CPU Max 9480  CPU @ 1.9GHz');
      assert.equal(Object.keys(value.numaNodes).length, 16);
      assert.equal(value.numaNodes['7'], '98-111,210-223');
      for (let node = 8; node <= 15; node++) assert.equal(value.numaNodes[String(node)], '');
      assert.equal(value.fields['NUMA/NUMA node15 CPU(s)'], '');
      // A wrapped line that starts one column past the value column keeps its leading space.
      assert.ok(value.fields['Flags'].includes('constant_tsc art arch_perfmon pebs'));
      assert.ok(value.fields['Flags'].includes('cqm_mbm_total cqm_mbm_local split_lock_detect'));
    });

    it('reads a Grace Hopper GH200 (aarch64 Neoverse-V2, 8 CPU-less GPU memory nodes)', () => {
      const value = parsed(grace);
      assert.equal(value.fields['Architecture'], 'aarch64');
      assert.equal(value.modelName, 'Neoverse-V2');
      assert.equal(value.cpus, 72);
      assert.equal(value.sockets, 1);
      assert.equal(value.coresPerSocket, 72);
      assert.equal(value.threadsPerCore, 1);
      assert.deepEqual(value.numaNodes, { 0: '0-71', 1: '', 2: '', 3: '', 4: '', 5: '', 6: '', 7: '', 8: '' });
      assert.ok(value.fields['Flags'].includes('sve asimdfhm dit uscat ilrcpc'));
    });

    it('reads the flat layout with "Socket(s): -" and per-cluster cores as unknown (GH200 VM)', () => {
      const value = parsed(graceVm);
      assert.equal(value.cpus, 64);
      assert.equal(value.sockets, null);
      assert.equal(value.coresPerSocket, null);
      assert.equal(value.threadsPerCore, 1);
      assert.equal(value.fields['Socket(s)'], '-');
      assert.equal(value.fields['Core(s) per cluster'], '64');
      assert.equal(value.fields['NUMA node8 CPU(s)'], '', 'an empty value at column 0 is a field, not a section');
      assert.equal(value.numaNodes['0'], '0-63');
      assert.equal(Object.keys(value.numaNodes).length, 9);
      assert.equal(value.fields['Vulnerability Spectre v1'], 'Mitigation; __user pointer sanitization');
    });

    it('reads the new util-linux flat layout written to a pipe (i5-13500)', () => {
      const value = parsed(i5);
      assert.equal(value.cpus, 20);
      assert.equal(value.sockets, 1);
      assert.equal(value.coresPerSocket, 14);
      assert.equal(value.threadsPerCore, 2);
      assert.deepEqual(value.numaNodes, { 0: '0-19' });
      assert.equal(value.fields['L2 cache'], '11.5 MiB (8 instances)');
      assert.equal(value.fields['Vulnerability Reg file data sampling'], 'Mitigation; Clear Register File');
      assert.equal(value.fields['CPU(s) scaling MHz'], '28%');
    });
  });

  describe('variants of real outputs', () => {
    it('reads CRLF line endings the same', () => {
      assert.deepEqual(parsed(epyc.replace(/\n/g, '\r\n')), parsed(epyc));
    });

    it('joins continuation lines whose indentation a copy turned into tabs', () => {
      const tabbed = grace.replace(/\n {24}t uscat/, '\n\t\t\tt uscat');
      assert.notEqual(tabbed, grace);
      assert.equal(parsed(tabbed).fields['Flags'], parsed(grace).fields['Flags']);
    });

    it('numbers a repeated key instead of losing it (big.LITTLE prints one block per core type)', () => {
      const text = seed.replace('Stepping:', 'Model name:            Second core type\nStepping:');
      const value = parsed(text);
      assert.equal(value.fields['Model name'], 'Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz');
      assert.equal(value.fields['Model name #2'], 'Second core type');
      assert.equal(value.modelName, 'Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz');
    });

    it('numbers many repeats in order and skips a number the output printed itself', () => {
      const repeats = ['Model name #3:          printed', ...['a', 'b', 'c', 'd'].map((v) => `Model name:            ${v}`)];
      const value = parsed(seed.replace('Stepping:', `${repeats.join('\n')}\nStepping:`));
      assert.equal(value.fields['Model name #2'], 'a');
      assert.equal(value.fields['Model name #3'], 'printed');
      assert.deepEqual(
        ['Model name #4', 'Model name #5', 'Model name #6'].map((k) => value.fields[k]),
        ['b', 'c', 'd'],
      );
    });
  });

  describe('malformed input', () => {
    it('refuses empty and blank input at line 1', () => {
      assert.equal(failure('').line, 1);
      assert.equal(failure('\n\n  \n').line, 1);
      assert.match(failure('').message, /empty/);
    });

    it("refuses another command's output at its first line", () => {
      const error = failure(readFixture('numactl', 'seed-xeon-gold-5318y-2node.txt'));
      assert.equal(error.line, 1);
      assert.match(error.message, /expected "Architecture:"/);
      assert.equal(failure('\n\nhello world\n').line, 3);
    });

    it('refuses a line without "key: value" at that line', () => {
      const text = seed.replace('Byte Order:            Little Endian', 'garbage without a separator');
      failure(text, 3, /expected a "key: value" line, found "garbage without a separator"/);
    });

    it('refuses output cut in the middle of a key', () => {
      const text = `${cutAfter(epyc, '  NUMA node2 CPU(s):')}\n  NUMA node3 CP`;
      assert.equal(failure(text).line, lineOf(epyc, '  NUMA node3 CPU(s):'));
    });

    it('refuses output cut right after a section header', () => {
      const text = cutAfter(epyc, 'Vulnerabilities:');
      failure(text, 44, /"Vulnerabilities" has no entries/);
    });

    it('refuses output without a "CPU(s):" line, at the last line', () => {
      const text = seed.replace('CPU(s):                48\n', '');
      failure(text, 24, /no "CPU\(s\):" line/);
    });

    it('refuses a non-numeric count at its line', () => {
      assert.equal(failure(seed.replace('CPU(s):                48', 'CPU(s):                many')).line, 4);
      assert.equal(failure(seed.replace('Socket(s):             2', 'Socket(s):             two')).line, 8);
    });

    it('refuses a NUMA node CPU list that is not a CPU list, at its line', () => {
      failure(seed.replace('NUMA node1 CPU(s):     24-47', 'NUMA node1 CPU(s):     24-47x'), 25, /NUMA node1 CPU\(s\)/);
    });

    // Its speed is measured in bench/parsers.bench.ts, against a linear baseline.
    it('refuses a huge line without a colon, at its line', () => {
      const error = failure(`Architecture: x86_64\n${'a '.repeat(500_000)}\n`);
      assert.equal(error.line, 2);
    });
  });
});

describe('summarizeLscpu', () => {
  it('names the model, the CPU split and each NUMA node', () => {
    const text = summarizeLscpu(parsed(epyc));
    assert.match(text, /^lscpu: x86_64, AMD EPYC 9534 64-Core Processor$/m);
    assert.match(text, /^CPUs: 256 \(2 socket\(s\) × 64 cores × 2 thread\(s\)\)$/m);
    assert.match(text, /^ {2}node 7: 112-127,240-255 \(32 CPUs\)$/m);
    assert.ok(!text.endsWith('\n'));
  });

  it('marks CPU-less nodes and leaves out an unknown split', () => {
    const text = summarizeLscpu(parsed(graceVm));
    assert.match(text, /^CPUs: 64$/m);
    assert.match(text, /^ {2}node 8: no CPUs$/m);
  });
});
