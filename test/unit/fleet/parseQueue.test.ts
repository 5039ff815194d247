// The relay's parse queue: nodes parsed one at a time, each between reads of the tool's output, and
// reading paused (not buffered without end) while too many ended nodes wait.
import * as assert from 'node:assert/strict';
import { ParseQueue } from '../../../src/core/fleet/relay/parseQueue';
import { pauseOnBacklog } from '../../../src/core/probe/streamCaps';

const tick = () => new Promise((r) => setImmediate(r));

describe('relay parse queue', () => {
  it('runs the tasks one at a time, in order, and gives each its result', async () => {
    const q = new ParseQueue(10);
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name.toUpperCase();
    };
    const results = await Promise.all(['a', 'b', 'c'].map((n) => q.add(task(n))));
    assert.deepEqual(results, ['A', 'B', 'C']);
    assert.deepEqual(log, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('starts no task in the call that adds it: what is being read goes on first', () => {
    const q = new ParseQueue(10);
    let started = false;
    void q.add(async () => void (started = true));
    assert.equal(started, false);
  });

  it('has a backlog while more than its limit wait, until half of them are done', async () => {
    const q = new ParseQueue(4);
    const done = Array.from({ length: 6 }, () => q.add(async () => tick()));
    const backlog = q.backlog();
    assert.ok(backlog, 'six waiting, limit four');
    let settled = false;
    void backlog.then(() => (settled = true));
    await done[1];
    await tick();
    await tick();
    assert.equal(settled, false, 'the third has started: three still wait');
    await done[2];
    await tick();
    await tick();
    assert.equal(settled, true, 'the fourth has started: two wait, half the limit');
    assert.equal(q.backlog(), undefined);
    await Promise.all(done);
  });

  it('pauses a stream while its sink has a backlog, and resumes it after', async () => {
    const calls: string[] = [];
    const stream = { pause: () => calls.push('pause'), resume: () => calls.push('resume') };
    let release = () => undefined as void;
    const wait = new Promise<void>((r) => (release = r));
    pauseOnBacklog({ write: () => true, backlog: () => wait }, stream);
    pauseOnBacklog({ write: () => true, backlog: () => undefined }, stream);
    assert.deepEqual(calls, ['pause']);
    release();
    await tick();
    assert.deepEqual(calls, ['pause', 'resume']);
  });
});
