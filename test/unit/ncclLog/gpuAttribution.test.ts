// Which GPU, NIC and HCA each line of an NCCL log speaks for (issue 21, "NCCL logs of one-GPU-per-process
// jobs"): GPUs by busId and NVML index, not by the `[dev]` every process of such a job prints as 0; the
// HCA numbers of "GPU Direct RDMA Disabled" lines as each release prints them; virtual (merged) NICs;
// Ray's folded lines; Socket interfaces among the HCAs.
import * as assert from 'node:assert/strict';
import { DEFAULT_NCCL } from '../../../src/core/diagnosis';
import { DemoHost, INITIAL_DEMO_STATE } from '../../../src/core/transport/demo';
import { summarizeNcclLog } from '../../../src/core/ncclLog';
import { pairHcaIndex } from '../../../src/core/ncclLog/buildSummary';
import { compareNcclLogWithHost } from '../../../src/core/ncclLog/compare';
import type { NcclLogSummary } from '../../../src/core/ncclLog/types';
import { runProbe } from '../../../src/core/probe/runProbe';
import { expectOk, readFixture } from '../../support/parsing';
import { DEMO_DIR } from '../../support/paths';

const PODS = 'socket-2-pods-1-gpu-each-dev0-nvmldev2-nccl2.27.5.txt';
const SLURM = 'ib-slurm-1-gpu-per-task-dev0-every-rank-nccl2.12.12-cut.txt';
const RAY = 'ib-vllm-ray-dedup-repeated-across-cluster-nccl2.21.5-excerpt.txt';

const summary = (name: string, text = readFixture('nccl-log', name)): NcclLogSummary => expectOk(summarizeNcclLog(text, name));
const gpusOf = (s: NcclLogSummary, host: string) =>
  s.hosts.find((h) => h.name === host)?.gpus.map((g) => ({ dev: g.dev, nvmlDev: g.nvmlDev, busId: g.busId, ranks: g.ranks }));

