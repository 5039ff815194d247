import * as assert from 'node:assert/strict';
import { fleetJson, formatFleetSummary } from '../../../src/core/fleet/fleetReport';
import { groupFleet } from '../../../src/core/fleet/grouping';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { diagnosisJson } from '../../../src/core/report/diagnosisReport';
import { withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { printFleet } from '../../../src/cli/fleetOutput';
import { jsonText } from '../../../src/cli/visible';
import { labFleet } from './fleet';

describe('fleet report (CLI text, JSON)', () => {
  let fleet: FleetHostResult[];
  before(async () => {
    fleet = await labFleet();
  });

  it('prints the summary, then one clush -b block per group with the folded hosts and what they share', () => {
    const text = formatFleetSummary(fleet, groupFleet(fleet), {});
    const rule = '-'.repeat(15);
    assert.equal(
      text,
      [
        '6 hosts healthy · 3 hosts peermem.not-loaded, peermem.not-persistent · 1 host topo.nic-far, fleet.topology-differs · 2 unreachable (auth) · 1 unreachable (tcp)',
        '',
        rule,
        'gpu12 (1)',
        rule,
        'unreachable (tcp): gpu12: connection refused',
        '',
        rule,
        'gpu10 (1)',
        rule,
        'warning topo.nic-far: GPU4, GPU5, GPU6, GPU7: nearest usable NIC is SYS; NCCL 2.30.7 will not use GPUDirect RDMA for them',
        'warning fleet.topology-differs: Topology differs from the other hosts',
        '',
        rule,
        'gpu[11,13] (2)',
        rule,
        'unreachable (auth) (first of 2): gpu11: authentication failed (every method was refused)',
        '',
        rule,
        'gpu[07-09] (3)',
        rule,
        'error   peermem.not-loaded: nvidia_peermem is not loaded',
        'warning peermem.not-persistent: nvidia_peermem is not loaded at boot',
        '',
        rule,
        'gpu[01-06] (6)',
        rule,
        'healthy: no errors or warnings',
        '',
      ].join('\n'),
    );
    assert.ok(formatFleetSummary(fleet, groupFleet(fleet), { each: true }).endsWith(`\n\n${rule}\n`));
  });

  it('gives JSON with the grouping and one diagnose --json report per host that answered', () => {
    const groups = groupFleet(fleet);
    const json = JSON.parse(JSON.stringify(fleetJson(fleet, groups))) as ReturnType<typeof fleetJson>;
    assert.equal(json.summary.split(' · ').length, 5);
    assert.deepEqual(
      json.groups.map((g) => g.folded),
      ['gpu12', 'gpu10', 'gpu[11,13]', 'gpu[07-09]', 'gpu[01-06]'],
    );
    assert.deepEqual(json.groups[3].findingIds, ['peermem.not-loaded', 'peermem.not-persistent']);
    assert.deepEqual(
      json.hosts.map((h) => h.host),
      fleet.map((r) => r.host),
    );
    const gpu07 = fleet[6];
    assert.deepEqual(json.hosts[6].report, JSON.parse(JSON.stringify(diagnosisJson(gpu07.report!, gpu07.diagnosis!, gpu07.target))));
    assert.deepEqual(
      json.hosts[6].report?.findings.map((f) => f.id),
      gpu07.diagnosis?.findings.map((f) => f.id),
    );
    assert.deepEqual(json.hosts[11], {
      host: 'gpu12',
      status: 'unreachable',
      path: 'direct',
      durationMs: 12,
      error: { step: 'tcp', message: 'gpu12: connection refused' },
    });
    assert.equal('error' in json.hosts[0], false);
  });

  it('the CLI writes that JSON a host at a time, the same text as in one piece', async () => {
    const writes: string[] = [];
    const io = { stdout: (t: string) => void writes.push(t), stderr: () => undefined, readInput: () => '' };
    await printFleet(fleet, io, { json: true, each: false });
    // The grouping (withFleetFindings) as printFleet does it, then the whole document at once.
    const results = withFleetFindings([...fleet]);
    assert.equal(writes.join(''), jsonText(fleetJson(results, groupFleet(results))));
    // One write for the head, one per host, one for the end: no write holds the whole fleet.
    assert.equal(writes.length, fleet.length + 2);
    const empty: string[] = [];
    await printFleet([], { ...io, stdout: (t: string) => void empty.push(t) }, { json: true, each: false });
    assert.equal(empty.join(''), jsonText(fleetJson([], groupFleet([]))));
  });

  it('lists names outside the host-list alphabet as they are instead of failing', () => {
    const odd: FleetHostResult = { ...fleet[11], host: 'my+alias' };
    const json = fleetJson([odd], groupFleet([odd]));
    assert.equal(json.groups[0].folded, 'my+alias');
  });
});
