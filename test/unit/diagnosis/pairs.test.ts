// GPU↔NIC verdicts, topo.nic-far and the suggested environment, on real topologies. Expected values
// are read from the matrices (rows quoted in the comments).
import * as assert from 'node:assert/strict';
import { diagnose, missingText, shortVerdict } from '../../../src/core/diagnosis';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY, only, without } from './hosts';

describe('diagnosis: GPU↔NIC pairs', () => {
  it('NICs on one socket only (seed topology): GPU4-7 are SYS to every NIC and get topo.nic-far', async () => {
    const d = diagnose(
      await hostReport({
        ...without(HEALTHY, 'ibv'),
        topo: fixture('topo/seed-xeon-gold-5318y-8gpu-3nic.txt'),
        numactl: fixture('numactl/seed-xeon-gold-5318y-2node.txt'),
      }),
    );
    // GPU3 row: "… NODE NODE PIX 0-31 0 N/A"; GPU4 row: "… SYS SYS SYS 32-63 1 N/A".
    const byGpu = Object.fromEntries(d.pairs.map((p) => [p.gpu, p]));
    assert.deepEqual(
      byGpu.GPU3.nics.map((n) => n.device),
      ['mlx5_2'],
    );
    assert.equal(byGpu.GPU3.link, 'PIX');
    assert.equal(byGpu.GPU0.link, 'PXB');
    assert.deepEqual([byGpu.GPU0.gdr, byGpu.GPU0.numaNode, byGpu.GPU0.cpus, byGpu.GPU0.cpuSource], [true, '0', '0-31', 'topo']);
    assert.deepEqual(
      byGpu.GPU4.nics.map((n) => n.device),
      ['mlx5_0', 'mlx5_1', 'mlx5_2'],
    );
    assert.deepEqual(
      [byGpu.GPU4.link, byGpu.GPU4.ncclPath, byGpu.GPU4.gdr, byGpu.GPU4.numaNode, byGpu.GPU4.cpus],
      ['SYS', 'SYS', false, '1', '32-63'],
    );
    // No NVLink among the seed GPUs, so no PXN: NCCL judges GPU4's own SYS path (ncclTopoCheckGdr).
    assert.equal(byGpu.GPU4.proxyGpu, null);
    assert.match(byGpu.GPU4.reason, /^GPU4 → mlx5_0 over SYS .*NCCL 2\.30\.7: GPUDirect RDMA off: SYS is beyond the default threshold P2C/);
    assert.match(byGpu.GPU4.confirm, /without "\/GDRDMA"/);
    assert.equal(byGpu.GPU4.ncclAssumed, '2.30.7');
    const far = only(d.findings, 'topo.nic-far');
    assert.equal(far.severity, 'warning');
    assert.match(far.title, /^GPU4, GPU5, GPU6, GPU7: nearest usable NIC is SYS; NCCL 2\.30\.7 will not use GPUDirect RDMA/);
    assert.match(far.detail, /GPU4 → mlx5_0 \(SYS, NCCL SYS\)/);
    assert.match(far.detail, /NCCL_NET_GDR_LEVEL=SYS/);
    assert.equal(far.evidence.length, 4);
    assert.ok(far.evidence[0].startsWith('nvidia-smi topo -m: GPU4    SYS     SYS     SYS     SYS      X      PIX'), far.evidence[0]);
    // NCCL_IB_HCA in NCCL's device order (ports not read: no ":port"); SYS never earns an NCCL_NET_GDR_LEVEL.
    assert.deepEqual(d.suggestedEnv.env, { NCCL_IB_HCA: '=mlx5_0,mlx5_1,mlx5_2' });
    assert.equal(d.suggestedEnv.kind, 'suggestion');
    assert.ok(d.suggestedEnv.notes.some((n) => n.includes('whatever the order here')));
    assert.ok(d.suggestedEnv.notes.some((n) => n.startsWith('GPU4, GPU5, GPU6, GPU7 reach a NIC only across NUMA nodes (SYS)')));
  });

  it('the healthy lab profile (same seed topology) gets the same verdicts', async () => {
    const d = diagnose(
      await hostReport({ topo: labFile('healthy', 'out/nvidia-smi_topo_-m.stdout'), numactl: labFile('healthy', 'out/numactl_-H.stdout') }),
    );
    assert.deepEqual(
      d.pairs.filter((p) => p.gdr === false).map((p) => p.gpu),
      ['GPU4', 'GPU5', 'GPU6', 'GPU7'],
    );
    assert.equal(only(d.findings, 'topo.nic-far').severity, 'warning');
    // Only the matrix and numactl were read: GPU0-3's PXB/PIX paths are within the threshold, but neither the NIC
    // side (peer memory, dma-buf) nor the GPU models were read, so their GPUDirect RDMA is unknown, not yes (and
    // without an NVLink peer, sends need compute capability 8.0, unread too).
    const gpu3 = d.pairs[3];
    assert.deepEqual([gpu3.gdr, gpu3.missing.map((m) => m.fact)], [null, ['nic-support', 'gpu-support', 'compute-capability']]);
    assert.match(gpu3.missing[0].read, /memory_peers/);
    assert.match(gpu3.missing[1].read, /nvidia-smi --query-gpu=index,name,pci\.bus_id/);
    assert.equal(shortVerdict(gpu3), 'GDR unknown');
    assert.match(missingText(gpu3), /^Unknown, not read: whether the NIC side supports GPUDirect RDMA/);
    assert.deepEqual(
      d.pairs.slice(4).map((p) => p.missing),
      [[], [], [], []],
      'a decided "no" misses nothing',
    );
  });

  it('PHB/NODE-only NICs (NUMA range affinity): NCCL_NET_GDR_LEVEL=PHB is suggested', async () => {
    // GPU0-2 "… SYS 0,64 0-3", GPU3 "… PHB 0,64 0-3"; one NIC, NIC0: mlx5_0.
    const d = diagnose(await hostReport({ ...without(HEALTHY, 'ibv'), topo: fixture('topo/a100-4gpu-nv4-numa-range-affinity.txt') }));
    assert.deepEqual(
      d.pairs.map((p) => p.link),
      ['SYS', 'SYS', 'SYS', 'PHB'],
    );
    assert.deepEqual([d.pairs[3].numaNode, d.pairs[3].cpus], ['0-3', '0,64']);
    assert.deepEqual(d.suggestedEnv.env, { NCCL_IB_HCA: '=mlx5_0', NCCL_NET_GDR_LEVEL: 'PHB' });
    // GPU3 is PHB, not PXB: it cannot relay for GPU0-2 (PXN needs the peer within PXB; ncclTopoComputePaths).
    assert.deepEqual(
      d.pairs.map((p) => p.proxyGpu),
      [null, null, null, null],
    );
    assert.match(only(d.findings, 'topo.nic-far').title, /^GPU0, GPU1, GPU2, GPU3: nearest usable NIC is SYS\/PHB/);
  });

  it('empty CPU affinity (Slurm job): CPUs come from numactl for the NUMA node topo names', async () => {
    // GPU2 row: "NV4 NV4 X NV4 NODE NODE NODE <empty> 1 <empty> N/A"; seed numactl: node 1 cpus 24..47.
    const d = diagnose(
      await hostReport({
        ...without(HEALTHY, 'ibv'),
        topo: fixture('topo/hgx-4gpu-nv4-slurm-empty-cpu-affinity.txt'),
        numactl: fixture('numactl/seed-xeon-gold-5318y-2node.txt'),
      }),
    );
    assert.deepEqual([d.pairs[2].numaNode, d.pairs[2].cpus, d.pairs[2].cpuSource], ['1', '24-47', 'numactl']);
    assert.deepEqual([d.pairs[0].numaNode, d.pairs[0].cpus, d.pairs[0].cpuSource], ['0', '0', 'topo']);
    assert.equal(d.pairs[0].link, 'NODE');
    assert.equal(d.pairs[0].ncclPath, 'PHB');
    assert.equal(d.suggestedEnv.env.NCCL_NET_GDR_LEVEL, 'PHB');
  });

  it('a host without NUMA (numactl: No NUMA available; topo NUMA N/A): no node, CPUs from topo', async () => {
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: fixture('topo/tesla-p4-single-gpu-numa-na.txt'),
        numactl: fixture('numactl/uma-no-numa-available.txt'),
      }),
    );
    assert.equal(d.pairs.length, 1);
    assert.deepEqual([d.pairs[0].numaNode, d.pairs[0].cpus, d.pairs[0].cpuSource], [null, '0-7', 'topo']);
    assert.deepEqual(d.pairs[0].nics, []);
    // The host has an RDMA device (ibv_devinfo: mlx4_0) that the matrix does not list: its path is unread.
    assert.equal(d.pairs[0].gdr, null);
    assert.deepEqual(
      d.pairs[0].missing.map((m) => m.fact),
      ['path'],
    );
  });

  it('twelve NICs, each GPU PXB to its own (H200 HGX): all GDR, NCCL_IB_HCA in device order, no GDR level', async () => {
    // GPU0 → NIC0, GPU1 → NIC3, GPU2 → NIC4, GPU3 → NIC5, GPU4 → NIC6, GPU5 → NIC9, GPU6 → NIC10, GPU7 → NIC11 (all PXB).
    const d = diagnose(await hostReport({ ...without(HEALTHY, 'ibv'), topo: fixture('topo/h200-hgx-8gpu-12nic-tabs.txt') }));
    assert.ok(d.pairs.every((p) => p.gdr && p.link === 'PXB'));
    assert.deepEqual(
      d.pairs.map((p) => p.nics.map((n) => n.device).join()),
      ['mlx5_0', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_9', 'mlx5_10', 'mlx5_11'],
    );
    assert.deepEqual(d.suggestedEnv.env, { NCCL_IB_HCA: '=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11' });
    assert.deepEqual([d.pairs[4].numaNode, d.pairs[4].cpus], ['1', '56-111,168-223']);
  });

  it('older drivers: SOC counts as SYS, PHB as PHB, device names are the columns', async () => {
    // k40m: GPU0 "… SOC 0-5", GPU2 "… PHB 6-11"; column mlx4_0.
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: fixture('topo/k40m-4gpu-mlx4-soc-legend.txt'),
        ibv: fixture('ibv/mlx4-connectx3-roce-2port-device-ports.txt'),
      }),
    );
    assert.deepEqual(
      d.pairs.map((p) => [p.link, p.ncclPath]),
      [
        ['SOC', 'SYS'],
        ['SOC', 'SYS'],
        ['PHB', 'PHB'],
        ['PHB', 'PHB'],
      ],
    );
    assert.match(d.pairs[0].reason, /GPUDirect RDMA off: SYS is beyond/);
    // Both ports of mlx4_0 are active: NCCL makes each its own device, and both are the GPU's local NICs.
    assert.deepEqual(d.pairs[2].nics, [
      { nic: 'mlx4_0', device: 'mlx4_0', port: 1, portActive: true },
      { nic: 'mlx4_0', device: 'mlx4_0', port: 2, portActive: true },
    ]);
    assert.deepEqual(d.suggestedEnv.env, { NCCL_IB_HCA: '=mlx4_0:1,mlx4_0:2', NCCL_NET_GDR_LEVEL: 'PHB' });
  });
});