describe('NCCL log lines attributed to GPUs, NICs and HCAs', () => {
  it('a process that prints [0] for its only GPU is filed under the GPU its Init line names (NVIDIA/nccl#1781)', () => {
    const s = summary(PODS);
    assert.deepEqual(gpusOf(s, 'nccl-tests-gdr-2-worker-1'), [{ dev: 0, nvmlDev: 2, busId: 'a2000', ranks: [1] }]);
    assert.deepEqual(gpusOf(s, 'nccl-tests-gdr-2-worker-0'), [{ dev: 0, nvmlDev: 0, busId: '8000', ranks: [0] }]);
  });

  it('two processes on one host that both print [0] are two GPUs, even with no Init line (NVIDIA/nccl#1066, Slurm)', () => {
    const host = summary(SLURM).hosts[0];
    assert.equal(host.name, 'gcn6');
    assert.equal(host.gpus.length, 2);
    assert.ok(host.gpus.every((g) => g.dev === 0 && g.nvmlDev === null));
  });

  it('compares a [0]-per-process GPU with the host GPU its NVML index names, not with GPU0', async () => {
    // Only the connection lines of worker-1 (real lines of the fixture, the Init lines left out): the
    // brackets' NVML index (2.18.3+) is all that names the GPU.
    const lines = readFixture('nccl-log', PODS)
      .split('\n')
      .filter((l) => l.startsWith('nccl-tests-gdr-2-worker-1:') && l.includes(' via '));
    const s = summary(PODS, `${lines.join('\n')}\n`);
    assert.deepEqual(gpusOf(s, 'nccl-tests-gdr-2-worker-1'), [{ dev: 0, nvmlDev: 2, busId: null, ranks: [1] }]);
    const demo = new DemoHost(DEMO_DIR);
    demo.update({ ...INITIAL_DEMO_STATE, peermemLoaded: true });
    const report = await runProbe(demo.runner(), { host: 'demo' });
    const c = compareNcclLogWithHost({ summary: s, logHost: 'nccl-tests-gdr-2-worker-1', host: 'demo', report, nccl: DEFAULT_NCCL });
    assert.deepEqual(
      c.gpus.map((g) => [g.gpu, g.matchedBy]),
      [['GPU2', 'nvmlDev']],
    );
  });

  it('reads the HCA number of a "GPU Direct RDMA Disabled for GPU … / HCA n" line as its release prints it', () => {
    // src/graph/paths.cc ncclTopoCheckGdr: "HCA %d" up to 2.20, "HCA %lx" of NCCL_TOPO_ID(systemId, dev) in
    // 2.21–2.28 (NCCL_TOPO_ID_LOCAL_ID keeps the low 56 bits), "NET/%ld-%ld" (system-dev) from 2.29.
    assert.equal(pairHcaIndex('10', '2.20.5'), 10);
    assert.equal(pairHcaIndex('10', '2.21.5'), 16);
    assert.equal(pairHcaIndex('100000000000002', '2.28.9'), 2);
    assert.equal(pairHcaIndex('0-2', '2.29.2'), 2);
    assert.equal(pairHcaIndex('a', null), 10);
    assert.equal(pairHcaIndex('3', null), 3);
    assert.equal(pairHcaIndex('10', null), null, 'ten or sixteen: the log does not say which release printed it');
  });

  it('names the NIC of a 2.29 "NET/<system>-<dev>" pair line and of a virtual device from "Made virtual device"', () => {
    // Formatted from NCCL's own format strings, not recorded: "NET/IB : Using%s %s; OOB %s:%s" and the device list
    // (src/transport/net_ib/init.cc), "NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d" (same file),
    // "GPU Direct RDMA Disabled for GPU/%ld-%ld (rank %d) - NET/%ld-%ld (distance %d > %d)" (src/graph/paths.cc 2.29).
    const text = [
      'NCCL version 2.29.2+cuda12.9',
      'gpu01:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB eth0:10.0.0.1<0>',
      'gpu01:10:20 [0] NCCL INFO NET/IB : Made virtual device [4] name=mlx5_0+mlx5_1 speed=800000 ndevs=2',
      'gpu01:10:20 [0] NCCL INFO GPU Direct RDMA Disabled for GPU/0-110592 (rank 0) - NET/0-2 (distance 7 > 4)',
      'gpu01:10:30 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/4/GDRDMA',
      '',
    ].join('\n');
    const host = summary('formatted', text).hosts[0];
    assert.match(host.gdrOffReasons[0].reason, /^GPU GPU\/0-110592 \(rank 0\) \/ HCA mlx5_2: /);
    assert.deepEqual(
      host.gpus[0].nics.map((n) => n.name),
      ['mlx5_0+mlx5_1'],
    );
  });

  it('counts the lines Ray printed, says how many it folded, and reads their messages without its suffix (vLLM on Ray)', () => {
    const s = summary(RAY);
    assert.equal(s.ncclVersion, '2.21.5', '"NCCL version 2.21.5+cuda12.4 [repeated 6x across cluster]"');
    assert.deepEqual(s.netConnections, { total: 2, gdrdma: 2 });
    assert.equal(s.rayFolded, 28);
    assert.deepEqual(gpusOf(s, 'deepseek-v2-5-0-1'), [{ dev: 0, nvmlDev: 0, busId: '100000', ranks: [0, 1] }]);
    assert.deepEqual(s.env, { NCCL_NET_GDR_LEVEL: 'SYS' });
    assert.ok(s.findings.some((f) => f.id === 'nccl-log.ray-folded' && f.title.includes('28')));
  });

  it('lists the Socket interfaces a "NET/Socket : GPU Direct RDMA Disabled for HCA" line names, without an HCA finding', () => {
    const s = summary('socket-fallback-no-libibverbs-1-host-cut.txt');
    assert.deepEqual(s.hcas, [{ name: 'enp1s0f0', net: 'Socket', gdr: false, dmabuf: null }]);
    assert.ok(!s.findings.some((f) => f.id === 'nccl-log.hca-gdr-disabled'));
  });
});
