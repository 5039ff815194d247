import * as assert from 'node:assert/strict';
import { destinationProblem } from '../../../src/vscode/ssh/destinationInput';

describe('an SSH destination typed in an input box', () => {
  it('accepts what connects, and says what is wrong with the rest', () => {
    assert.equal(destinationProblem(' user@gpu-01:2222 '), undefined);
    assert.equal(destinationProblem('gpu-01:99999'), 'port out of range in "gpu-01:99999"');
    assert.equal(destinationProblem('user@'), '"user@" names no host: type one after the @ (user@host or user@host:port).');
  });

  it('asks for a host when one is required, and accepts nothing when it is optional', () => {
    assert.equal(destinationProblem('  '), 'Type a host name or user@host.');
    assert.equal(destinationProblem('  ', true), undefined);
    assert.equal(destinationProblem('user@', true), '"user@" names no host: type one after the @ (user@host or user@host:port).');
  });
});
