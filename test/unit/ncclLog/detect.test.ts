// Which documents the editor gives the nccl-log language, from their first lines: every real NCCL log
// fixture, and none of the other real outputs of test/fixtures (topo matrices, ibv_devinfo, lsmod…).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DETECT_LINE_PREFIX_CHARS, DETECT_WITHIN_CHARS, DETECT_WITHIN_LINES, ncclLogNearTop } from '../../../src/core/ncclLog/detect';
import { readNcclLog } from '../../../src/core/parsers/ncclLog';
import { FIXTURES, fixtureFiles } from '../../support/paths';

const lines = (file: string) => fs.readFileSync(file, 'utf8').split(/\r\n|\r|\n/);

describe('NCCL log detection from the first lines', () => {
  it('recognises every real NCCL log fixture, but not a torchrun output whose only NCCL line is its version', () => {
    const missed = fixtureFiles('nccl-log').filter((f) => !ncclLogNearTop(lines(f)));
    // NCCL_DEBUG unset: NCCL printed "[rank0]:NCCL version 2.27.5+cuda12.9" and nothing else; the file is torchtitan's output.
    assert.deepEqual(
      missed.map((f) => path.basename(f)),
      ['torchrun-rank-prefix-tee-version-only-nccl2.27.5.txt'],
    );
    assert.equal(readNcclLog(fs.readFileSync(missed[0], 'utf8')).lines.length, 1);
  });

  it('recognises none of the other real outputs', () => {
    const others = fs
      .readdirSync(FIXTURES, { withFileTypes: true })
      // nccl-tests outputs hold NCCL's own lines of the same run (NCCL_DEBUG=INFO): logs too (test/unit/ncclTests).
      .filter((d) => d.isDirectory() && d.name !== 'nccl-log' && d.name !== 'nccl-tests')
      .flatMap((d) => fixtureFiles(d.name));
    assert.ok(others.length > 50, `${others.length} other fixtures`);
    const taken = others.filter((f) => ncclLogNearTop(lines(f)));
    assert.deepEqual(
      taken.map((f) => path.relative(FIXTURES, f)),
      [],
    );
  });

  it('needs a full header, or three headerless NCCL lines: a lone "NCCL version" in PyTorch\'s error is not a log', () => {
    // PyTorch's message as quoted in the parser's tests (ncclLogPrefix.ts: ", NCCL version 2.18.1").
    assert.equal(
      ncclLogNearTop([
        'torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1275, unhandled system error, NCCL version 2.18.1',
      ]),
      false,
    );
    assert.equal(ncclLogNearTop(['NCCL version 2.18.1+cuda12.1']), false);
    const stripped = lines(path.join(FIXTURES, 'nccl-log', 'roce-gb10-gdr0-nccl2.30.7-header-stripped-by-author.txt'));
    assert.equal(ncclLogNearTop(stripped), true);
  });

  it('looks no further than DETECT_WITHIN_LINES lines', () => {
    const log = lines(path.join(FIXTURES, 'nccl-log', 'ib-no-module-2-containers-part1-start-cut.txt'));
    const padding = Array.from({ length: DETECT_WITHIN_LINES }, (_, i) => `step ${i}: loss 0.1`);
    assert.equal(ncclLogNearTop([...padding.slice(0, -5), ...log]), true);
    assert.equal(ncclLogNearTop([...padding, ...log]), false);
  });

  it('looks at no more than DETECT_WITHIN_CHARS characters in all, and at each line up to DETECT_LINE_PREFIX_CHARS', () => {
    const log = lines(path.join(FIXTURES, 'nccl-log', 'ib-no-module-2-containers-part1-start-cut.txt'));
    const long = 'x'.repeat(8 * 1024 * 1024);
    const fill = (chars: number) => Array.from({ length: Math.ceil(chars / DETECT_LINE_PREFIX_CHARS) }, () => long);
    // An 8 MB line is looked at up to its first DETECT_LINE_PREFIX_CHARS characters.
    assert.equal(ncclLogNearTop([...fill(DETECT_WITHIN_CHARS / 2), ...log]), true);
    assert.equal(ncclLogNearTop([...fill(DETECT_WITHIN_CHARS + DETECT_LINE_PREFIX_CHARS), ...log]), false);
    // A header past the prefix of its line is not looked at.
    assert.equal(ncclLogNearTop([`${'x'.repeat(DETECT_LINE_PREFIX_CHARS)} ${log.find((l) => l.includes('NCCL INFO'))}`]), false);
  });
});
