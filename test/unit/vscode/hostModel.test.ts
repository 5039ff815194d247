import * as assert from 'node:assert/strict';
import { DEMO_HOST, HostModel, LOCAL_HOST, sshHostId } from '../../../src/vscode/hosts/hostModel';

function model(config: string[], added: string[]) {
  let reads = 0;
  const m = new HostModel({
    configHosts: () => {
      reads++;
      return config;
    },
    addedHosts: () => added,
  });
  return { m, reads: () => reads };
}

describe('HostModel', () => {
  it('is empty with no remote host until this machine or the demo is asked for (the welcome shows)', () => {
    const { m } = model([], []);
    assert.deepEqual(m.hosts(), []);
    m.openDemo();
    assert.deepEqual(
      m.hosts().map((h) => h.id),
      ['demo'],
    );
    m.showLocal();
    assert.deepEqual(
      m.hosts().map((h) => h.id),
      ['local', 'demo'],
    );
    m.forget(DEMO_HOST.id);
    m.forget(LOCAL_HOST.id);
    assert.deepEqual(m.hosts(), []);
  });

  it('lists ssh_config hosts, then added ones (duplicates once), then this machine', () => {
    const { m } = model(['gpu-a', 'gpu-b'], ['root@10.0.0.5:2222', 'gpu-a']);
    assert.deepEqual(
      m.hosts().map((h) => [h.id, h.origin]),
      [
        ['ssh:gpu-a', 'ssh-config'],
        ['ssh:gpu-b', 'ssh-config'],
        ['ssh:root@10.0.0.5:2222', 'added'],
        ['local', 'local'],
      ],
    );
  });

  it('reads ssh_config once until invalidated, and survives an unreadable one', () => {
    const { m, reads } = model(['gpu-a'], []);
    m.hosts();
    m.hosts();
    assert.equal(reads(), 1);
    m.invalidate();
    m.hosts();
    assert.equal(reads(), 2);
    const broken = new HostModel({
      configHosts: () => {
        throw new Error('EACCES');
      },
      addedHosts: () => ['x'],
    });
    assert.deepEqual(
      broken.hosts().map((h) => h.id),
      ['ssh:x', 'local'],
    );
  });

  it('keeps the last good diagnosis when a later attempt fails, and tells listeners', () => {
    const { m } = model(['gpu-a'], []);
    let events = 0;
    m.onDidChange(() => events++);
    const id = sshHostId('gpu-a');
    m.setWorking(id, true);
    assert.equal(m.status(id).working, true);
    const diagnosed = { kind: 'diagnosed' as const, report: {} as never, diagnosis: {} as never, finishedAt: new Date() };
    m.setOutcome(id, diagnosed);
    m.setOutcome(id, { kind: 'failed', step: 'host-key', message: 'changed', finishedAt: new Date() });
    assert.equal(m.status(id).last?.kind, 'failed');
    assert.equal(m.status(id).lastDiagnosed, diagnosed);
    assert.equal(m.status(id).working, false);
    assert.equal(events, 3);
  });
});
