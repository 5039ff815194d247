// What changed between two diagnoses of a host, from hosts probed from real saved outputs: a host whose
// peer-memory module went, a NIC that trained narrower, new firmware; and the reports as
// `diagnose --json` writes them, read back (one host, a fleet, and documents that are not reports).
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { fleetJson } from '../../../src/core/fleet/fleetReport';
import { groupFleet } from '../../../src/core/fleet/grouping';
import { diagnosisJson } from '../../../src/core/report/diagnosisReport';
import { diffHost, diffSnapshots, hasChanges } from '../../../src/core/watch/diff';
import { diffHeadline, formatDiff } from '../../../src/core/watch/diffText';
import { ReportDocumentError, snapshotsOfDocument } from '../../../src/core/watch/reportDocument';
import { HostSnapshot, hostSnapshot } from '../../../src/core/watch/snapshot';
import { labFleet } from '../fleet/fleet';
import { hostReport } from '../diagnosis/hostReport';
import { snapshotOf } from './snapshots';
import { HEALTHY, NO_PEERMEM } from '../diagnosis/hosts';
import { pcieHost } from '../diagnosis/pcieHost';

describe('what changed on a host', () => {
  let healthy: HostSnapshot;
  let noPeermem: HostSnapshot;
  before(async () => {
    healthy = await snapshotOf(HEALTHY);
    noPeermem = await snapshotOf(NO_PEERMEM);
  });

  it('the same host twice: nothing changed, nothing worse', () => {
    const d = diffHost(healthy, { ...healthy, collectedAt: '2030-01-01T00:00:00.000Z' });
    assert.equal(hasChanges(d), false);
    assert.equal(d.worse, false);
    assert.equal(diffHeadline(d), undefined);
  });

  it('nvidia_peermem unloaded: the new error, every GPU losing GPUDirect RDMA, the module; worse', () => {
    const d = diffHost(healthy, noPeermem);
    assert.equal(d.worse, true);
    assert.deepEqual(
      d.appeared.map((f) => `${f.severity} ${f.id}`),
      ['error peermem.not-loaded', 'warning peermem.not-persistent'],
    );
    assert.deepEqual(
      d.went.map((f) => f.id),
      ['dmabuf.available'],
    );
    assert.equal(d.gpus.length, 8);
    assert.ok(d.gpus.every((g) => g.from?.gdr === true && g.to?.gdr === false));
    assert.deepEqual(d.modules, [{ key: 'nvidia_peermem', from: true, to: false }]);
    assert.equal(diffHeadline(d), 'nvidia_peermem unloaded');
    const text = formatDiff(diffSnapshots([healthy], [noPeermem]));
    assert.match(text, /^1 of 1 host\(s\) changed, 1 got worse\.$/m);
    assert.match(text, /^ {2}\+ error {3}peermem\.not-loaded: nvidia_peermem is not loaded$/m);
    assert.match(text, /^ {2}GPU0: GDR yes → no \(mlx5_0, mlx5_1 PXB → mlx5_0, mlx5_1 PHB\)$/m);
    assert.match(text, /^ {2}nvidia_peermem unloaded$/m);
  });

  it('the module loaded again: told, not worse', () => {
    const d = diffHost(noPeermem, healthy);
    assert.equal(d.worse, false);
    assert.deepEqual(d.modules, [{ key: 'nvidia_peermem', from: false, to: true }]);
    assert.deepEqual(
      d.went.map((f) => f.id),
      ['peermem.not-loaded', 'peermem.not-persistent'],
    );
  });

  it('a NIC trained narrower and new NIC firmware: the link and the version, worse for the link', async () => {
    const before = await snapshotOf(pcieHost());
    const after = await snapshotOf(pcieHost({ patch: { '0000:1a:00.0': { current_link_width: '8' } }, fw: { mlx5_0: '28.44.1036' } }));
    const d = diffHost(before, after);
    assert.equal(d.worse, true);
    assert.deepEqual(d.links, [{ device: 'mlx5_0', kind: 'nic', field: 'width', from: 16, to: 8 }]);
    assert.deepEqual(d.versions, [{ key: 'firmware mlx5_0', from: '28.43.3608', to: '28.44.1036' }]);
    assert.match(formatDiff(diffSnapshots([before], [after])), /^ {2}mlx5_0: PCIe width x16 → x8$/m);
    // New firmware alone is told, not judged.
    const fwOnly = diffHost(before, await snapshotOf(pcieHost({ fw: { mlx5_0: '28.44.1036' } })));
    assert.equal(fwOnly.worse, false);
    assert.equal(hasChanges(fwOnly), true);
  });

  it("a GPU's link speed is not compared: GPUs lower it when idle", async () => {
    const busy = await snapshotOf(pcieHost());
    const idle = await snapshotOf(pcieHost({ patch: { '0000:19:00.0': { current_link_speed: '2.5 GT/s PCIe' } } }));
    assert.equal(idle.links.find((l) => l.device === 'GPU0')?.speed, 2.5);
    const d = diffHost(busy, idle);
    assert.deepEqual(d.links, []);
    assert.equal(d.worse, false);
  });

  it('a GPU whose verdict became unknown got worse: unknown is never yes', () => {
    const unknown = { ...healthy, gpus: healthy.gpus.map((g, i) => (i === 3 ? { ...g, gdr: null } : g)) };
    const d = diffHost(healthy, unknown);
    assert.equal(d.worse, true);
    assert.match(formatDiff(diffSnapshots([healthy], [unknown])), /^ {2}GPU3: GDR yes → unknown /m);
  });
});

