// The fleet part of the Hosts tree, from real probe reports (fixtures): one node per fleet, its
// groups with the fixes the whole group can take, the hosts under a group expanding exactly like any
// host (ids scoped so a host shown twice stays unique), and hosts behind a login node kept apart.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { statusOfProbe } from '../../../src/core/fleet/status';
import type { FleetHostResult } from '../../../src/core/fleet/types';
import { HostModel, sshHostId } from '../../../src/vscode/hosts/hostModel';
import { directMembers, memberHostId, outcomeOf } from '../../../src/vscode/fleet/fleetMembers';
import { FleetModel } from '../../../src/vscode/fleet/fleetModel';
import { fleetChildren, fleetDescription, fleetRoots } from '../../../src/vscode/fleet/fleetNodes';
import { FleetConfig } from '../../../src/vscode/fleet/fleetSettings';
import { childNodes } from '../../../src/vscode/tree/hostNodes';
import type { HostsNode } from '../../../src/vscode/tree/nodes';
import { LOADED_AND_PERSISTED, NEEDS_PEERMEM, report } from '../fixes/hosts';

const DIRECT: FleetConfig = { name: 'lab', hosts: 'gpu[01-04]' };
const RELAYED: FleetConfig = { name: 'far', hosts: 'node[1-2]', via: 'login', with: 'slurm' };

async function probed(host: string, files: Parameters<typeof report>[0]): Promise<FleetHostResult> {
  const r = await report(files);
  const diagnosis = diagnose(r);
  return { host, status: statusOfProbe(r, diagnosis), path: 'direct', report: r, diagnosis, durationMs: 5 };
}

const unreachable: FleetHostResult = {
  host: 'gpu04',
  status: 'unreachable',
  path: 'direct',
  error: { step: 'timeout', message: 'gpu04: no SSH banner within 8 s' },
  durationMs: 8000,
};

async function diagnosedFleet(): Promise<FleetModel> {
  const fleets = new FleetModel(() => [DIRECT, RELAYED]);
  fleets.setResults('lab', [
    await probed('gpu01', LOADED_AND_PERSISTED),
    await probed('gpu02', NEEDS_PEERMEM),
    await probed('gpu03', NEEDS_PEERMEM),
    unreachable,
  ]);
  return fleets;
}

describe('Fleet tree nodes', () => {
  it('lists one node per fleet, "not diagnosed" until it is', () => {
    const fleets = new FleetModel(() => [DIRECT]);
    const [root] = fleetRoots(fleets);
    assert.equal(root.kind, 'fleet');
    assert.equal(fleetDescription(fleets.state('lab')), 'not diagnosed');
    assert.deepEqual(
      fleetChildren(root, fleets).map((n) => (n.kind === 'row' ? n.label : n.kind)),
      ['Not diagnosed yet'],
    );
    fleets.setRunning('lab', { done: 3, total: 4 });
    assert.equal(fleetDescription(fleets.state('lab')), 'diagnosing 3/4 hosts');
  });

  it('groups hosts with identical findings; the peermem group offers load-peermem to the whole group', async () => {
    const fleets = await diagnosedFleet();
    const groups = fleetChildren(fleetRoots(fleets)[0], fleets).filter(
      (n): n is HostsNode & { kind: 'fleetGroup' } => n.kind === 'fleetGroup',
    );
    assert.equal(
      groups.reduce((n, g) => n + g.group.hosts.length, 0),
      4,
    );
    const peermem = groups.find((g) => g.group.findingIds.includes('peermem.not-loaded'));
    assert.ok(peermem, groups.map((g) => g.group.label).join(' | '));
    assert.deepEqual([...peermem.group.hosts], ['gpu02', 'gpu03']);
    assert.ok(peermem.fixes.includes('load-peermem'));
    const down = groups.find((g) => g.group.status === 'unreachable');
    assert.deepEqual(down?.fixes, []);
    assert.match(fleetDescription(fleets.state('lab')), /unreachable/);
  });

  it("shows a group's hosts as host nodes that expand like any host, with ids of their own", async () => {
    const fleets = await diagnosedFleet();
    const model = new HostModel({ configHosts: () => ['gpu02'], addedHosts: () => [], fleetHosts: () => directMembers([DIRECT]) });
    for (const r of fleets.state('lab').results ?? []) {
      const o = outcomeOf(r, new Date());
      if (o) model.setOutcome(memberHostId(DIRECT, r.host), o);
    }
    const group = fleetChildren(fleetRoots(fleets)[0], fleets).find((n) => n.kind === 'fleetGroup' && n.group.hosts.includes('gpu02'));
    assert.ok(group);
    const [host] = fleetChildren(group, fleets);
    assert.equal(host.kind === 'host' ? [host.hostId, host.label].join(' ') : '', `${sshHostId('gpu02')} gpu02`);
    const children = childNodes(host, model);
    assert.deepEqual(
      children.map((c) => (c.kind === 'group' ? c.group : c.kind)),
      ['status', 'findings', 'gpus', 'nics', 'numa', 'modules', 'raw'],
    );
    assert.ok(
      children.every((c) => c.id.startsWith(`${host.id}/`)),
      'ids scoped under the fleet host',
    );
    const rootIds = childNodes({ kind: 'host', id: sshHostId('gpu02'), hostId: sshHostId('gpu02') }, model).map((c) => c.id);
    assert.ok(
      rootIds.every((id) => !children.some((c) => c.id === id)),
      'the same host at the root keeps other ids',
    );
    // A direct fleet's host is a host commands can act on; gpu04 is one too though never reached.
    assert.equal(model.get(sshHostId('gpu04'))?.origin, 'fleet');
    assert.equal(model.get(sshHostId('gpu02'))?.origin, 'ssh-config');
  });

  it('keeps hosts behind a login node apart (ids of their own fleet) with the same group fixes, and an unreachable host as failed', async () => {
    assert.equal(memberHostId(RELAYED, 'node1'), 'fleet:far/node1');
    assert.deepEqual(directMembers([DIRECT, RELAYED]), ['gpu01', 'gpu02', 'gpu03', 'gpu04']);
    const fleets = new FleetModel(() => [RELAYED]);
    fleets.setResults('far', [{ ...(await probed('node1', NEEDS_PEERMEM)), path: 'slurm' }]);
    const [group] = fleetChildren(fleetRoots(fleets)[0], fleets);
    assert.ok(group.kind === 'fleetGroup' && group.fixes.includes('load-peermem'), 'a group behind a login node is fixed through it');
    const failed = outcomeOf(unreachable, new Date());
    assert.deepEqual(failed && failed.kind === 'failed' ? [failed.step, failed.message] : [], [
      'timeout',
      'gpu04: no SSH banner within 8 s',
    ]);
    assert.equal(outcomeOf({ ...unreachable, status: 'cancelled', error: { step: 'cancelled', message: 'x' } }, new Date()), undefined);
  });

  it('a fix re-diagnosing some hosts replaces their results only', async () => {
    const fleets = await diagnosedFleet();
    fleets.updateHosts('lab', [await probed('gpu02', LOADED_AND_PERSISTED), await probed('gpu03', LOADED_AND_PERSISTED)]);
    const groups = fleets.state('lab').groups ?? [];
    assert.ok(!groups.some((g) => g.findingIds.includes('peermem.not-loaded')));
    assert.equal(fleets.state('lab').results?.length, 4);
    assert.ok(groups.some((g) => g.hosts.includes('gpu01') && g.hosts.includes('gpu02') && g.hosts.includes('gpu03')));
  });
});
