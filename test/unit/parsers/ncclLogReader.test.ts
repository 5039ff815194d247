// The streaming reader: chunks of any size give the same records as the whole text, lines are
// numbered as an editor numbers them, a cut last line is marked, and memory stays bounded.
import * as assert from 'node:assert/strict';
import { MAX_LINE_CHARS, NcclLogLine, NcclLogReader, readNcclLog } from '../../../src/core/parsers/ncclLog';
import { readFixture } from '../../support/parsing';

function readInChunks(text: string, size: number): { lines: NcclLogLine[]; count: number } {
  const lines: NcclLogLine[] = [];
  const reader = new NcclLogReader((l) => lines.push(l));
  for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
  reader.end();
  return { lines, count: reader.lines };
}

const SOCKET = readFixture('nccl-log', 'socket-nccl2.5.6-mpirun-tag-output-no-ib-device-cut.txt');
const GB10 = readFixture('nccl-log', 'roce-gb10-grep-gdr-disabled-for-hca.txt');

describe('NcclLogReader', () => {
  it('gives the same records whatever the chunk size, down to one character', () => {
    const whole = readNcclLog(SOCKET);
    for (const size of [1, 2, 7, 64, 4096]) {
      const chunked = readInChunks(SOCKET, size);
      assert.deepEqual(chunked.lines, whole.lines, `chunks of ${size}`);
      assert.equal(chunked.count, whole.lineCount);
    }
  });

  it('numbers lines as an editor does: LF, CRLF and a lone CR each end a line, a CR+LF split over two chunks counts once', () => {
    const lf = GB10.trimEnd().split('\n');
    const mixed = `${lf[0]}\r\n\r${lf[1]}\n`;
    const whole = readNcclLog(mixed);
    assert.deepEqual(
      whole.lines.map((l) => l.line),
      [1, 3],
    );
    assert.equal(whole.lineCount, 3);
    const split = mixed.indexOf('\n');
    const lines: NcclLogLine[] = [];
    const reader = new NcclLogReader((l) => lines.push(l));
    reader.push(mixed.slice(0, split));
    reader.push(mixed.slice(split));
    reader.end();
    assert.deepEqual(
      lines.map((l) => l.line),
      [1, 3],
    );
    assert.equal(lines[0].message.kind, 'hca-gdr');
  });

  it('marks the last message cut when the file ends inside its line (fixture ending in "… GPU Direct RD")', () => {
    const text = readFixture('nccl-log', 'ib-no-module-2-containers-part1-start-cut.txt');
    const { lines } = readNcclLog(text);
    const last = lines[lines.length - 1];
    assert.equal(last.cut, true);
    assert.equal(last.message.kind, 'info');
    assert.ok(lines.slice(0, -1).every((l) => !l.cut));
  });

  it('reads a line longer than MAX_LINE_CHARS up to there, marks it cut, and carries on with the next line', () => {
    const header = 'gpu01:10:11 [0] NCCL INFO ';
    const long = `${header}${'x'.repeat(MAX_LINE_CHARS * 3)}\n${GB10}`;
    const lines: NcclLogLine[] = [];
    const reader = new NcclLogReader((l) => lines.push(l));
    for (let i = 0; i < long.length; i += 1000) reader.push(long.slice(i, i + 1000));
    reader.end();
    assert.equal(lines.length, 3);
    assert.deepEqual([lines[0].line, lines[0].cut], [1, true]);
    assert.deepEqual(
      lines.slice(1).map((l) => [l.line, l.message.kind]),
      [
        [2, 'hca-gdr'],
        [3, 'hca-gdr'],
      ],
    );
  });

  it("counts other programs' lines without reporting them (nccl-tests output in fixture ib-roce-gdrdma-dmabuf-shared-…)", () => {
    const text = readFixture('nccl-log', 'ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5.txt');
    const { lines, lineCount } = readNcclLog(text);
    assert.equal(lineCount, 87);
    assert.equal(new Set(lines.map((l) => l.line)).size, 74);
    assert.ok(lines.every((l) => !text.split('\n')[l.line - 1].startsWith('#')));
  });
});
