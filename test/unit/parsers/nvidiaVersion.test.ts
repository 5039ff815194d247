import * as assert from 'assert';
import { parseNvidiaVersion } from '../../../src/core/parsers/nvidiaVersion';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeNvidiaVersion } from '../../../src/cli/summary/nvidiaVersion';

const fixture = (name: string): string => readFixture('nvidia-version', name);
const { parsed, failure: failsAt } = checksFor(parseNvidiaVersion);

describe('parseNvidiaVersion', () => {
  it('reads the proprietary x86_64 module (440, Ubuntu 18.04)', () => {
    assert.deepStrictEqual(parsed(fixture('proprietary-440-x86_64-ubuntu1804.txt')), {
      driverVersion: '440.95.01',
      driverBranch: 440,
      openKernelModule: false,
      arch: 'x86_64',
      buildInfo: 'Thu May 28 07:03:08 UTC 2020',
      nvrmLine: 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  440.95.01  Thu May 28 07:03:08 UTC 2020',
      gccVersion: 'gcc version 7.5.0 (Ubuntu 7.5.0-3ubuntu1~18.04)',
    });
  });

  it('reads a two-part version from 2008 and keeps the double space inside the date', () => {
    const v = parsed(fixture('proprietary-177-x86_64-ubuntu-2008.txt'));
    assert.strictEqual(v.driverVersion, '177.80');
    assert.strictEqual(v.driverBranch, 177);
    assert.strictEqual(v.buildInfo, 'Wed Oct  1 14:43:46 PDT 2008');
    assert.strictEqual(v.gccVersion, 'gcc version 4.3.2 (Ubuntu 4.3.2-1ubuntu11)');
  });

  it('reads the open module on x86_64 with its trailing spaces', () => {
    const v = parsed(fixture('open-595-x86_64-endeavouros.txt'));
    assert.strictEqual(v.openKernelModule, true);
    assert.strictEqual(v.arch, 'x86_64');
    assert.strictEqual(v.driverVersion, '595.71.05');
    assert.strictEqual(v.buildInfo, 'Release Build  (root@)');
    assert.strictEqual(v.nvrmLine, 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  595.71.05  Release Build  (root@)');
    assert.strictEqual(v.gccVersion, 'gcc version 16.1.1 20260430 (GCC)');
  });

  it('reads the open module on aarch64 (DGX Spark)', () => {
    const v = parsed(fixture('open-580-aarch64-dgx-spark.txt'));
    assert.strictEqual(v.openKernelModule, true);
    assert.strictEqual(v.arch, 'aarch64');
    assert.strictEqual(v.driverVersion, '580.142');
    assert.strictEqual(v.driverBranch, 580);
    assert.strictEqual(v.buildInfo, 'Release Build  (buildbrain@mobile-u64-6932-d7000)  Tue Mar  4 03:38:52 UTC 2026');
  });

  it('accepts a file without the GCC line', () => {
    const line1 = fixture('open-580-aarch64-dgx-spark.txt').split('\n')[0];
    assert.strictEqual(parsed(`${line1}\n`).gccVersion, null);
  });

  describe('malformed input', () => {
    it('reports empty input', () => {
      failsAt('', 1, /empty input/);
    });

    it('reports a line cut before the version', () => {
      failsAt('NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  5', 1, /no driver version/);
    });

    it('reports an unknown description', () => {
      failsAt('NVRM version: NVIDIA Module for x86_64  580.00  Release\n', 1, /expected "NVIDIA UNIX <arch> Kernel Module"/);
    });

    it('reports a second line that is not GCC', () => {
      const line1 = fixture('proprietary-440-x86_64-ubuntu1804.txt').split('\n')[0];
      failsAt(`${line1}\nhello\n`, 2, /"GCC version: …" as the second line/);
    });

    it('reports a third line', () => {
      failsAt(`${fixture('proprietary-440-x86_64-ubuntu1804.txt')}extra\n`, 3, /at most two lines/);
    });

    it('reports the wrong command: ofed_info -s', () => {
      failsAt(readFixture('ofed', 'mlnx-ofed-4.0-connectx3.txt'), 1, /starting with "NVRM version:"/);
    });

    it('reports the wrong file: dmesg NVRM loading line', () => {
      failsAt(
        '[    5.826670] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  610.43.03  Release Build\n',
        1,
        /starting with "NVRM version:"/,
      );
    });
  });
});

describe('summarizeNvidiaVersion', () => {
  it('says open or proprietary', () => {
    assert.strictEqual(
      summarizeNvidiaVersion(parsed(fixture('open-580-aarch64-dgx-spark.txt'))),
      'NVIDIA driver 580.142 (open kernel module, aarch64)\n' +
        '  build: Release Build  (buildbrain@mobile-u64-6932-d7000)  Tue Mar  4 03:38:52 UTC 2026\n' +
        '  compiler: gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04.1)',
    );
    assert.match(summarizeNvidiaVersion(parsed(fixture('proprietary-440-x86_64-ubuntu1804.txt'))), /proprietary kernel module, x86_64/);
  });
});
