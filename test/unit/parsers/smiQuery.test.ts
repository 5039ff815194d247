import { strict as assert } from 'assert';
import { driverMajor, mib, parseSmiQuery } from '../../../src/core/parsers/smiQuery';
import { checksFor, firstLines, readFixture } from '../../support/parsing';
import { readIndentTree } from '../../../src/core/parsers/nvidiaSmiCommon';
import { summarizeSmiQuery } from '../../../src/cli/summary/smiQuery';

const { parsed, failure: errorOf } = checksFor(parseSmiQuery);

const A100 = 'a100-sxm4-80gb-x4-driver555.txt';
const H100 = 'h100-80gb-hbm3-x8-driver565.txt';
const RTX3090 = 'geforce-rtx3090-x2-bar1-256mib-driver560.txt';
const RTX4090 = 'geforce-rtx4090-windows-wddm-driver610-kmd.txt';
const GH200 = 'gh200-480gb-vm-c2c-mode-enabled-driver550.txt';

describe('parseSmiQuery', () => {
  describe('real fixtures', () => {
    it('reads a GH200 passed through to a VM: GPU C2C Mode Enabled, ATS addressing, BAR1 N/A', () => {
      const value = parsed(readFixture('smi-q', GH200));
      assert.equal(value.attachedGpus, 1);
      const gpu = value.gpus[0];
      assert.deepEqual(
        [gpu.productName, gpu.productArchitecture, gpu.c2cMode, gpu.addressingMode, gpu.virtualizationMode],
        ['NVIDIA GH200 480GB', 'Hopper', 'Enabled', 'ATS', 'Pass-Through'],
      );
      assert.equal(gpu.bar1Memory.total, 'N/A');
    });

    it('reads the processes on a GPU (an MPS server on a T4), and none where it prints "Processes : None"', () => {
      assert.deepEqual(parsed(readFixture('smi-q', 't4-1gpu-vm-passthrough-bar1-256mib-driver530.txt')).gpus[0].processes, [
        { pid: 25384, type: 'C', name: 'nvidia-cuda-mps-server', usedMemory: '26 MiB' },
      ]);
      assert.deepEqual(
        parsed(readFixture('smi-q', A100)).gpus.map((g) => g.processes),
        [[], [], [], []],
      );
    });

    it('GPUs without a Grace CPU print GPU C2C Mode N/A', () => {
      assert.equal(parsed(readFixture('smi-q', A100)).gpus[0].c2cMode, 'N/A');
      assert.equal(parsed(readFixture('smi-q', RTX4090)).gpus[0].c2cMode, 'N/A');
    });

    it('reads 4× A100-SXM4-80GB: header, BAR1 128 GiB, PCI link', () => {
      const value = parsed(readFixture('smi-q', A100));
      assert.equal(value.status, 'ok');
      assert.equal(value.driverVersion, '555.42.02');
      assert.equal(value.cudaVersion, '12.5');
      assert.equal(value.kmdVersion, undefined);
      assert.equal(value.attachedGpus, 4);
      assert.deepEqual(
        value.gpus.map((g) => g.busId),
        ['00000000:68:00.0', '00000000:9E:00.0', '00000000:C2:00.0', '00000000:D4:00.0'],
      );
      const gpu = value.gpus[0];
      assert.equal(gpu.line, 9);
      assert.equal(gpu.productName, 'NVIDIA A100-SXM4-80GB');
      assert.equal(gpu.productBrand, 'NVIDIA');
      assert.equal(gpu.productArchitecture, 'Ampere');
      assert.equal(gpu.persistenceMode, 'Enabled');
      assert.equal(gpu.addressingMode, 'None');
      assert.equal(gpu.virtualizationMode, 'None');
      assert.equal(gpu.migModeCurrent, 'Disabled');
      assert.deepEqual(gpu.fbMemory, { total: '81920 MiB', reserved: '763 MiB', used: '1 MiB', free: '81158 MiB' });
      assert.deepEqual(gpu.bar1Memory, { total: '131072 MiB', used: '1 MiB', free: '131071 MiB' });
      assert.deepEqual(gpu.pci, {
        busId: '00000000:68:00.0',
        linkGenerationCurrent: '4',
        linkGenerationMax: '4',
        linkWidthCurrent: '16x',
        linkWidthMax: '16x',
      });
    });

    it('reads 8× H100 80GB HBM3 (Gen5 x16)', () => {
      const value = parsed(readFixture('smi-q', H100));
      assert.equal(value.driverVersion, '565.57.01');
      assert.equal(value.cudaVersion, '12.7');
      assert.equal(value.attachedGpus, 8);
      assert.equal(value.gpus.length, 8);
      assert.equal(value.gpus[0].busId, '00000000:18:00.0');
      const last = value.gpus[7];
      assert.equal(last.busId, '00000000:DB:00.0');
      assert.equal(last.line, 1577);
      assert.equal(last.productName, 'NVIDIA H100 80GB HBM3');
      assert.equal(last.productArchitecture, 'Hopper');
      assert.deepEqual(last.fbMemory, { total: '81559 MiB', reserved: '454 MiB', used: '1 MiB', free: '81106 MiB' });
      assert.deepEqual(last.bar1Memory, { total: '131072 MiB', used: '1 MiB', free: '131071 MiB' });
      assert.equal(value.gpus[0].pci.linkGenerationCurrent, '5');
    });

    it('reads 2× RTX 3090 whose BAR1 is only 256 MiB (large BAR off)', () => {
      const value = parsed(readFixture('smi-q', RTX3090));
      assert.equal(value.driverVersion, '560.35.03');
      assert.deepEqual(
        value.gpus.map((g) => g.busId),
        ['00000000:41:00.0', '00000000:81:00.0'],
      );
      for (const gpu of value.gpus) {
        assert.equal(gpu.productBrand, 'GeForce');
        assert.equal(gpu.bar1Memory.total, '256 MiB');
        assert.equal(gpu.fbMemory.total, '24576 MiB');
        assert.equal(gpu.migModeCurrent, 'N/A');
      }
      assert.equal(value.gpus[0].pci.linkGenerationCurrent, '1');
      assert.equal(value.gpus[0].pci.linkGenerationMax, '4');
    });

    it('reads the Windows / driver 610 layout: deprecated Driver Version plus KMD Version', () => {
      const value = parsed(readFixture('smi-q', RTX4090));
      assert.equal(value.driverVersion, '610.60 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]');
      assert.equal(value.kmdVersion, '610.60');
      assert.equal(value.cudaVersion, '13.3 [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD Version instead]');
      assert.equal(value.attachedGpus, 1);
      const gpu = value.gpus[0];
      assert.equal(gpu.line, 11);
      assert.equal(gpu.productName, 'NVIDIA GeForce RTX 4090');
      assert.equal(gpu.productArchitecture, 'Ada Lovelace');
      assert.deepEqual(gpu.bar1Memory, { total: '32768 MiB', used: '32739 MiB', free: '29 MiB' });
      assert.equal(gpu.fbMemory.free, '22857 MiB');
    });
  });

  describe('cut-off output is a ParseError at the line where the GPU section ends', () => {
    const a100 = readFixture('smi-q', A100);

    it('cut inside FB Memory Usage (no Free line) → line 101', () => {
      errorOf(firstLines(a100, 101), 101, /"FB Memory Usage" of GPU 00000000:68:00\.0 lacks Free/);
    });

    it('cut right after the "BAR1 Memory Usage" header → line 103', () => {
      errorOf(firstLines(a100, 103), 103, /"BAR1 Memory Usage" of GPU 00000000:68:00\.0 lacks Total, Used/);
    });

    it('cut in the second GPU before its memory sections → line 260', () => {
      errorOf(firstLines(a100, 260), 260, /GPU 00000000:9E:00\.0 has no "FB Memory Usage" section/);
    });

    it('cut between GPU sections (1 of 4 present) → the last line', () => {
      errorOf(firstLines(a100, 225), 225, /1 of 4 GPU sections/);
    });

    it('a GPU section without its BAR1 block → the last line of that section', () => {
      // RTX 3090 GPU 0 spans lines 9-214; dropping the BAR1 block (lines 103-106) moves its end to 210.
      const lines = readFixture('smi-q', RTX3090).split('\n');
      lines.splice(102, 4);
      errorOf(lines.join('\n'), 210, /GPU 00000000:41:00\.0 has no "BAR1 Memory Usage" section/);
    });

    it('more GPU sections than "Attached GPUs" → the extra section', () => {
      const text = readFixture('smi-q', RTX3090).replace(/(Attached GPUs\s+: )2/, '$11');
      errorOf(text, 216, /more GPU sections/);
    });
  });

  describe('malformed input gives a located ParseError', () => {
    it('empty input → line 1', () => {
      assert.equal(errorOf('').line, 1);
      assert.equal(errorOf('\n\n').line, 1);
    });

    it('garbage text → line 1', () => {
      errorOf('hello world\n', 1, /NVSMI LOG/);
    });

    it("the wrong command's output (--query-gpu CSV) → line 1", () => {
      assert.equal(errorOf(readFixture('gpus', 'geforce-rtx5060ti-x2-csv-header-crlf.txt')).line, 1);
    });

    it('banner cut off (output starts at Timestamp) → line 2', () => {
      const lines = readFixture('smi-q', RTX3090).split('\n');
      assert.equal(errorOf(lines.slice(2).join('\n')).line, 2);
    });

    it('cut before "Attached GPUs" → the last line', () => {
      errorOf(firstLines(readFixture('smi-q', A100), 6), 6, /Attached GPUs/);
    });

    it('"Attached GPUs" that is not a number → its line', () => {
      const text = readFixture('smi-q', A100).replace(/(Attached GPUs\s+: )4/, '$1four');
      assert.equal(errorOf(text).line, 8);
    });

    it('binary input → ParseError', () => {
      assert.equal(parseSmiQuery('\n==============NVSMI LOG==============\n\u0000').ok, false);
    });
  });

  it("nvidia-smi's own error is a typed result", () => {
    const value = parsed(readFixture('gpus', 'driver-not-loaded-couldnt-communicate.txt'));
    assert.equal(value.status, 'driver-unreachable');
    assert.equal(value.gpus.length, 0);
  });

  describe('readIndentTree', () => {
    it('splits at the first ": " so values keep their colons', () => {
      const [timestamp] = readIndentTree(['Timestamp                                 : Thu Nov 14 10:45:47 2024']);
      assert.equal(timestamp.key, 'Timestamp');
      assert.equal(timestamp.value, 'Thu Nov 14 10:45:47 2024');
    });

    it('reads a key that fills its padding up to the colon, and nests by indentation', () => {
      const lines = readFixture('smi-q', RTX4090).split('\n');
      const roots = readIndentTree(lines);
      const gpu = roots.find((n) => n.key === 'GPU 00000000:01:00.0');
      const temperature = gpu?.children.find((n) => n.key === 'Temperature');
      const spec = temperature?.children.find((n) => n.key === 'Memory Max Operating T.Limit Temp Specification');
      assert.equal(spec?.value, 'N/A');
      assert.equal(spec?.line, 196);
      assert.equal(gpu?.value, undefined);
    });
  });

  describe('numeric helpers', () => {
    it('mib reads sizes and refuses N/A', () => {
      assert.equal(mib('81920 MiB'), 81920);
      assert.equal(mib('256 MiB'), 256);
      assert.equal(mib('2 GiB'), 2048);
      assert.equal(mib('N/A'), undefined);
      assert.equal(mib(undefined), undefined);
    });

    it('driverMajor reads the branch, also from the deprecated form', () => {
      assert.equal(driverMajor('535.129.03'), 535);
      assert.equal(driverMajor('610.60 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]'), 610);
      assert.equal(driverMajor('N/A'), undefined);
    });
  });

  describe('summarizeSmiQuery', () => {
    it('notes a BAR1 smaller than the GPU memory', () => {
      const text = summarizeSmiQuery(parsed(readFixture('smi-q', RTX3090)));
      assert.match(text, /^Driver 560\.35\.03, CUDA 12\.6, 2 GPU\(s\) attached/);
      assert.match(text, /00000000:41:00\.0 {2}NVIDIA GeForce RTX 3090 \(Ampere\)/);
      assert.match(text, /note: BAR1 \(256 MiB\) is smaller than FB memory \(24576 MiB\)/);
      assert.ok(!text.endsWith('\n'));
    });

    it('prefers the KMD version and has no BAR1 note when BAR1 covers the memory', () => {
      const text = summarizeSmiQuery(parsed(readFixture('smi-q', RTX4090)));
      assert.match(text, /^Driver 610\.60, CUDA 13\.3/);
      assert.doesNotMatch(text, /note: BAR1/);
      assert.match(text, /PCIe: gen 4\/4, width 16x\/16x/);
    });
  });
});
