// The relay's demux as a stream: chunks cut anywhere, each node handed on the moment its E line
// arrives (progress, and its parse while the others run), node names still checked, and the bounds
// on what a node or the tool can make it keep.
import * as assert from 'node:assert/strict';
import { NodeStream, RelayDemux } from '../../../src/core/transport/relay/demux';
import { MAX_MESSAGE_BYTES, MAX_NODE_STREAM_BYTES } from '../../../src/core/transport/relay/nodeStream';
import type { RelayTool } from '../../../src/core/transport/relay/loginScript';

const TAG = 'gdrr-0123456789abcdef';

/** Feeds `text` to a demux in chunks of `size` bytes; returns the demux and the nodes as they ended. */
function feed(tool: RelayTool, text: string, size: number, expected: string[] = []): { d: RelayDemux; ended: string[] } {
  const ended: string[] = [];
  const d = new RelayDemux(tool, TAG, expected, (n: NodeStream) => ended.push(n.name));
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += size) d.pushStdout(bytes.subarray(i, i + size));
  return { d, ended };
}

describe('relay demux as a stream', () => {
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

  it('hands on each node once, when its E line arrives, whatever the chunk boundaries', () => {
    for (const size of [1, 3, 7, 64, pdsh.length]) {
      const { d, ended } = feed('pdsh', pdsh, size, ['gpu01', 'gpu02']);
      assert.deepEqual(ended, ['gpu02', 'gpu01'], `chunks of ${size}`);
      assert.equal(d.nodes.get('gpu01')?.data.bytes().toString(), 'TEST\n');
      assert.equal(d.nodes.get('gpu01')?.exitCode, 1);
    }
  });

  it("waits for a line's newline: an E line still arriving is not the end", () => {
    assert.deepEqual(feed('pdsh', `gpu01: ${TAG} B gpu01\ngpu01: ${TAG} E 0`, 4, ['gpu01']).ended, []);
  });

  it("ends srun's task-numbered nodes and a node whose line pdsh glued after a dying node's partial one", () => {
    assert.deepEqual(feed('slurm', ` 0: ${TAG} B n1\n 1: ${TAG} B n2\n 0: ${TAG} E 0\n 1: ${TAG} E 0\n`, 5, ['n1', 'n2']).ended, [
      'n1',
      'n2',
    ]);
    assert.deepEqual(feed('pdsh', `gpu04: ${TAG} B gpu04\ngpu03: VEVTgpu04: ${TAG} E 0\n`, 9, ['gpu03', 'gpu04']).ended, ['gpu04']);
  });

  it("never ends a node on its own output, another run's tag, a repeated line, or a name not asked for", () => {
    const other = `gpu01: gdrr-ffffffffffffffff E 0\ngpu01: E 0\ngpu01: ${TAG} B gpu01 \n`;
    assert.deepEqual(feed('pdsh', other, 8, ['gpu01']).ended, []);
    assert.deepEqual(feed('pdsh', `gpu01: ${TAG} B gpu01\ngpu01: ${TAG} E 0\ngpu01: ${TAG} E 0\n`, 8, ['gpu01']).ended, ['gpu01']);
    const evil = feed('pdsh', `evil: ${TAG} B evil\nevil: ${TAG} E 0\n`, 8, ['gpu01']);
    assert.deepEqual([evil.ended, evil.d.refused.length], [[], 1]);
  });

  it('keeps a bounded part of what one node or the tool prints besides its stream, and says how much more', () => {
    const noise = Array.from({ length: 5000 }, (_, i) => `gpu01: Welcome, line ${i}`).join('\n');
    const tool = Array.from({ length: 5000 }, (_, i) => `a complaint without a node, number ${i}`).join('\n');
    const { d } = feed('pdsh', `${noise}\n${tool}\n`, 4096, ['gpu01']);
    const messages = d.nodes.get('gpu01')?.messages ?? [];
    const kept = messages.slice(0, -1).reduce((n, l) => n + l.length, 0);
    assert.ok(kept > 0 && kept <= MAX_MESSAGE_BYTES, String(kept));
    assert.match(messages.at(-1) ?? '', /^\(\d+ more lines cut\)$/);
    assert.match(d.toolMessages.at(-1) ?? '', /^\(\d+ more lines cut\)$/);
  });

  it("keeps at most MAX_NODE_STREAM_BYTES of a node's stream and counts the rest", () => {
    const line = 'QUJD'.repeat(19); // 76 base64 characters, 57 bytes
    const lines = Math.ceil(MAX_NODE_STREAM_BYTES / 57) + 10;
    const d = new RelayDemux('pdsh', TAG, ['n1']);
    d.pushStdout(Buffer.from(`n1: ${TAG} B n1\n`));
    const block = Buffer.from(`n1: ${line}\n`.repeat(10_000));
    for (let i = 0; i < lines; i += 10_000) d.pushStdout(block);
    const n1 = d.nodes.get('n1');
    assert.ok(n1 && n1.data.length <= MAX_NODE_STREAM_BYTES && n1.data.length > MAX_NODE_STREAM_BYTES - 57);
    assert.ok(n1.data.cutBytes > 0);
    assert.deepEqual([n1.data.cut?.by, n1.data.cut?.limitBytes], ['host', MAX_NODE_STREAM_BYTES]);
    d.dropStreams(); // the process's shared budget gets it back
  });
});
