// Every real NCCL log in test/fixtures/nccl-log must give the summary its sidecar
// `<name>.expected.json` says (written by reading the log and counting its `via NET/` lines).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { addNcclLogText, NcclLogSummarizer, summarizeNcclLog } from '../../../src/core/ncclLog';
import { sidecarView } from '../../support/ncclLogSidecar';
import { expectOk, readFixture } from '../../support/parsing';
import { fixtureFiles } from '../../support/paths';

describe('NCCL log summary of every real fixture in test/fixtures/nccl-log', () => {
  const files = fixtureFiles('nccl-log');

  it('finds the fixtures', () => assert.ok(files.length >= 20, `${files.length} fixtures`));

  for (const file of files) {
    it(path.basename(file), () => {
      const sidecar = file.replace(/\.txt$/, '.expected.json');
      assert.ok(fs.existsSync(sidecar), `missing sidecar ${path.basename(sidecar)}`);
      const summary = expectOk(summarizeNcclLog(fs.readFileSync(file, 'utf8'), path.basename(file)));
      assert.deepEqual(sidecarView(summary), JSON.parse(fs.readFileSync(sidecar, 'utf8')));
    });
  }

  it("reads two files of one job as one: the NIC list of the first names the NICs the second's channels use", () => {
    const summarizer = new NcclLogSummarizer();
    for (const part of [
      'roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt',
      'roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt',
    ]) {
      addNcclLogText(summarizer, readFixture('nccl-log', part), part);
    }
    const s = summarizer.summary();
    assert.equal(s.verdict, 'gdr');
    const host = s.hosts.find((h) => h.name === 'tpgds-aihub0008');
    assert.ok(host);
    // NET/IB/n is the n-th of "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [3]mlx5_5:1/RoCE …".
    assert.deepEqual(
      host.gpus.map((g) => [g.dev, g.busId, g.ranks, g.nics.map((n) => n.name)]),
      [
        [0, '18000', [8], ['mlx5_0']],
        [1, '2a000', [9], ['mlx5_1']],
        [2, '3a000', [10], ['mlx5_2']],
        [3, '5d000', [11], ['mlx5_5']],
        [4, '9a000', [12], ['mlx5_6']],
        [5, 'ab000', [13], ['mlx5_7']],
        [6, 'ba000', [14], ['mlx5_8']],
        [7, 'db000', [15], ['mlx5_11']],
      ],
    );
    assert.ok(
      host.gpus.every((g) => g.dmabuf),
      'DMA-BUF is available on every GPU',
    );
    assert.deepEqual(
      s.files.map((f) => f.name),
      ['roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt', 'roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt'],
    );
  });

  it('gives the reason NCCL printed for each host, with the line that says it (NVIDIA/nccl#899, both parts)', () => {
    const summarizer = new NcclLogSummarizer();
    for (const part of ['ib-no-module-2-containers-part1-start-cut.txt', 'ib-no-module-2-containers-part2-channels-cut.txt']) {
      addNcclLogText(summarizer, readFixture('nccl-log', part), part);
    }
    const s = summarizer.summary();
    const reasons = Object.fromEntries(s.hosts.map((h) => [h.name, h.gdrOffReasons.map((r) => `${r.evidence.file}:${r.evidence.line}`)]));
    assert.deepEqual(reasons, {
      '6a5a91752e39': ['ib-no-module-2-containers-part1-start-cut.txt:6'],
      '21346d5cefce': [
        'ib-no-module-2-containers-part2-channels-cut.txt:1',
        'ib-no-module-2-containers-part2-channels-cut.txt:2',
        'ib-no-module-2-containers-part2-channels-cut.txt:3',
      ],
    });
    assert.match(s.hosts[0].gdrOffReasons[0].reason, /^HCA mlx5_0: GPU Direct RDMA disabled \(no module\)/);
    assert.equal(s.verdict, 'no-gdr');
  });
});
