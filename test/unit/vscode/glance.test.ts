// A verdict at a glance: what a host's row says and which icon it gets (by verdict, not by
// reachability), and the error count the Hosts view's badge shows, from real probe reports (fixtures).
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { statusOfProbe } from '../../../src/core/fleet/status';
import type { FleetHostResult } from '../../../src/core/fleet/types';
import { errorTally, tallyText } from '../../../src/vscode/glance/errorTally';
import { FleetModel } from '../../../src/vscode/fleet/fleetModel';
import { fleetTone } from '../../../src/vscode/fleet/fleetNodes';
import { HostEntry, HostModel, sshHostId } from '../../../src/vscode/hosts/hostModel';
import { hostRow } from '../../../src/vscode/tree/hostRow';
import { LOADED_AND_PERSISTED, NEEDS_PEERMEM, report } from '../fixes/hosts';

const GPU01: HostEntry = { id: sshHostId('gpu01'), label: 'gpu01', kind: 'ssh', origin: 'ssh-config', destination: 'gpu01' };
const finishedAt = new Date(0);

async function diagnosedWith(files: Parameters<typeof report>[0]) {
  const r = await report(files);
  return { kind: 'diagnosed' as const, report: r, diagnosis: diagnose(r), finishedAt };
}

async function result(host: string, files: Parameters<typeof report>[0]): Promise<FleetHostResult> {
  const d = await diagnosedWith(files);
  return { host, status: statusOfProbe(d.report, d.diagnosis), path: 'direct', report: d.report, diagnosis: d.diagnosis, durationMs: 5 };
}
const down = (host: string): FleetHostResult => ({
  host,
  status: 'unreachable',
  path: 'direct',
  error: { step: 'tcp', message: `${host}: connection refused` },
  durationMs: 1,
});

describe('a host row at a glance', () => {
  it('not diagnosed: where it comes from, with its origin icon', () => {
    assert.deepEqual(hostRow(GPU01, { working: false }).description, 'ssh config');
    assert.equal(hostRow(GPU01, { working: false }).look, 'origin');
  });

  it('diagnosed: the verdict is the description and the icon', async () => {
    const broken = hostRow(GPU01, { working: false, last: await diagnosedWith(NEEDS_PEERMEM) });
    assert.equal(broken.description, 'peermem not loaded');
    assert.equal(broken.look, 'error');
    assert.equal(broken.errors, 1);
    const healthy = hostRow(GPU01, { working: false, last: await diagnosedWith(LOADED_AND_PERSISTED) });
    assert.match(healthy.description, /^GDR \d+\/\d+ GPUs?$/);
    assert.notEqual(healthy.look, 'error');
  });

  it('unreachable: says the step, with its own icon (no verdict to show)', () => {
    const row = hostRow(GPU01, { working: false, last: { kind: 'failed', step: 'auth', message: 'gpu01: permission denied', finishedAt } });
    assert.deepEqual([row.description, row.look], ['unreachable (auth)', 'unreachable']);
    assert.equal(
      hostRow(GPU01, { working: false, last: { kind: 'failed', step: 'host-key', message: 'x', finishedAt } }).description,
      'host key refused',
    );
  });
});

describe('the Hosts view badge: errors across hosts and fleets', () => {
  it('counts error findings and unreachable hosts, each host once', async () => {
    const model = new HostModel({ configHosts: () => ['gpu01'], addedHosts: () => [] });
    model.setOutcome(GPU01.id, await diagnosedWith(NEEDS_PEERMEM));
    const fleets = new FleetModel(() => [{ name: 'lab', hosts: 'gpu[01-03]' }]);
    // gpu01 is listed and in the fleet: counted once.
    const probed = [await result('gpu01', NEEDS_PEERMEM), await result('gpu02', LOADED_AND_PERSISTED), down('gpu03')];
    fleets.setResults('lab', probed);
    for (const r of probed)
      model.setOutcome(
        sshHostId(r.host),
        r.report
          ? { kind: 'diagnosed', report: r.report, diagnosis: r.diagnosis as NonNullable<typeof r.diagnosis>, finishedAt }
          : { kind: 'failed', step: 'tcp', message: 'x', finishedAt },
      );
    const tally = errorTally(model, fleets);
    assert.deepEqual(tally, { count: 2, errorFindings: 1, hostsWithErrors: 1, unreachable: 1 });
    assert.equal(tallyText(tally), '1 error on 1 host, 1 host unreachable');
  });

  it('a fleet whose every host failed gets the error icon, not a neutral one', () => {
    const fleets = new FleetModel(() => [{ name: 'lab', hosts: 'gpu[01-02]' }]);
    assert.equal(fleetTone(fleets, 'lab'), undefined);
    fleets.setResults('lab', [down('gpu01'), down('gpu02')]);
    assert.equal(fleetTone(fleets, 'lab'), 'error');
  });
});
