// Watch's memory of a host: successive outcomes (hosts probed from real saved outputs) compared as
// `gdr-doctor diff` compares reports, the change on the host's row, bounded history.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import type { Outcome } from '../../../src/vscode/hosts/hostModel';
import { KEPT_REPORTS, WatchHistory } from '../../../src/vscode/watch/watchHistory';
import { watchRow } from '../../../src/vscode/tree/watchRow';
import { HostFiles, hostReport } from '../diagnosis/hostReport';
import { HEALTHY, NO_PEERMEM } from '../diagnosis/hosts';

async function diagnosed(files: HostFiles, at: string): Promise<Outcome> {
  const report = { ...(await hostReport(files)), host: 'gpu01' };
  return { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date(at) };
}

describe('Watch: what changed on a watched host', () => {
  let healthy: Outcome;
  let unloaded: Outcome;
  before(async () => {
    healthy = await diagnosed(HEALTHY, '2026-01-02T14:05:00Z');
    unloaded = await diagnosed(NO_PEERMEM, '2026-01-02T14:20:00Z');
  });

  it('the first outcome is the baseline; the same one again changes nothing', () => {
    const history = new WatchHistory();
    assert.equal(history.record('ssh:gpu01', healthy), undefined);
    assert.equal(history.record('ssh:gpu01', healthy), undefined);
    assert.equal(history.record('ssh:gpu01', { ...healthy, finishedAt: new Date('2026-01-02T14:10:00Z') }), undefined);
    assert.equal(history.reports('ssh:gpu01').length, 2);
  });

  it('nvidia_peermem unloaded since the last diagnosis: the headline, worse, every change in words', () => {
    const history = new WatchHistory();
    history.record('ssh:gpu01', healthy);
    const change = history.record('ssh:gpu01', unloaded);
    assert.ok(change);
    assert.deepEqual(
      [change.headline, change.worse, change.since.toISOString()],
      ['nvidia_peermem unloaded', true, '2026-01-02T14:05:00.000Z'],
    );
    assert.ok(change.lines.includes('+ error   peermem.not-loaded: nvidia_peermem is not loaded'), change.lines.join('\n'));
    assert.ok(change.lines.includes('nvidia_peermem unloaded'));
    // Loaded again: told, not worse.
    const back = history.record('ssh:gpu01', { ...healthy, finishedAt: new Date('2026-01-02T14:35:00Z') });
    assert.deepEqual([back?.headline, back?.worse], ['nvidia_peermem loaded', false]);
  });

  it('a host that stops answering got worse; the same outcome recomputed (new NCCL settings) is no change', () => {
    const history = new WatchHistory();
    history.record('ssh:gpu01', healthy);
    const failed: Outcome = {
      kind: 'failed',
      step: 'tcp',
      message: 'gpu01: connection refused',
      finishedAt: new Date('2026-01-02T14:20:00Z'),
    };
    assert.deepEqual(
      (({ headline, worse }) => ({ headline, worse }))(history.record('ssh:gpu01', failed) ?? { headline: '', worse: false }),
      { headline: 'not diagnosed to the end', worse: true },
    );
    const recomputed = { ...unloaded, finishedAt: failed.finishedAt };
    assert.equal(history.record('ssh:gpu01', recomputed), undefined);
  });

  it(`keeps the last ${KEPT_REPORTS} outcomes of a host`, () => {
    const history = new WatchHistory();
    for (let i = 0; i < KEPT_REPORTS + 3; i++)
      history.record('ssh:gpu01', { ...healthy, finishedAt: new Date(Date.UTC(2026, 0, 2, 14, i)) });
    assert.equal(history.reports('ssh:gpu01').length, KEPT_REPORTS);
    history.forget('ssh:gpu01');
    assert.equal(history.reports('ssh:gpu01').length, 0);
  });

  it("the host's watch row: the change since when, red when worse; otherwise only that it is watched", () => {
    const change = {
      since: new Date('2026-01-02T14:05:00Z'),
      headline: 'nvidia_peermem unloaded',
      worse: true,
      lines: ['nvidia_peermem unloaded'],
    };
    const row = watchRow('ssh:gpu01', 'ssh:gpu01', { everyMinutes: 10, change });
    assert.equal(row.kind, 'row');
    if (row.kind !== 'row') return;
    assert.match(row.label, /^Since .+: nvidia_peermem unloaded$/);
    assert.equal(row.label, `Since ${change.since.toLocaleTimeString()}: nvidia_peermem unloaded`);
    assert.deepEqual([row.tone, row.description], ['error', 'watching every 10 min']);
    const idle = watchRow('ssh:gpu01', 'ssh:gpu01', { everyMinutes: 10 });
    assert.equal(idle.kind === 'row' && idle.label, 'Watching');
  });
});
