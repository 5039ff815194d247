// fleet.firmware-differs, fleet.link-width-differs and fleet.acs-differs over lab HGX hosts
// (../diagnosis/pcieHost.ts): three alike, one with an older NIC firmware, a GPU at x8, ACS left on.
import * as assert from 'node:assert/strict';
import { withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { pcieHost } from '../diagnosis/pcieHost';
import { probed, probedAs } from './fleetHosts';

const findingsOf = (r: FleetHostResult) => (r.diagnosis?.findings ?? []).filter((f) => f.id.startsWith('fleet.'));

describe('fleet differences of the PCIe fabric', () => {
  it('flags the host whose NIC firmware, GPU link width and ACS differ from the other three, each as its own finding', async () => {
    const alike = await probedAs(['gpu01', 'gpu02', 'gpu03'], pcieHost({ acsCtl: 0, iommuType: 'identity' }));
    // 28.41.1000: a real ConnectX-7 release (another 8-GPU node's ibv_devinfo), older than the fleet's 28.43.3608.
    const odd = await probed(
      'gpu04',
      pcieHost({
        acsCtl: 0x1d,
        iommuType: 'identity',
        fw: { mlx5_3: '28.41.1000' },
        patch: { '0000:3b:00.0': { current_link_width: '8' } },
      }),
    );
    const out = withFleetFindings([...alike, odd]);
    for (let i = 0; i < 3; i++) assert.deepEqual(findingsOf(out[i]), [], out[i].host);
    const byId = new Map(findingsOf(out[3]).map((f) => [f.id, f]));
    assert.deepEqual([...byId.keys()].sort(), ['fleet.acs-differs', 'fleet.firmware-differs', 'fleet.link-width-differs']);
    assert.deepEqual(byId.get('fleet.firmware-differs')?.evidence, [
      '/sys/class/infiniband/mlx5_3/fw_ver: 28.41.1000 here, 28.43.3608 on 3 of 4 hosts',
    ]);
    assert.deepEqual(byId.get('fleet.link-width-differs')?.evidence, ['current_link_width of GPU1: x8 here, x16 on 3 of 4 hosts']);
    const acs = byId.get('fleet.acs-differs')?.evidence ?? [];
    // Per bridge: at x8 GPU1 reaches the network through GPU0 (PXN), so the pairs differ, but not the bridges' ACS.
    assert.equal(acs[0], 'ACS of bridge 0000:17:01.0 (lspci ACSCtl): redirects here, does not redirect on 3 of 4 hosts');
    assert.equal(acs.length, 14);
    assert.equal(out[3].status, 'findings');
  });

  it('a GPU at x8 (NCCL then pairs it through an NVLink peer) with the same ACS is no ACS difference', async () => {
    const alike = await probedAs(['gpu01', 'gpu02', 'gpu03'], pcieHost({ acsCtl: 0, iommuType: 'identity' }));
    const x8 = await probed(
      'gpu04',
      pcieHost({ acsCtl: 0, iommuType: 'identity', patch: { '0000:3b:00.0': { current_link_width: '8' } } }),
    );
    assert.deepEqual(
      findingsOf(withFleetFindings([...alike, x8])[3]).map((f) => f.id),
      ['fleet.link-width-differs'],
    );
  });

  it('says nothing with fewer than three hosts, or where ACS could not be read', async () => {
    const two = withFleetFindings([await probed('a', pcieHost()), await probed('b', pcieHost({ fw: { mlx5_0: '28.41.1000' } }))]);
    assert.deepEqual(two.flatMap(findingsOf), []);
    const unread = withFleetFindings([
      ...(await probedAs(['a', 'b', 'c'], pcieHost({ acsCtl: 0 }))),
      await probed('d', pcieHost({ acsUnread: true })),
    ]);
    assert.deepEqual(unread.flatMap(findingsOf), []);
  });
});

describe('fleet.ib-rate-differs', () => {
  const IB = Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`mlx5_${i}`, 'InfiniBand']));
  const all = (rate: string) => Object.fromEntries(Object.keys(IB).map((d) => [d, rate]));

  it('a host whose ports all run 2X where the fleet runs 4X NDR: flagged, port by port', async () => {
    const alike = await probedAs(['gpu01', 'gpu02', 'gpu03'], pcieHost({ linkLayers: IB, rates: all('400 Gb/sec (4X NDR)') }));
    const odd = await probed('gpu04', pcieHost({ linkLayers: IB, rates: all('100 Gb/sec (2X HDR)') }));
    const out = withFleetFindings([...alike, odd]);
    for (let i = 0; i < 3; i++) assert.deepEqual(findingsOf(out[i]), [], out[i].host);
    const f = findingsOf(out[3]);
    assert.deepEqual(
      f.map((x) => x.id),
      ['fleet.ib-rate-differs'],
    );
    assert.equal(f[0].evidence[0], 'mlx5_0:1: 2X HDR, 100 Gb/s here, 4X NDR, 400 Gb/s on 3 of 4 hosts');
    assert.equal(f[0].evidence.length, 8);
  });

  it('a fleet of HDR100 hosts: nothing', async () => {
    const hosts = await probedAs(['gpu01', 'gpu02', 'gpu03', 'gpu04'], pcieHost({ linkLayers: IB, rates: all('100 Gb/sec (2X HDR)') }));
    for (const r of withFleetFindings(hosts)) assert.deepEqual(findingsOf(r), [], r.host);
  });
});
