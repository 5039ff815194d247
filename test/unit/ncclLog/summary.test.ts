// The job summary: verdict rules, reasons in words, findings, and memory that does not grow with the
// log. Logs are real fixtures; where a test needs a line no fixture has, it is built from NCCL's
// format string and says so.
import * as assert from 'node:assert/strict';
import { addNcclLogText, NcclLogSummarizer, summarizeNcclLog } from '../../../src/core/ncclLog';
import { verdict } from '../../../src/core/ncclLog/buildSummary';
import { MAX_REASONS_PER_HOST } from '../../../src/core/ncclLog/hostState';
import { envReason } from '../../../src/core/ncclLog/reasons';
import { MAX_WARNINGS } from '../../../src/core/ncclLog/summarize';
import { NcclLogReader } from '../../../src/core/parsers/ncclLog';
import { expectError, expectOk, readFixture } from '../../support/parsing';

function summaryOf(...fixtures: string[]) {
  const summarizer = new NcclLogSummarizer();
  for (const f of fixtures) addNcclLogText(summarizer, readFixture('nccl-log', f), f);
  return summarizer.summary();
}

describe('NCCL log summary', () => {
  it('decides the verdict from the network connection lines', () => {
    const rows: [number, number, number, string][] = [
      // total, gdrdma, connection lines of any transport, verdict
      [0, 0, 0, 'unknown'],
      [0, 0, 12, 'no-net'],
      [6, 6, 6, 'gdr'],
      [13, 0, 13, 'no-gdr'],
      [10, 4, 20, 'mixed'],
    ];
    for (const [total, gdrdma, lines, expected] of rows)
      assert.equal(verdict({ total, gdrdma }, lines), expected, `${gdrdma}/${total} of ${lines}`);
  });

  it('is mixed, naming the hosts without GDRDMA, when one job log has both', () => {
    const s = summaryOf('efa-libfabric-torchrun-rank-prefix-gdrdma-cumem-cut.txt', 'ibext-plugin-no-gdrdma-8-gpus-cut.txt');
    assert.deepEqual([s.verdict, s.netConnections], ['mixed', { total: 17, gdrdma: 4 }]);
    const f = s.findings.find((x) => x.id === 'nccl-log.partial-gdrdma');
    assert.ok(f);
    assert.equal(f.severity, 'warning');
    assert.match(f.detail, /on hostname-test\)/);
  });

  it('says no-net for a log whose connections all stay inside a host (NVIDIA/nccl#302, cut before the network)', () => {
    const s = summaryOf('ib-roce-nccl2.5.6-rank-prefix-ring-busid-cut.txt');
    assert.equal(s.verdict, 'no-net');
    assert.deepEqual(
      s.hcas.map((h) => h.name),
      ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_4'],
    );
  });

  it('reports the Socket fallback of NCCL 2.5, which never says "Using network" (NVIDIA/nccl#300)', () => {
    const s = summaryOf('socket-nccl2.5.6-mpirun-tag-output-no-ib-device-cut.txt');
    assert.equal(s.network, 'Socket');
    const f = s.findings.find((x) => x.id === 'nccl-log.socket');
    assert.ok(f);
    assert.match(f.evidence[0], /:3: 5873af64cf59:10158:10560 \[0\] NCCL INFO NET\/IB : No device found\.$/);
  });

  it('names path classes by the NCCL version the log printed', () => {
    // Built from "NCCL version %s" (src/init.cc) and "GPU Direct RDMA Disabled for GPU %lx / HCA %d (distance %d > %d)"
    // (src/graph/paths.cc v2.16.5-1).
    const text = 'NCCL version 2.16.5+cuda11.8\nn1:10:11 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 81000 / HCA 0 (distance 7 > 4)\n';
    const s = expectOk(summarizeNcclLog(text));
    assert.equal(
      s.hosts[0].gdrOffReasons[0].reason,
      'GPU 81000 / HCA 0: path distance 7 (SYS) is beyond the GPU Direct RDMA threshold 4 (PXB) (NCCL_NET_GDR_LEVEL)',
    );
    const without = expectOk(summarizeNcclLog(text.split('\n').slice(1).join('\n')));
    assert.match(without.hosts[0].gdrOffReasons[0].reason, /path distance 7 is beyond the GPU Direct RDMA threshold 4 /);
  });

  it('explains the settings that turn GPU Direct RDMA off, and only those', () => {
    assert.match(envReason('NCCL_NET_GDR_LEVEL', '0') ?? '', /never used/);
    assert.match(envReason('NCCL_NET_GDR_LEVEL', 'LOC') ?? '', /never used/);
    assert.match(envReason('NCCL_IB_DISABLE', '1') ?? '', /falls back to sockets/);
    assert.match(envReason('NCCL_NET_GDR_READ', '0') ?? '', /sends/);
    assert.match(envReason('NCCL_DMABUF_ENABLE', '0') ?? '', /DMA-BUF is not used/);
    assert.equal(envReason('NCCL_NET_GDR_LEVEL', 'SYS'), null);
    assert.equal(envReason('NCCL_IB_DISABLE', '0'), null);
  });

  it('refuses a text without one NCCL line, at line 1', () => {
    expectError(summarizeNcclLog('# nThread 1 nGpus 1\nsome other output\n'), 1, /no NCCL log lines/);
  });

  it('keeps what it gathers bounded: distinct reasons and WARN texts up to their limits, counts beyond', () => {
    // Lines formatted from NCCL's WARN and per-pair formats, with many distinct values.
    const summarizer = new NcclLogSummarizer();
    const reader = new NcclLogReader((l, t) => summarizer.add(l, t, 'big.log'));
    const n = 5000;
    for (let i = 0; i < n; i++) {
      reader.push(`gpu01:7:8 [0] transport/net.cc:${i} NCCL WARN failure ${i}\n`);
      reader.push(`gpu01:7:8 [0] NCCL INFO GPU Direct RDMA Disabled for GPU ${i.toString(16)} / HCA 0 (distance 7 > 4)\n`);
      reader.push('gpu01:7:8 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n');
    }
    reader.end();
    const s = summarizer.summary();
    assert.equal(s.warnings.length, MAX_WARNINGS);
    assert.equal(s.hosts[0].gdrOffReasons.length, MAX_REASONS_PER_HOST);
    assert.deepEqual(s.netConnections, { total: n, gdrdma: 0 });
    const warn = s.findings.find((f) => f.id === 'nccl-log.warn');
    assert.equal(warn?.title, `NCCL printed ${n} WARN lines`);
    assert.match(warn?.detail ?? '', /^50\+ distinct: /);
    assert.ok(JSON.stringify(s).length < 64 * 1024, `summary of ${3 * n} lines is ${JSON.stringify(s).length} bytes`);
  });
});
