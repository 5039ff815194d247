// `gdr-doctor prove` without a lab: what is refused before anything connects, an unreachable host,
// and the table a proof prints (the sample proof of the healthy lab host's GPU5, from perftest recordings).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { formatProof } from '../../../src/core/prove/text';
import { CLI } from '../../support/paths';
import { sampleProof } from '../prove/sampleProof';
import { joinedRegExp } from '../../support/joinedRegExp';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'prove', ...args], { encoding: 'utf8', env: { ...process.env, SSH_AUTH_SOCK: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gdr-doctor prove: usage', function () {
  this.timeout(30_000);

  for (const [args, message] of [
    [[], /give one host, or a host and its peer/],
    [['a', 'b', 'c'], /give one host, or a host and its peer/],
    [['a', '--mode', 'host,gpu'], /--mode takes host, peermem, dmabuf; got "host,gpu"/],
    [['a', '--gpu', 'first'], /--gpu needs an index, a comma list of them, or all/],
    [['a', '--duration', '0'], /--duration needs a whole number from 1 to 3600/],
    [['a', '--via', 'login'], /--via needs two nodes/],
    [['a', '--partition', 'gpu'], /--partition goes with --via LOGIN/],
  ] as const) {
    it(`refuses ${JSON.stringify(args)} with exit 64`, () => {
      const r = cli([...args]);
      assert.equal(r.status, 64, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it('says how in --help, the mode order and the flag order among it', () => {
    const r = cli(['--help']);
    assert.equal(r.status, 0);
    assert.match(
      r.stdout,
      joinedRegExp([
        /host memory \(the yardstick\), GPU memory through the peer-memory module, GPU memory/,
        /\nthrough dma-buf \(--use_cuda_dmabuf\); the GPU named by its PCI address \(--use_cuda_bus_id/,
      ]),
    );
  });

  it('exits 3 for a host it cannot reach, having run nothing', () => {
    const r = cli(['-F', '/dev/null', 'gdr-doctor-no-such-host.invalid']);
    assert.equal(r.status, 3);
    assert.match(r.stderr, /gdr-doctor-no-such-host\.invalid: cannot reach/);
  });
});

describe('gdr-doctor prove: the table', () => {
  it('shows each GPU, its ports, one line per mode and the verdict', async () => {
    const report = await sampleProof('works');
    assert.equal(
      formatProof(report),
      [
        'GPUDirect RDMA proof: gpu-a (one host: between its ports); ib_write_bw, 1 MiB messages, 5 s per mode',
        '',
        '  GPU   NIC → other end      mode         Gb/s   line  ratio  result',
        '  GPU5  mlx5_1:1 → mlx5_2:1  host        98.38    100   98 %  ok',
        '                             peermem     80.96    100   81 %  ok',
        '                             dmabuf          -      -      -  skipped: the perftest on gpu-a has no --use_cuda_dmabuf (built without CUDA dma-buf support: CUDA ≥ 11.7 headers and rdma-core ≥ 34 at build time; docs/perftest.md §3)',
        '        GPUDirect RDMA works at 81 % of line rate with peermem (host memory: 98 %): GPU memory is 18 % slower than host memory; topo.nic-far: GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7: nearest usable NIC is PHB/SYS; NCCL 2.30.7 will not use GPUDirect RDMA for them',
        "        note: gpu-a: mlx5_1 pinned to NUMA node 1, the GPU's (the NIC's was not read)",
        "        note: gpu-a: mlx5_2 pinned to NUMA node 1, the GPU's (the NIC's was not read)",
        '',
      ].join('\n'),
    );
  });
});
