// One rule for hosts that could not be diagnosed, whether picked in the Hosts view or a fleet's:
// a single host and a whole fleet failing are both errors; some of many, a warning naming them.
import * as assert from 'node:assert/strict';
import { failureNotice } from '../../../src/vscode/hosts/failureNotice';

const fail = (host: string, step = 'tcp') => ({ host, message: `${host}: connection refused (${step})` });

describe('failureNotice: telling the user hosts could not be diagnosed', () => {
  it('says nothing when every host was diagnosed', () => {
    assert.equal(failureNotice(3, []), undefined);
  });

  it('one host that failed: an error with its own message', () => {
    assert.deepEqual(failureNotice(1, [fail('gpu01')]), {
      severity: 'error',
      message: 'Diagnose failed: gpu01: connection refused (tcp)',
      hosts: ['gpu01'],
    });
  });

  it('a fleet where every host fails is an error too, as a single host is', () => {
    const n = failureNotice(3, [fail('gpu01'), fail('gpu02'), fail('gpu03')], 'rack1');
    assert.equal(n?.severity, 'error');
    assert.equal(n?.message, 'Diagnose failed for all 3 hosts of fleet rack1. First: gpu01: connection refused (tcp)');
    assert.deepEqual(n?.hosts, ['gpu01', 'gpu02', 'gpu03']);
    // The same rule whether the hosts make a fleet or were picked together in the view.
    assert.equal(failureNotice(3, [fail('a'), fail('b'), fail('c')])?.severity, 'error');
    assert.equal(failureNotice(1, [fail('gpu01')], 'rack1')?.severity, 'error');
  });

  it('some of many: a warning naming them (four, then how many more)', () => {
    const failed = ['gpu01', 'gpu02', 'gpu03', 'gpu04', 'gpu05', 'gpu06'].map((h) => fail(h));
    const n = failureNotice(64, failed, 'rack1');
    assert.equal(n?.severity, 'warning');
    assert.equal(
      n?.message,
      '6 of 64 hosts of fleet rack1 could not be diagnosed (gpu01, gpu02, gpu03, gpu04 +2 more). First: gpu01: connection refused (tcp)',
    );
    assert.equal(n?.hosts.length, 6);
    assert.equal(
      failureNotice(2, [fail('gpu02')])?.message,
      '1 of 2 hosts could not be diagnosed (gpu02). gpu02: connection refused (tcp)',
    );
  });
});
