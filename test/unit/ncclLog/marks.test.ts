// The Problems marks of real NCCL logs: located on NCCL's own text (after any launcher prefix), worded
// as the editor shows them, capped, and the reading stopped at a line end by the live limit.
import * as assert from 'node:assert/strict';
import { analyzeNcclLogChunks, analyzeNcclLogText, NcclLogAnalyzer } from '../../../src/core/ncclLog/analysis';
import { MAX_RELATED } from '../../../src/core/ncclLog/markCauses';
import { MAX_MARKS, rewordSocketMarks } from '../../../src/core/ncclLog/marks';
import { readFixture } from '../../support/parsing';
import { joinedRegExp } from '../../support/joinedRegExp';

const log = (name: string) => readFixture('nccl-log', name);
const NO_MODULE = 'ib-no-module-2-containers-part1-start-cut.txt';

describe('NCCL log marks for the Problems panel', () => {
  it("marks \"GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\" on its line, from NCCL's header to the end", () => {
    const text = log(NO_MODULE);
    const { marks } = analyzeNcclLogText(text, NO_MODULE);
    const hca = marks.filter((m) => m.kind === 'hca-gdr-disabled');
    assert.ok(hca.length >= 1);
    assert.deepEqual([hca[0].line, hca[0].start, hca[0].severity], [6, 0, 'warning']);
    assert.equal(hca[0].message, 'GPU Direct RDMA disabled for HCA mlx5_0 (no module): no peer-memory module (nvidia-peermem) was loaded');
    assert.equal(hca[0].end, text.split('\n')[5].trimEnd().length);
  });

  it("marks each NCCL WARN behind mpirun's prefix, starting where NCCL's text starts (aws/aws-ofi-nccl#24)", () => {
    const name = 'efa-ofi-plugin-nccl2.4-mpirun-ring-warn-cut.txt';
    const line = log(name).split('\n')[13];
    const warn = analyzeNcclLogText(log(name), name).marks.filter((m) => m.kind === 'warn');
    assert.equal(warn[0].line, 14);
    assert.equal(line.slice(warn[0].start, warn[0].start + 17), 'ip-172-32-45-165:');
    assert.match(warn[0].message, /^NCCL WARN: NET\/OFI Couldn't open AV\. RC: -22/);
  });

  it('marks "Using network Socket" once, its other lines related, and says it again where RDMA devices are known to exist', () => {
    const name = 'socket-fallback-no-libibverbs-1-host-cut.txt';
    const socket = analyzeNcclLogText(log(name), name).marks.filter((m) => m.kind === 'socket');
    assert.equal(socket.length, 1);
    assert.equal(socket[0].line, 1);
    assert.equal(socket[0].related[0].line, 4, 'the next rank\'s "Using network Socket" is related information');
    assert.match(socket[0].message, /^Using network Socket: NCCL sends over TCP sockets/);
    // No HCA line of NET/Socket ("GPU Direct RDMA Disabled for HCA 0 'enp1s0f0'") is marked: sockets never do GDR.
    assert.equal(analyzeNcclLogText(log(name), name).marks.filter((m) => m.kind === 'hca-gdr-disabled').length, 0);
    const known = rewordSocketMarks(socket, ['mlx5_0:1 on gpu01']);
    assert.match(
      known[0].message,
      joinedRegExp([
        /^Using network Socket while InfiniBand devices exist \(mlx5_0:1 on gpu01\)/,
        /: NCCL sends over TCP, without RDMA or GPU Direct RDMA \(and \d+ more lines: related information\)$/,
      ]),
    );
  });

  it("one entry, an error as the summary's verdict, for connections without /GDRDMA and no line saying why: each GPU's first such line", () => {
    const name = 'ibext-plugin-no-gdrdma-8-gpus-cut.txt';
    const a = analyzeNcclLogText(log(name), name);
    assert.equal(a.summary?.verdict, 'no-gdr');
    const marks = a.marks.filter((m) => m.kind === 'net-without-gdrdma');
    assert.equal(marks.length, 1);
    assert.equal(marks[0].severity, 'error');
    assert.equal(marks[0].line, 1);
    assert.equal(
      marks[0].message,
      'Network connections without GDRDMA: 3 of 3 of GPU 6 on hostname-test are staged through host memory (this is the first) (and 6 more lines: related information)',
    );
    assert.equal(marks[0].related.length, 6, 'the first such line of each of the 6 other GPUs');
    assert.match(marks[0].related[0].message, /^Network connections without GDRDMA: \d+ of \d+ of GPU \d+ on hostname-test/);
  });

  it('marks the GPU/HCA pairs beyond the distance threshold once, the other pairs related, and not NCCL_NET_GDR_LEVEL=PHB', () => {
    const name = 'pair-gdr-distance-gdr-level-phb-cut.txt';
    const marks = analyzeNcclLogText(log(name), name).marks;
    const pair = marks.filter((m) => m.kind === 'pair-gdr-disabled');
    assert.equal(pair.length, 1);
    assert.match(
      pair[0].message,
      /^GPU Direct RDMA disabled for GPU 18000 \/ HCA 0: path distance 5 is beyond the threshold 4 \(NCCL_NET_GDR_LEVEL\) \(and 4 more lines/,
    );
    assert.deepEqual(
      pair[0].related.map((r) => r.line),
      [5, 8, 9, 13],
    );
    assert.ok(!marks.some((m) => m.kind === 'env-gdr-off'), 'NCCL_NET_GDR_LEVEL=PHB does not turn GDR off');
  });

  it('the HCA "no module" cause carries the connections it left without /GDRDMA as related lines, an error with the no-gdr verdict (NVIDIA/nccl#899)', () => {
    const analyzer = new NcclLogAnalyzer('both.log');
    for (const part of [NO_MODULE, 'ib-no-module-2-containers-part2-channels-cut.txt']) analyzer.push(`${log(part)}\n`);
    const a = analyzer.end();
    assert.equal(a.summary?.verdict, 'no-gdr');
    assert.deepEqual(
      a.marks.map((m) => [m.kind, m.severity]),
      [['hca-gdr-disabled', 'error']],
    );
    assert.ok(a.marks[0].related.some((r) => r.message.startsWith('Network connections without GDRDMA')));
  });

  it('keeps MAX_MARKS lines and counts the rest; one entry holds MAX_RELATED of them', () => {
    // A 1,024-rank job repeats each HCA line per rank: the same real log read many times.
    const analyzer = new NcclLogAnalyzer('many.log');
    const text = log(NO_MODULE);
    for (let i = 0; i < MAX_MARKS + 10; i++) analyzer.push(text.endsWith('\n') ? text : `${text}\n`);
    const a = analyzer.end();
    assert.equal(a.marks.length, 1);
    assert.equal(a.marks[0].related.length, MAX_RELATED);
    assert.equal(a.marks[0].relatedDropped, MAX_MARKS - 1 - MAX_RELATED);
    assert.ok(a.marksDropped > 0);
  });

  it('stops at the end of the line that reaches the limit, and says it stopped', async () => {
    const name = 'roce-plugin-pxn-gdrdma-shared-cumem-nccl2.26.5.txt';
    const text = log(name);
    const limit = text.indexOf('\n', 4000) - 3;
    const a = await analyzeNcclLogChunks([text.slice(0, 1000), text.slice(1000)], name, { limitChars: limit });
    assert.ok(a);
    assert.equal(a.complete, false);
    // The limit falls 3 characters before a line's end: that line is left out whole.
    assert.equal(a.readChars, text.lastIndexOf('\n', limit - 1) + 1);
    assert.equal(a.lines, text.slice(0, a.readChars).split('\n').length - 1);
    // Said in Problems on line 1 (VS Code shows no lens on a log too large to colour).
    assert.deepEqual(a.marks[0], {
      kind: 'read-limit',
      severity: 'info',
      line: 1,
      start: 0,
      end: 0,
      message: `Read the first 0.0 MB only (${a.lines} lines): nothing past line ${a.lines} is marked; Analyze NCCL Log reads the whole file`,
      related: [],
      relatedDropped: 0,
    });
    const whole = analyzeNcclLogText(text, name);
    assert.equal(whole.complete, true);
    assert.ok(!whole.marks.some((m) => m.kind === 'read-limit'));
    assert.ok(whole.summary && a.summary && a.summary.netConnections.total < whole.summary.netConnections.total);
  });

  it('gives up without a result when cancelled between chunks', async () => {
    const text = log(NO_MODULE);
    assert.equal(await analyzeNcclLogChunks([text.slice(0, 100), text.slice(100)], NO_MODULE, { cancelled: () => true }), null);
  });
});
