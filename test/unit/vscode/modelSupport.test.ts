import * as assert from 'node:assert/strict';
import { ChangeListeners, safeList } from '../../../src/vscode/modelSupport';

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
});
