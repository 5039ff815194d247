// An NCCL log side by side with a host: real logs (test/fixtures/nccl-log) against the demo host
// (replayed recordings, media/demo: as first opened, nvidia_peermem not loaded; and once its quick fix
// loaded it) and the healthy lab profile's recordings (test/lab/profiles/healthy).
import * as assert from 'node:assert/strict';
import { DEFAULT_NCCL } from '../../../src/core/diagnosis';
import { addNcclLogText, NcclLogSummarizer } from '../../../src/core/ncclLog';
import { busIdNumber, compareNcclLogWithHost, logHostsMatching } from '../../../src/core/ncclLog/compare';
import type { NcclHostComparison } from '../../../src/core/ncclLog/compareTypes';
import type { NcclLogSummary } from '../../../src/core/ncclLog/types';
import { DemoHost, INITIAL_DEMO_STATE } from '../../../src/core/transport/demo';
import { ProbeReport, runProbe } from '../../../src/core/probe/runProbe';
import { readFixture } from '../../support/parsing';
import { DEMO_DIR } from '../../support/paths';
import { hostReport, labFile } from '../diagnosis/hostReport';

function summaryOf(...files: string[]): NcclLogSummary {
  const s = new NcclLogSummarizer();
  for (const f of files) addNcclLogText(s, readFixture('nccl-log', f), f);
  return s.summary();
}

function compare(report: ProbeReport, host: string, ...files: string[]): NcclHostComparison {
  const summary = summaryOf(...files);
  return compareNcclLogWithHost({ summary, logHost: summary.hosts[0].name, host, report, nccl: DEFAULT_NCCL });
}

function demoReport(peermemLoaded: boolean): Promise<ProbeReport> {
  const demo = new DemoHost(DEMO_DIR);
  demo.update({ ...INITIAL_DEMO_STATE, peermemLoaded });
  return runProbe(demo.runner(), { host: 'demo' });
}

const ids = (c: NcclHostComparison) => c.findings.map((f) => `${f.severity} ${f.id}`);
const INIT = 'roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt';
const CHANNELS = 'roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt';

