import * as assert from 'node:assert/strict';
import { ChangeListeners, safeList, SharedRuns } from '../../../src/vscode/modelSupport';

describe('what the host and fleet models share', () => {
  it('calls every listener once per change, also when one stops listening while called', () => {
    const listeners = new ChangeListeners();
    const calls: string[] = [];
    const first = listeners.add(() => {
      calls.push('first');
      first.dispose();
    });
    listeners.add(() => calls.push('second'));
    listeners.fire();
    listeners.fire();
    assert.deepEqual(calls, ['first', 'second', 'second']);
  });

  it('reads an unreadable source as an empty list', () => {
    assert.deepEqual(
      safeList(() => ['a', 'b']),
      ['a', 'b'],
    );
    assert.deepEqual(
      safeList(() => {
        throw new Error('ssh_config: permission denied');
      }),
      [],
    );
  });

  it('runs one diagnosis per host at a time: a second request joins the running one', async () => {
    const runs = new SharedRuns<string>();
    let started = 0;
    let finish: (v: string) => void = () => undefined;
    const start = () => {
      started++;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const first = runs.run('demo', start, new AbortController().signal);
    const second = runs.run('demo', start, new AbortController().signal);
    const other = runs.run('gpu01', () => Promise.resolve('gpu01 done'), new AbortController().signal);
    assert.equal(started, 1, 'the second request for the same host started nothing');
    assert.equal(runs.has('demo'), true);
    finish('demo done');
    assert.deepEqual(await Promise.all([first, second, other]), ['demo done', 'demo done', 'gpu01 done']);
    assert.equal(runs.has('demo'), false, 'a finished run is forgotten');
    const again = runs.run('demo', start, new AbortController().signal);
    assert.equal(started, 2, 'a request after the run ended starts a new one');
    finish('demo again');
    assert.equal(await again, 'demo again');
  });

  it('a joiner that cancels stops waiting; the run goes on for the one who started it', async () => {
    const runs = new SharedRuns<string>();
    let finish: (v: string) => void = () => undefined;
    const first = runs.run('demo', () => new Promise<string>((resolve) => (finish = resolve)), new AbortController().signal);
    const cancel = new AbortController();
    const joined = runs.run('demo', () => Promise.resolve('never'), cancel.signal);
    cancel.abort();
    assert.equal(await joined, undefined);
    finish('demo done');
    assert.equal(await first, 'demo done');
  });

  it('a failed run fails its joiners too, and is forgotten', async () => {
    const runs = new SharedRuns<string>();
    let fail: (e: Error) => void = () => undefined;
    const first = runs.run('h', () => new Promise<string>((_, reject) => (fail = reject)), new AbortController().signal);
    const second = runs.run('h', () => Promise.resolve('never'), new AbortController().signal);
    fail(new Error('connection reset'));
    await assert.rejects(first, /connection reset/);
    await assert.rejects(second, /connection reset/);
    assert.equal(runs.has('h'), false);
  });
});
