// RoCE fabric basics from the host's own text: roce.mtu-low from ibv_devinfo -v (the real Chrysalis node:
// one InfiniBand port at 4096, two RoCE ports at 1024), roce.traffic-class from NCCL_IB_TC/NCCL_IB_SL.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { fixture, hostReport } from './hostReport';
import { HEALTHY, ids, only } from './hosts';
import { pcieHost } from './pcieHost';

const CHRYSALIS = { ...HEALTHY, ibv: fixture('ibv/mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt') };

describe('RoCE fabric basics: MTU and traffic class', () => {
  it('roce.mtu-low names the RoCE ports at active_mtu 1024, not the InfiniBand port at 4096', async () => {
    const f = only(diagnose(await hostReport(CHRYSALIS)).findings, 'roce.mtu-low');
    assert.equal(f.severity, 'info');
    assert.equal(f.title, 'RoCE MTU below 4096 on mlx5_1:1, mlx5_2:1');
    assert.deepEqual(f.evidence, [
      'ibv_devinfo -v: mlx5_1:1 active_mtu: 1024 (link_layer: Ethernet)',
      'ibv_devinfo -v: mlx5_2:1 active_mtu: 1024 (link_layer: Ethernet)',
    ]);
    assert.match(f.detail, /iboe_get_mtu in Linux include\/rdma\/ib_addr\.h/);
  });

  it("roce.mtu-low names the interface the port's GIDs give (sysfs gid_attrs/ndevs)", async () => {
    // The lab's HGX sysfs (RoCE ports with GID tables) with the Chrysalis ibv_devinfo: mlx5_1 and mlx5_2 in both.
    const d = diagnose(await hostReport({ ...pcieHost(), ibv: fixture('ibv/mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt') }));
    assert.match(
      only(d.findings, 'roce.mtu-low').detail,
      /^mlx5_1:1 \(ens2np0\): active_mtu 1024; mlx5_2:1 \(ens6np0\): active_mtu 1024\. /,
    );
  });

  it('an InfiniBand-only host gets neither RoCE finding', async () => {
    const ib = Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`mlx5_${i}`, 'InfiniBand']));
    const d = diagnose(
      await hostReport({ ...pcieHost({ linkLayers: ib }), ibv: fixture('ibv/mthca-infinihost-2010-no-transport-no-link-layer.txt') }),
    );
    assert.ok(!ids(d.findings).includes('roce.mtu-low'));
    assert.ok(!ids(d.findings).includes('roce.traffic-class'));
  });

  it('roce.traffic-class says the class NCCL marks its packets with: 0 when unset, NCCL_IB_TC read as NCCL reads it', async () => {
    const unset = only(diagnose(await hostReport(CHRYSALIS)).findings, 'roce.traffic-class');
    assert.equal(unset.severity, 'info');
    assert.equal(
      unset.title,
      'NCCL marks its RoCE traffic on mlx5_1:1, mlx5_2:1 with traffic class 0 (NCCL_IB_TC not set), service level 0 (NCCL_IB_SL not set)',
    );
    const report = await hostReport(CHRYSALIS);
    const set = only(
      diagnose(report, { version: { major: 2, minor: 21, patch: 5 }, env: { NCCL_IB_TC: '0x6a', NCCL_IB_SL: '3' } }).findings,
      'roce.traffic-class',
    );
    assert.match(set.title, /with NCCL_IB_TC=106 \(DSCP 26\), NCCL_IB_SL=3$/);
    assert.deepEqual(set.evidence.slice(0, 2), ['NCCL_IB_TC: 0x6a', 'NCCL_IB_SL: 3']);
  });
});
