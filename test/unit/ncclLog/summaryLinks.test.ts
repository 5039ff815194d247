// Analyze NCCL Log's summary quotes the log's lines as `job.log:12: …`: each becomes a link to that line.
import * as assert from 'node:assert/strict';
import { summarizeNcclLog } from '../../../src/core/ncclLog';
import { summaryLogRefs } from '../../../src/core/ncclLog/summaryLinks';
import { summarizeNcclLogText } from '../../../src/core/ncclLog/summaryText';
import { expectOk, readFixture } from '../../support/parsing';

describe("links from Analyze NCCL Log's summary to the log's lines", () => {
  it('finds every quoted line of a real summary, each pointing at the line it quotes', () => {
    const name = 'job-rank0.log';
    const log = readFixture('nccl-log', 'ib-no-module-2-containers-part2-channels-cut.txt');
    const logLines = log.split(/\r\n|\r|\n/);
    const text = summarizeNcclLogText(expectOk(summarizeNcclLog(log, name)));
    const refs = text.split('\n').flatMap((line) => summaryLogRefs(line, name).map((r) => ({ ...r, text: line })));
    assert.ok(refs.length >= 4, `${refs.length} references`);
    for (const r of refs) {
      assert.equal(r.text.slice(r.start, r.end), `${name}:${r.line}`);
      // The quote after the reference is the start of that line of the log (as NCCL printed it, after any prefix).
      const quoted = r.text.slice(r.end + 2).replace(/…$/, '');
      assert.ok(logLines[r.line - 1].includes(quoted.slice(0, 60)), `${r.line}: ${quoted}`);
    }
  });

  it('leaves alone another file of the same ending and a name without a line number', () => {
    assert.deepEqual(summaryLogRefs('  > other-job.log:3: x', 'job.log'), []);
    assert.deepEqual(summaryLogRefs('read job.log: 12 of 30 lines', 'job.log'), []);
    assert.deepEqual(summaryLogRefs('> job.log:7: a (job.log:9:)', 'job.log'), [
      { start: 2, end: 11, line: 7 },
      { start: 16, end: 25, line: 9 },
    ]);
  });
});
