// The job's shape: NCCL's topology holds only the GPUs of the communicator on the host (NVIDIA/nccl v2.30.7-1
// src/graph/topo.cc ncclTopoGetSystem: its own GPU, the other local ranks' by XML fusion), so PXN relays only
// through the job's GPUs and a one-GPU job takes ncclTopoCheckGdr's single-GPU read exception
// (src/graph/paths.cc: "if (system->nodes[GPU].count == 1) nvlink = 1"). Hosts: real matrices and nvidia-smi -q
// (test/fixtures), CONSTRUCTED port states and nv_mem registration.
import * as assert from 'node:assert/strict';
import { readJobGpus, readNcclAssumptions } from '../../../../src/core/diagnosis';
import { memoryPeers } from '../../diagnosis/constructedInputs';
import { fixture, hostReport } from '../../diagnosis/hostReport';
import { constructedSysfs, pciSysfsText } from './constructedSysfs';
import { diagnose } from '../../../../src/core/diagnosis';

const READ = { 'memory-peers': memoryPeers('565.57.01'), 'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt') };

function run(files: Parameters<typeof hostReport>[0], version: string | undefined, env: string[], gpus: string | undefined) {
  const nccl = readNcclAssumptions(version, env);
  const job = readJobGpus(gpus, undefined);
  if (typeof nccl === 'string' || typeof job === 'string') throw new Error(String(nccl) + String(job));
  return hostReport(files).then((r) => diagnose(r, { ...nccl, gpus: job }));
}

describe('--gpus / --gpus-per-node: the GPUs of the job', () => {
  const rows: [string | undefined, string | undefined, number[] | null | RegExp][] = [
    [undefined, undefined, null],
    ['0,1,2,3', undefined, [0, 1, 2, 3]],
    ['0-3', undefined, [0, 1, 2, 3]],
    ['4, 6-7', undefined, [4, 6, 7]],
    [undefined, '4', [0, 1, 2, 3]],
    ['', undefined, null],
    ['0,a', undefined, /not a list of GPU indexes/],
    ['3-1', undefined, /not a list of GPU indexes/],
    [undefined, '0', /not a number of GPUs per node/],
    ['0', '1', /not both/],
  ];
  for (const [list, perNode, expected] of rows) {
    it(`--gpus ${list ?? '-'} --gpus-per-node ${perNode ?? '-'}`, () => {
      const r = readJobGpus(list, perNode);
      if (expected instanceof RegExp) assert.match(String(r), expected);
      else assert.deepEqual(r, expected);
    });
  }
});

describe("NCCL's answer for the job's GPUs only", () => {
  const topo = fixture('topo/h100-hgx-8gpu-nic-legend-spaces.txt');
  // GPU1's own NIC (mlx5_1) down; every other port active.
  const rdma = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
    name: `mlx5_${i}`,
    path: `/sys/devices/pci0000:${(0x10 + i).toString(16)}/0000:${(0x10 + i).toString(16)}:00.0/0000:${(0x11 + i).toString(16)}:00.0`,
    ports: [{ state: i === 1 ? 'DOWN' : 'ACTIVE' }],
  }));
  const HGX = { ...READ, topo, 'pci-sysfs': pciSysfsText(constructedSysfs([], rdma)) };

  it('default: every GPU of the host, said in the verdict; GPU1 relays through GPU0 (PXN)', async () => {
    const d = await run(HGX, undefined, [], undefined);
    assert.equal(d.pairs.length, 8);
    assert.deepEqual([d.pairs[1].ncclPath, d.pairs[1].proxyGpu, d.pairs[1].gdr], ['PXN', 'GPU0', true]);
    assert.match(d.pairs[1].reason, /For a job on every GPU of this host \(8; --gpus names a smaller one\)\./);
    assert.equal(d.nccl.jobGpus, null);
  });

  it("a job on GPU1-3: GPU0 is not in NCCL's topology, so GPU1 relays through GPU2, one of the job's", async () => {
    const d = await run(HGX, undefined, [], '1-3');
    assert.deepEqual(
      d.pairs.map((p) => p.gpu),
      ['GPU1', 'GPU2', 'GPU3'],
    );
    assert.deepEqual(
      [d.pairs[0].ncclPath, d.pairs[0].proxyGpu, d.pairs[0].nics[0].device, d.pairs[0].gdr],
      ['PXN', 'GPU2', 'mlx5_2', true],
    );
    // A job on GPU1 alone has no NVLink peer at all: its own NIC down, it goes to a NODE NIC through the CPU.
    const alone = await run(HGX, undefined, [], '1');
    assert.deepEqual([alone.pairs[0].ncclPath, alone.pairs[0].proxyGpu, alone.pairs[0].gdr], ['PHB', null, false]);
    assert.match(d.pairs[0].reason, /For a job on GPU1, GPU2, GPU3 of this host/);
    assert.deepEqual(d.nccl.jobGpus, [1, 2, 3]);
  });

  it('a one-GPU job takes the single-GPU read exception (NCCL 2.18: the read rule holds for every GPU)', async () => {
    // PCIe box without NVLink (GPU models from the H100 -q), NIC NODE to GPU4-7, NCCL_NET_GDR_LEVEL=PHB.
    const box = { ...READ, topo: fixture('topo/pcie-8gpu-no-nvlink-1nic-node-half.txt') };
    const all = await run(box, '2.18.6', ['NCCL_NET_GDR_LEVEL=PHB'], undefined);
    assert.deepEqual([all.pairs[4].send, all.pairs[4].receive], [false, true]);
    const one = await run(box, '2.18.6', ['NCCL_NET_GDR_LEVEL=PHB'], '4');
    assert.deepEqual([one.pairs.length, one.pairs[0].gpu, one.pairs[0].gdr, one.pairs[0].send], [1, 'GPU4', true, undefined]);
  });

  it('a GPU the host does not have is said so', async () => {
    const d = await run(HGX, undefined, [], '6-9');
    assert.deepEqual(
      d.pairs.map((p) => p.gpu),
      ['GPU6', 'GPU7'],
    );
    assert.match(d.nccl.envProblems.join(), /the job names GPU 8, 9, which this host does not have \(8 GPUs\)/);
  });
});
