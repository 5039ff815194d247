// The summary of a hostile or broken log stays bounded (issue 23 item 5: a 256 MB log naming 6.4 M distinct
// hosts ran the CLI out of heap): past SUMMARY_LIMITS a new host, GPU, HCA, rank or version is not kept, the
// summary says how many lines named one more, and every connection still counts in the verdict.
// The lines are generated here, in the shapes NCCL prints (src/transport/net.cc, src/init.cc, src/graph/topo.cc).
import * as assert from 'node:assert/strict';
import { NcclLogReader } from '../../../src/core/parsers/ncclLog';
import { SUMMARY_LIMITS, SummaryLimits } from '../../../src/core/ncclLog/budget';
import { NcclLogSummarizer } from '../../../src/core/ncclLog/summarize';
import type { NcclLogSummary } from '../../../src/core/ncclLog/types';

/** Feeds generated lines a thousand at a time, as the CLI streams a file. */
function summarizeLines(count: number, line: (i: number) => string, limits?: SummaryLimits): NcclLogSummary {
  const summarizer = new NcclLogSummarizer(limits);
  const reader = new NcclLogReader((l, text) => summarizer.add(l, text, 'generated.log'));
  for (let i = 0; i < count; i += 1000) {
    const lines: string[] = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) lines.push(line(j));
    reader.push(`${lines.join('\n')}\n`);
  }
  reader.end();
  summarizer.addFile({ name: 'generated.log', lines: reader.lines, ncclLines: reader.ncclLines });
  return summarizer.summary();
}

/** A send from process `pid`, whose GPU the bracket names (its NVML index, from 2.18.3). */
const connection = (host: string, pid: number, gdr: boolean) =>
  `${host}:${pid}:2 [0] NCCL INFO Channel 00/0 : 0[${pid}] -> 1[0] [send] via NET/IB/0${gdr ? '/GDRDMA' : ''}`;

describe('the NCCL log summary within SUMMARY_LIMITS', () => {
  it('lists the first hosts, counts every connection, and says how many lines named a host past the limit', () => {
    const extra = 500;
    const s = summarizeLines(SUMMARY_LIMITS.hosts + extra, (i) => connection(`node${i}`, 1, i % 2 === 0));
    assert.equal(s.hosts.length, SUMMARY_LIMITS.hosts);
    assert.equal(s.dropped.hosts, extra);
    assert.deepEqual(s.netConnections, { total: SUMMARY_LIMITS.hosts + extra, gdrdma: (SUMMARY_LIMITS.hosts + extra) / 2 });
    assert.equal(s.verdict, 'mixed');
    const capped = s.findings.find((f) => f.id === 'nccl-log.capped');
    assert.ok(capped);
    assert.match(capped.title, new RegExp(`hosts ${extra}`));
  });

  it('keeps at most the limit of GPUs (a process each, its NVML index in the brackets), HCAs and ranks (smaller limits)', () => {
    const limits = { ...SUMMARY_LIMITS, gpus: 100, hcas: 50, ranks: 300 };
    const gpus = summarizeLines(110, (i) => connection('gpu01', i, true), limits);
    assert.equal(gpus.hosts[0].gpus.length, 100);
    assert.equal(gpus.dropped.gpus, 10);
    assert.equal(gpus.netConnections.total, 110);
    const hcas = summarizeLines(
      60,
      (i) => `gpu01:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA ${i % 64} 'mlx5_x${i}'`,
      limits,
    );
    assert.equal(hcas.hosts[0].hcas.length, 50);
    assert.equal(hcas.dropped.hcas, 10);
    // Each new rank is kept twice, for its host and its GPU.
    const ranks = summarizeLines(200, (i) => `gpu01:1:2 [0] NCCL INFO Channel 00/0 : ${i}[0] -> 1[0] [send] via NET/IB/0`, limits);
    assert.equal(ranks.hosts[0].ranks.length, 150);
    assert.equal(ranks.dropped.ranks, 100);
    assert.match(
      ranks.findings.find((f) => f.id === 'nccl-log.capped')?.detail ?? '',
      /at most 8192 hosts, 100 GPUs, 50 HCAs and 300 ranks/,
    );
  });

  it('keeps at most SUMMARY_LIMITS.versions NCCL versions', () => {
    const s = summarizeLines(SUMMARY_LIMITS.versions + 3, (i) => `NCCL version 2.${i}.1+cuda12.4`);
    assert.equal(s.dropped.versions, 3);
    assert.equal(s.findings.find((f) => f.id === 'nccl-log.versions')?.evidence.length, 5);
  });

  it('drops nothing on a real-sized job', () => {
    const s = summarizeLines(1024 * 8, (i) => connection(`node${i % 128}`, i % 8, true));
    assert.deepEqual(Object.values(s.dropped), [0, 0, 0, 0, 0, 0, 0]);
    assert.ok(!s.findings.some((f) => f.id === 'nccl-log.capped'));
  });
});
