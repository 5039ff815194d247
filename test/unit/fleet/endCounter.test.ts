import * as assert from 'node:assert/strict';
import { nodeEndCounter } from '../../../src/core/fleet/relay/endCounter';

const TAG = 'gdrr-0123456789abcdef';

/** Feeds `text` in chunks of `size` bytes and returns every count reported. */
function counts(text: string, size: number): number[] {
  const seen: number[] = [];
  const take = nodeEndCounter(TAG, (n) => seen.push(n));
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += size) take(bytes.subarray(i, i + size));
  return seen;
}

describe('relay progress: nodes whose stream ended', () => {
  // The login script's lines as pdsh prefixes them (loginScript.ts): B, data, E per node.
  const pdsh = [
    `gpu02: ${TAG} B gpu02 `,
    'gpu02: VEVTVAo=',
    `gpu01: ${TAG} B gpu01 `,
    `gpu02: ${TAG} E 0`,
    'gpu01: VEVTVAo=',
    `gpu01: ${TAG} E 1`,
    '',
  ].join('\n');

  it('counts each E line once, whatever the chunk boundaries', () => {
    for (const size of [1, 3, 7, 64, pdsh.length]) assert.deepEqual(counts(pdsh, size).at(-1), 2, `chunks of ${size}`);
    assert.deepEqual(counts(pdsh, 1), [1, 2]);
  });

  it("waits for a line's newline: an E line still arriving is not counted", () => {
    assert.deepEqual(counts(`gpu01: ${TAG} E 0`, 4), []);
  });

  it("counts srun's task-numbered lines and a line pdsh glued after a dying node's partial one", () => {
    assert.deepEqual(counts(` 0: ${TAG} E 0\n 1: ${TAG} E 0\n`, 5), [1, 2]);
    assert.deepEqual(counts(`gpu03: VEVTgpu04: ${TAG} E 0\n`, 9), [1]);
  });

  it("never counts a node's own output, nor another run's tag, nor a repeated line", () => {
    const other = `gpu01: gdrr-ffffffffffffffff E 0\ngpu01: E 0\ngpu01: ${TAG} B gpu01 \n`;
    assert.deepEqual(counts(other, 8), []);
    assert.deepEqual(counts(`gpu01: ${TAG} E 0\ngpu01: ${TAG} E 0\n`, 8), [1]);
  });
});