describe('an NCCL log compared with the host it ran on', () => {
  /** The demo host with nvidia_peermem loaded (its quick fix applied): GDR predicted on every GPU. */
  let demo: ProbeReport;
  let healthy: ProbeReport;
  before(async () => {
    demo = await demoReport(true);
    // The healthy lab host's recordings: the seed 8-GPU box, an H100 `nvidia-smi -q` (bus ids 18:00.0, 2A:00.0 …), mlx5_0..2.
    const out = (f: string) => labFile('healthy', `out/${f}`);
    healthy = await hostReport({
      topo: out('nvidia-smi_topo_-m.stdout'),
      numactl: out('numactl_-H.stdout'),
      'smi-q': out('nvidia-smi_-q.stdout'),
      ibv: out('ibv%5Fdevinfo_-v.stdout'),
      lscpu: out('lscpu.stdout'),
    });
  });

  it('GDR predicted on all 8 GPUs of the demo host, none in an IBext plugin log: nccl.gdr-not-used with both sides', () => {
    const c = compare(demo, 'demo', 'ibext-plugin-no-gdrdma-8-gpus-cut.txt');
    assert.deepEqual(ids(c), ['error nccl.gdr-not-used']);
    const f = c.findings[0];
    assert.match(
      f.title,
      /^NCCL did not use GPU Direct RDMA on GPU0, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7 of demo, where gdr-doctor predicts it$/,
    );
    // "32[0] -> 40[0]": from 2.18.3 the brackets hold NCCL's NVML index, nvidia-smi's numbering.
    assert.doesNotMatch(f.detail, /matched by CUDA device number/);
    assert.ok(c.gpus.every((g) => g.matchedBy === 'nvmlDev' && g.way === 'both' && g.gdrAgrees === false));
    // Each GPU quoted from both sides: the model's verdict, then the log line without /GDRDMA.
    assert.match(f.evidence[0], /^demo \(gdr-doctor's model of NCCL 2\.30\.7\): GPU0: GDR via mlx5_0\. GPU0 → mlx5_0:1 over PIX/);
    assert.equal(
      f.evidence[1],
      'ibext-plugin-no-gdrdma-8-gpus-cut.txt:8: hostname-test:980:1265 [0] NCCL INFO Channel 01/0 : 32[0] -> 40[0] [send] via NET/IBext_v8/7',
    );
  });

  it('GDRDMA on every connection where the demo host predicts it: the log agrees', () => {
    const c = compare(demo, 'demo', CHANNELS);
    assert.deepEqual(ids(c), ['info nccl.agrees']);
    assert.equal(c.gpus.filter((g) => g.gdrAgrees === true).length, 8);
  });

  it('GDRDMA in the log where the demo host as first opened (nvidia_peermem not loaded) predicts none: nccl.gdr-not-predicted', async () => {
    const c = compare(await demoReport(false), 'demo', CHANNELS);
    assert.deepEqual(ids(c), ['info nccl.gdr-not-predicted']);
    assert.match(
      c.findings[0].title,
      /^NCCL used GPU Direct RDMA on GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7 of demo, where gdr-doctor predicts it would not$/,
    );
  });

  it('NCCL on sockets where the host has an active InfiniBand port: nccl.socket-fallback, quoting the log and ibv_devinfo', () => {
    const c = compare(demo, 'demo', 'socket-fallback-no-libibverbs-1-host-cut.txt');
    assert.deepEqual(ids(c), ['error nccl.socket-fallback']);
    const f = c.findings[0];
    assert.match(
      f.title,
      /^NCCL fell back to TCP sockets on demo, which has RDMA ports \(mlx5_0:1 IB active, mlx5_2:1 IB active, mlx5_3:1 IB active, mlx5_4:1 IB active, …\)$/,
    );
    assert.ok(
      f.evidence.some((e) =>
        e.startsWith('socket-fallback-no-libibverbs-1-host-cut.txt:1: axon:5022:5089 [3] NCCL INFO Using network Socket'),
      ),
      f.evidence.join('\n'),
    );
    assert.ok(
      f.evidence.some((e) => /^demo \(ibv_devinfo -v\): mlx5_0 port 1: ACTIVE, IB$/.test(e)),
      f.evidence.join('\n'),
    );
  });

  it('GPUs matched by busId on the healthy lab host; NCCL_NET_GDR_LEVEL=PIX from the log makes the model say no GDR, the log shows GDRDMA: nccl.gdr-not-predicted, and NICs the host does not have: nccl.unexpected-nic', () => {
    // The job's own environment as the log prints it (`… set by environment to …`), GID index included.
    const c = compare(healthy, 'healthy', INIT, CHANNELS);
    assert.deepEqual(c.envFromLog, {
      NCCL_IB_DISABLE: '0',
      NCCL_IB_GID_INDEX: '3',
      NCCL_IB_HCA: 'mlx5_0,mlx5_1,mlx5_2,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_11',
      NCCL_IB_TC: '106',
      NCCL_NET_GDR_LEVEL: 'PIX',
    });
    assert.ok(
      c.gpus.every((g) => g.matchedBy === 'busId'),
      "the log's busIds (18000, 2a000 …) are the host's 00000000:18:00.0, 2A:00.0 …",
    );
    assert.deepEqual(ids(c), ['warning nccl.unexpected-nic', 'info nccl.gdr-not-predicted']);
    const nic = c.findings[0];
    assert.match(nic.detail, /mlx5_5, mlx5_6, mlx5_7, mlx5_8, mlx5_11 are not an RDMA device of healthy: is the log from this host\?/);
    assert.deepEqual(c.gpus.find((g) => g.gpu === 'GPU1')?.unexpectedNics, ['mlx5_1']);
    assert.match(c.findings[1].detail, /The model may be missing something/);
  });

  it("a log whose GPUs (by busId) are not the host's is not compared, and says so", () => {
    const c = compare(demo, 'demo', 'ib-gdrdma-a100-single-process-4-gpus-cut.txt');
    assert.deepEqual(ids(c), ['info nccl.not-compared']);
    assert.deepEqual(c.unmatchedLogGpus, [0, 1, 2, 3]);
    assert.match(c.findings[0].detail, /^The log's GPUs 0, 1, 2, 3 are not GPUs of demo\./);
  });

  it('predicts for the NCCL release the log names, where the model knows it', () => {
    const c = compare(demo, 'demo', 'ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5.txt');
    assert.deepEqual([c.ncclAssumed, c.versionFrom], ['2.16.5', 'log']);
    const old = compare(demo, 'demo', 'socket-nccl2.5.6-mpirun-tag-output-no-ib-device-cut.txt');
    assert.deepEqual([old.ncclAssumed, old.versionFrom], ['2.30.7', 'settings'], '2.5.6 is older than the oldest modelled release');
  });

  it('finds the log host a destination stands for, as NCCL shortens host names', () => {
    const s = summaryOf('ib-no-module-2-containers-part1-start-cut.txt');
    assert.deepEqual(logHostsMatching(s, ['root@21346D5CEFCE.cluster.local:2222']), ['21346d5cefce']);
    assert.deepEqual(logHostsMatching(s, ['ssh://6a5a91752e39']), ['6a5a91752e39']);
    assert.deepEqual(logHostsMatching(s, ['gpu01', '10.0.1.2']), []);
    assert.equal(busIdNumber('00000000:1B:00.0'), busIdNumber('1b000'));
    assert.equal(busIdNumber('0000:1b:00.0'), 0x1b000n);
    assert.equal(busIdNumber('3'), 3n);
    assert.equal(busIdNumber('GPU-1'), null);
  });
});
