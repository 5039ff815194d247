import * as assert from 'node:assert/strict';
import { fleetSummaryLine, groupFleet } from '../../../src/core/fleet/grouping';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { HEALTHY } from '../diagnosis/hosts';
import { labFleet } from './fleet';
import { probedAs } from './fleetHosts';

describe('fleet grouping (as clush -b groups identical output)', () => {
  let fleet: FleetHostResult[];
  before(async () => {
    fleet = await labFleet();
  });

  it('groups by status and error/warning ids, outliers first', () => {
    const groups = groupFleet(fleet);
    assert.deepEqual(
      groups.map((g) => [g.label, g.status, g.hosts]),
      [
        ['unreachable (tcp)', 'unreachable', ['gpu12']],
        ['topo.nic-far, fleet.topology-differs', 'findings', ['gpu10']],
        ['unreachable (auth)', 'unreachable', ['gpu11', 'gpu13']],
        ['peermem.not-loaded, peermem.not-persistent', 'findings', ['gpu07', 'gpu08', 'gpu09']],
        ['healthy', 'ok', ['gpu01', 'gpu02', 'gpu03', 'gpu04', 'gpu05', 'gpu06']],
      ],
    );
    assert.deepEqual(groups[3].findingIds, ['peermem.not-loaded', 'peermem.not-persistent']);
    assert.deepEqual(groups[4].findingIds, []);
    assert.equal(new Set(groups.map((g) => g.key)).size, groups.length);
  });

  it('ignores info findings: hosts that differ only there share the healthy group', () => {
    const [gpu01, gpu06] = [fleet[0], fleet[5]];
    const info = (r: FleetHostResult) => (r.diagnosis?.findings ?? []).filter((f) => f.severity === 'info').map((f) => f.id);
    assert.notDeepEqual(info(gpu01), info(gpu06));
    assert.equal(groupFleet([gpu01, gpu06]).length, 1);
  });

  it('puts hosts that never answered before findings before healthy when groups are the same size', () => {
    const one = (i: number) => [fleet[i]];
    const groups = groupFleet([...one(0), ...one(6), ...one(11)]);
    assert.deepEqual(
      groups.map((g) => g.status),
      ['unreachable', 'findings', 'ok'],
    );
  });

  it('keys a timed-out or cancelled host by its status, whatever part of the probe arrived', () => {
    const cut: FleetHostResult = {
      ...fleet[6],
      status: 'timed-out',
      error: { step: 'deadline', message: 'per-host deadline (120 s) reached' },
    };
    const stopped: FleetHostResult = { ...fleet[7], status: 'cancelled', error: { step: 'cancelled', message: 'cancelled by the user' } };
    const groups = groupFleet([cut, stopped, fleet[8]]);
    assert.deepEqual(
      groups.map((g) => [g.label, g.findingIds.length]),
      [
        ['cancelled', 0],
        ['timed out', 0],
        ['peermem.not-loaded, peermem.not-persistent', 2],
      ],
    );
  });

  it('says it in one line: healthy first, then by size, "host" for one', () => {
    assert.equal(
      fleetSummaryLine(groupFleet(fleet)),
      '6 hosts healthy · 3 hosts peermem.not-loaded, peermem.not-persistent · 1 host topo.nic-far, fleet.topology-differs · 2 unreachable (auth) · 1 unreachable (tcp)',
    );
    assert.equal(fleetSummaryLine([]), 'no hosts');
  });

  it('reads 60 healthy hosts as one group', async () => {
    const many = await probedAs(
      Array.from({ length: 60 }, (_, i) => `node-${i + 1}`),
      HEALTHY,
    );
    assert.equal(fleetSummaryLine(groupFleet(many)), '60 hosts healthy');
  });
});
