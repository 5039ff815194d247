// Error counters behind a good-looking link, on the lab's HGX host as probe outputs (pcieHost.ts): AER
// totals of the devices on the GPU↔NIC paths and the ports' error counters, each read twice a second
// apart; a fleet shows the host whose counters are not zero.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { probed, probedAs } from '../fleet/fleetHosts';
import { hostReport } from './hostReport';
import { ids, only } from './hosts';
import { pcieHost } from './pcieHost';

describe('pcie.aer-errors and ib.port-errors', () => {
  it('zero counters: nothing', async () => {
    const d = diagnose(
      await hostReport(pcieHost({ aer: { '0000:19:00.0': { now: [0, 0, 0] } }, portCounters: { mlx5_0: { now: [0, 0, 0, 0] } } })),
    );
    assert.ok(!ids(d.findings).includes('pcie.aer-errors'));
    assert.ok(!ids(d.findings).includes('ib.port-errors'));
  });

  it('correctable errors that stay: information; growing, or any uncorrectable: a warning naming the device', async () => {
    const still = only(
      diagnose(await hostReport(pcieHost({ aer: { '0000:17:01.0': { now: [37, 0, 0], later: [37, 0, 0] } } }))).findings,
      'pcie.aer-errors',
    );
    assert.equal(still.severity, 'info');
    assert.match(still.detail, /^bridge 0000:17:01\.0: 37 correctable, 0 fatal, 0 non-fatal\./);
    const growing = only(
      diagnose(await hostReport(pcieHost({ aer: { '0000:19:00.0': { now: [37, 0, 0], later: [41, 0, 0] } } }))).findings,
      'pcie.aer-errors',
    );
    assert.equal(growing.severity, 'warning');
    assert.match(growing.detail, /^GPU0 0000:19:00\.0: 37 correctable \(growing: 41 a second later\)/);
    assert.deepEqual(growing.evidence, [
      '/sys/bus/pci/devices/0000:19:00.0/aer_dev_*: TOTAL_ERR_COR 37 (then 41), TOTAL_ERR_FATAL 0, TOTAL_ERR_NONFATAL 0',
    ]);
    const fatal = only(diagnose(await hostReport(pcieHost({ aer: { '0000:1a:00.0': { now: [0, 0, 2] } } }))).findings, 'pcie.aer-errors');
    assert.deepEqual([fatal.severity, fatal.title], ['warning', 'PCIe errors (AER) on the GPU↔NIC paths: mlx5_0 0000:1a:00.0']);
  });

  it('port counters: since boot, information; growing while read, a warning', async () => {
    const old = only(
      diagnose(await hostReport(pcieHost({ portCounters: { mlx5_2: { now: [12, 0, 1, 0], later: [12, 0, 1, 0] } } }))).findings,
      'ib.port-errors',
    );
    assert.equal(old.severity, 'info');
    assert.match(old.detail, /^mlx5_2:1: symbol_error 12, link_error_recovery 1\./);
    const now = only(
      diagnose(await hostReport(pcieHost({ portCounters: { mlx5_2: { now: [12, 0, 1, 0], later: [19, 0, 1, 0] } } }))).findings,
      'ib.port-errors',
    );
    assert.deepEqual([now.severity, now.title], ['warning', 'RDMA port error counters growing: mlx5_2:1']);
    assert.match(now.detail, /symbol_error 12 → 19/);
  });

  it('a fleet shows the outlier: the one host whose counters are not zero', async () => {
    const clean = {
      aer: { '0000:19:00.0': { now: [0, 0, 0] as [number, number, number] } },
      portCounters: { mlx5_0: { now: [0, 0, 0, 0] } },
    };
    const alike = await probedAs(['gpu01', 'gpu02', 'gpu03'], pcieHost(clean));
    const odd = await probed('gpu04', pcieHost({ ...clean, portCounters: { mlx5_0: { now: [5, 0, 0, 0] } } }));
    const out = withFleetFindings([...alike, odd]);
    const fleet = (i: number) => (out[i].diagnosis?.findings ?? []).filter((f) => f.id.startsWith('fleet.')).map((f) => f.id);
    assert.deepEqual([fleet(0), fleet(1), fleet(2), fleet(3)], [[], [], [], ['fleet.errors-differ']]);
    assert.deepEqual(out[3].diagnosis?.findings.find((f) => f.id === 'fleet.errors-differ')?.evidence, [
      'error counters of mlx5_0:1: errors here, none on 3 of 4 hosts',
    ]);
  });
});
