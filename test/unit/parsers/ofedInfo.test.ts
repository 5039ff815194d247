import * as assert from 'assert';
import { parseOfedInfo } from '../../../src/core/parsers/ofedInfo';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeOfedInfo } from '../../../src/cli/summary/ofedInfo';

const fixture = (name: string): string => readFixture('ofed', name);
const { parsed, failure: failsAt } = checksFor(parseOfedInfo);

describe('parseOfedInfo', () => {
  it('reads MLNX_OFED 23.07', () => {
    assert.deepStrictEqual(parsed(fixture('mlnx-ofed-23.07-connectx5-daocloud.txt')), {
      raw: 'MLNX_OFED_LINUX-23.07-0.5.1.2:',
      distribution: 'MLNX_OFED_LINUX',
      version: '23.07-0.5.1.2',
      release: '23.07',
      flavor: 'mlnx-ofed',
    });
  });

  it('reads the DOCA-Host OFED (OFED-internal) on BlueField-3', () => {
    assert.deepStrictEqual(parsed(fixture('doca-ofed-internal-23.07-bluefield3.txt')), {
      raw: 'OFED-internal-23.07-0.5.0:',
      distribution: 'OFED-internal',
      version: '23.07-0.5.0',
      release: '23.07',
      flavor: 'doca-ofed',
    });
  });

  it('reads a line without the trailing colon', () => {
    const v = parsed(fixture('mlnx-ofed-24.10-no-trailing-colon.txt'));
    assert.strictEqual(v.raw, 'MLNX_OFED_LINUX-24.10-1.1.4.0');
    assert.strictEqual(v.version, '24.10-1.1.4.0');
    assert.strictEqual(v.flavor, 'mlnx-ofed');
  });

  it('reads old and three-part versions', () => {
    assert.strictEqual(parsed(fixture('mlnx-ofed-4.0-connectx3.txt')).version, '4.0-2.0.0.1');
    assert.strictEqual(parsed(fixture('mlnx-ofed-4.0-connectx3.txt')).release, '4.0');
    assert.strictEqual(parsed(fixture('mlnx-ofed-5.4-3.6.8-three-part-build.txt')).version, '5.4-3.6.8');
  });

  it('calls an unknown distribution "other" rather than failing', () => {
    assert.strictEqual(parsed('SOME_OFED-1.2-3:\n').flavor, 'other');
  });

  describe('malformed input', () => {
    it('reports empty input', () => {
      failsAt('\n\n', 1, /empty input/);
    });

    it('reports "command not found"', () => {
      failsAt('bash: ofed_info: command not found\n', 1, /expected "<DISTRIBUTION>-<version>:"/);
    });

    it('reports the full ofed_info listing at its second line', () => {
      failsAt('MLNX_OFED_LINUX-4.5-1.0.1.0 (OFED-4.5-1.0.1):\n\n\nar_mgr:\n', 4, /single line.*"ar_mgr:"/);
    });

    it('reports a line cut before the version', () => {
      failsAt('MLNX_OFED_LINUX-\n', 1, /found "MLNX_OFED_LINUX-"/);
    });

    it('reports a version with garbage in it', () => {
      failsAt('MLNX_OFED_LINUX-23.07 0.5:\n', 1, /expected "<DISTRIBUTION>-<version>:"/);
    });

    it('reports the wrong file: /proc/driver/nvidia/version', () => {
      failsAt(readFixture('nvidia-version', 'open-580-aarch64-dgx-spark.txt'), 2, /single line/);
    });
  });
});

describe('summarizeOfedInfo', () => {
  it('names the OFED flavour', () => {
    const text = summarizeOfedInfo(parsed(fixture('doca-ofed-internal-23.07-bluefield3.txt')));
    assert.strictEqual(text, 'OFED: OFED-internal 23.07-0.5.0 (DOCA-Host OFED, release 23.07)\n  as printed: OFED-internal-23.07-0.5.0:');
  });
});
