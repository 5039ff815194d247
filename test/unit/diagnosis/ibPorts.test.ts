// InfiniBand port checks and mixed fabrics: ib.mtu-low on a real old InfiniHost (port 1 active at
// 2048, port 2 down), rdma.mixed-link-layers on the lab's HGX host with half its ports made InfiniBand.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { fixture, hostReport } from './hostReport';
import { HEALTHY, ids, only } from './hosts';
import { pcieHost } from './pcieHost';

describe('InfiniBand ports and mixed link layers', () => {
  it('ib.mtu-low names the active InfiniBand port below 4096, not the down one', async () => {
    // HEALTHY's topo names mlx5 devices, ibv_devinfo an mthca0: no verdict on it, so every active port counts.
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: fixture('ibv/mthca-infinihost-2010-no-transport-no-link-layer.txt') }));
    const f = only(d.findings, 'ib.mtu-low');
    assert.equal(f.title, 'InfiniBand MTU below 4096 on mthca0:1');
    assert.deepEqual(f.evidence, ['ibv_devinfo -v: mthca0:1 active_mtu: 2048']);
    assert.match(f.detail, /ncclIbConnect\/ncclIbAccept in src\/transport\/net_ib\/connect\.cc/);
  });

  it('ib.mtu-low says nothing where InfiniBand runs at 4096 and RoCE ports run lower', async () => {
    // Chrysalis: mlx5_0 InfiniBand at 4096, mlx5_1/mlx5_2 RoCE at 1024 (an Ethernet MTU, not this rule's).
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: fixture('ibv/mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt') }));
    assert.ok(!ids(d.findings).includes('ib.mtu-low'));
    assert.ok(!ids(d.findings).includes('ib.link-degraded'));
  });

  it('rdma.mixed-link-layers when the NICs NCCL uses are part InfiniBand, part RoCE; none on one fabric', async () => {
    const ib = { mlx5_4: 'InfiniBand', mlx5_5: 'InfiniBand', mlx5_6: 'InfiniBand', mlx5_7: 'InfiniBand' };
    const f = only(diagnose(await hostReport(pcieHost({ linkLayers: ib }))).findings, 'rdma.mixed-link-layers');
    assert.match(f.detail, /^mlx5_0:1 RoCE, .*mlx5_4:1 InfiniBand/);
    assert.ok(f.evidence.includes('/sys/class/infiniband/mlx5_4/ports/1/link_layer: InfiniBand'));
    assert.ok(!ids(diagnose(await hostReport(pcieHost())).findings).includes('rdma.mixed-link-layers'));
  });
});

describe('ib.link-degraded: against the same adapters, not against 4X', () => {
  const IB = Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`mlx5_${i}`, 'InfiniBand']));
  const all = (rate: string) => Object.fromEntries(Object.keys(IB).map((d) => [d, rate]));

  it('HDR100 (2X HDR) and NDR200 (2X NDR) ports on every adapter: no finding', async () => {
    for (const rate of ['100 Gb/sec (2X HDR)', '200 Gb/sec (2X NDR)']) {
      const d = diagnose(await hostReport(pcieHost({ linkLayers: IB, rates: all(rate) })));
      assert.ok(!ids(d.findings).includes('ib.link-degraded'), rate);
    }
  });

  it('one port at 2X HDR where the same ConnectX-7s run 4X NDR: a warning naming it and a faster sibling', async () => {
    const rates = { ...all('400 Gb/sec (4X NDR)'), mlx5_3: '100 Gb/sec (2X HDR)' };
    const f = only(diagnose(await hostReport(pcieHost({ linkLayers: IB, rates }))).findings, 'ib.link-degraded');
    assert.equal(f.title, 'InfiniBand port slower than the same adapters on this host: mlx5_3:1');
    assert.match(f.detail, /^mlx5_3:1 at 2X HDR, 100 Gb\/s where mlx5_0:1 runs 4X NDR, 400 Gb\/s\. .*PCI device 0x1021/);
    assert.deepEqual(f.evidence, [
      '/sys/class/infiniband/mlx5_3/ports/1/rate: 100 Gb/sec (2X HDR)',
      '/sys/class/infiniband/mlx5_0/ports/1/rate: 400 Gb/sec (4X NDR)',
    ]);
  });

  it('from ibv_devinfo -v: the Chrysalis node (one InfiniBand port at 4X 50 Gbps) has nothing to compare with', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: fixture('ibv/mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt') }));
    assert.ok(!ids(d.findings).includes('ib.link-degraded'));
  });
});
