// gdr-doctor against NCCL's own log of the same host: NVIDIA/nccl-tests#350 (issue description), host
// n013, one A100-PCIE-40GB, NCCL 2.16.5, NCCL_NET_GDR_LEVEL=SYS; its `nvidia-smi topo -m` is the fixture
// topo/a100-pcie-1gpu-4nic-hand-aligned.txt. The lines quoted below are that log's, verbatim. Port
// states are CONSTRUCTED from its first line: NCCL lists only usable ports, and it lists mlx5_0:1 and
// mlx5_2:1, so mlx5_1 and mlx5_3 had no active port (NCCL_IB_HCA was not set).
import * as assert from 'node:assert/strict';
import { diagnose, readNcclAssumptions } from '../../../../src/core/diagnosis';
import { ncclHostVerdict } from '../../../../src/core/topology/nccl/model';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { ruleContext } from '../../../../src/core/diagnosis/context';
import { ncclModelInput } from '../../../../src/core/diagnosis/ncclInput';
import { memoryPeers } from '../../diagnosis/constructedInputs';
import { fixture, hostReport } from '../../diagnosis/hostReport';
import { constructedSysfs, pciSysfsText } from './constructedSysfs';

// n013:101855:101885 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ibp209s0f0:10.128.3.13<0>
const PORTS = pciSysfsText(
  constructedSysfs(
    [],
    [
      { name: 'mlx5_0', path: '/sys/devices/pci0000:20/0000:20:01.1/0000:21:00.0', ports: [{ linkLayer: 'Ethernet' }] },
      { name: 'mlx5_1', path: '/sys/devices/pci0000:20/0000:20:01.1/0000:21:00.1', ports: [{ state: 'DOWN', linkLayer: 'Ethernet' }] },
      { name: 'mlx5_2', path: '/sys/devices/pci0000:c0/0000:c0:01.1/0000:d1:00.0', ports: [{}] },
      { name: 'mlx5_3', path: '/sys/devices/pci0000:c0/0000:c0:01.1/0000:d1:00.1', ports: [{ state: 'DOWN' }] },
    ],
  ),
);

describe("gdr-doctor agrees with NCCL 2.16.5's own log on nccl-tests#350's host", () => {
  const nccl = readNcclAssumptions('2.16.5', ['NCCL_NET_GDR_LEVEL=SYS']);
  if (typeof nccl === 'string') throw new Error(nccl);

  it('the NICs, their order, and the one the GPU uses', async () => {
    const report = await hostReport({ topo: fixture('topo/a100-pcie-1gpu-4nic-hand-aligned.txt'), 'pci-sysfs': PORTS });
    const hv = ncclHostVerdict(ncclModelInput(ruleContext(report, nccl)), nccl.version, nccl.env);
    assert.ok(hv);
    // [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB
    assert.deepEqual(
      hv.nets.map((n) => `${n.name}/${n.linkLayer}`),
      ['mlx5_0:1/RoCE', 'mlx5_2:1/IB'],
    );
    // "Channel 00/0 : 0[81000] -> 1[81000] [send] via NET/IB/1/GDRDMA": the GPU uses HCA 1, mlx5_2.
    assert.equal(hv.gpus[0].primary?.net.name, 'mlx5_2:1');
  });

  // NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0' — the NIC side counts as supported: a registered
  // peer-memory client stands for it here (constructed); the GPU's model is not in the matrix (unknown).
  const files = {
    topo: fixture('topo/a100-pcie-1gpu-4nic-hand-aligned.txt'),
    'pci-sysfs': PORTS,
    'memory-peers': memoryPeers('525.85.12'),
  };
  const order = ncclRules(nccl.version).order;

  it('the distance and threshold NCCL prints for HCA 1, reads and writes', async () => {
    const report = await hostReport(files);
    const use = ncclHostVerdict(ncclModelInput(ruleContext(report, nccl)), nccl.version, nccl.env)?.gpus[0].primary;
    assert.ok(use);
    // GPU Direct RDMA Enabled for GPU 81000 / HCA 1 (distance 6 <= 7), read 0   — and the same with read 1
    for (const d of [use.receive, use.send]) {
      assert.deepEqual([d.enabled, d.unknown, order.indexOf(d.distance), order.indexOf(d.threshold)], [null, ['gpu-support'], 6, 7]);
    }
    // The model is unread here, so the pair is "on if the GPU supports it": unknown (null), never a bare yes.
    const d = diagnose(report, nccl);
    assert.deepEqual(
      [d.pairs[0].link, d.pairs[0].ncclPath, d.pairs[0].gdr, d.pairs[0].missing.map((m) => m.fact)],
      ['NODE', 'PHB', null, ['gpu-support']],
    );
  });

  it('and for HCA 0 (mlx5_0, SYS), here chosen with NCCL_IB_HCA', async () => {
    const only0 = readNcclAssumptions('2.16.5', ['NCCL_NET_GDR_LEVEL=SYS', 'NCCL_IB_HCA=mlx5_0']);
    if (typeof only0 === 'string') throw new Error(only0);
    const use = ncclHostVerdict(ncclModelInput(ruleContext(await hostReport(files), only0)), only0.version, only0.env)?.gpus[0].primary;
    // GPU Direct RDMA Enabled for GPU 81000 / HCA 0 (distance 7 <= 7), read 0
    assert.deepEqual([use?.net.name, use?.receive.enabled, order.indexOf(use?.receive.distance ?? 'LOC')], ['mlx5_0:1', null, 7]);
  });
});