describe('reports as diagnose --json writes them', () => {
  it('one host: read back, the same snapshot as the live diagnosis', async () => {
    const report = { ...(await hostReport(pcieHost())), host: 'hgx01' };
    const diagnosis = diagnose(report);
    const doc = JSON.parse(JSON.stringify(diagnosisJson(report, diagnosis)));
    assert.deepEqual(snapshotsOfDocument(doc), [hostSnapshot(report, diagnosis)]);
  });

  it('a fleet: one snapshot per host, unreachable hosts with their error', async () => {
    const results = await labFleet();
    const doc = JSON.parse(JSON.stringify(fleetJson(results, groupFleet(results))));
    const snapshots = snapshotsOfDocument(doc);
    assert.deepEqual(
      snapshots.map((s) => s.host),
      results.map((r) => r.host),
    );
    const gpu12 = snapshots.find((s) => s.host === 'gpu12');
    assert.ok(gpu12?.error, 'unreachable gpu12 carries its error');
    // The fleet twice, gpu07 (no peermem) fixed: only gpu07 changed, and not for the worse.
    const fixed = snapshots.map((s) => (s.host === 'gpu07' ? { ...snapshots[0], host: 'gpu07' } : s));
    const diff = diffSnapshots(snapshots, fixed);
    assert.deepEqual(
      diff.hosts.filter(hasChanges).map((h) => h.host),
      ['gpu07'],
    );
    assert.equal(diff.worse, false);
    assert.equal(diffSnapshots(fixed, snapshots).worse, true);
  });

  it('refuses what is not a report, and reads a damaged one for what it holds, never as yes', () => {
    assert.throws(() => snapshotsOfDocument([]), ReportDocumentError);
    assert.throws(() => snapshotsOfDocument({ summary: 'x' }), /not a gdr-doctor report/);
    const [s] = snapshotsOfDocument({
      host: 'gpu01',
      commands: [{ id: 'lsmod', stdout: 42 }, 'junk'],
      findings: [
        { id: 'peermem.not-loaded', severity: 'fatal' },
        { id: 'rdma.none', severity: 'error', title: 7 },
      ],
      pairs: [{ gpu: 'GPU0', gdr: 'yes', nics: [{ nic: 'NIC0', device: 'mlx5_0', port: '1' }] }],
    });
    assert.deepEqual(s.findings, [{ id: 'rdma.none', severity: 'error', title: 'rdma.none' }]);
    assert.deepEqual(
      s.gpus.map((g) => [g.gpu, g.gdr, g.nics]),
      [['GPU0', null, ['mlx5_0']]],
    );
    assert.equal(s.complete, false);
  });
});
