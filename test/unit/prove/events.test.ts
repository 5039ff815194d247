// The measurement scripts' lines read as they arrive (src/core/prove/events.ts): however the output is
// cut into chunks (one byte at a time, a character split between two), each line is read exactly once
// and the events are those of reading it whole; a line without end is not kept whole; and a two-host
// measurement starts its client once the server's port and listening lines arrived, reading the server's
// output no further. The outputs are generated here.
import * as assert from 'node:assert/strict';
import { runOnTwoHosts, ProveShell, ShellRun } from '../../../src/core/prove/direct';
import { ScriptEventReader, scriptEvents } from '../../../src/core/prove/events';
import type { Measurement } from '../../../src/core/prove/plan';
import { testEndpoint } from './testEndpoint';

const TAG = 'gdrp-0123456789abcdef';

/** A server's output: `noise` login-shell lines, its port and listening lines, perftest's output (non-ASCII too), its result. */
function serverOutput(noise: number): string {
  const perftest = Buffer.from('Café: 8388608 5000 98.76 98.70 0.001471 — fin\n').toString('base64');
  return [
    ...Array.from({ length: noise }, (_, i) => `motd line ${i} ${'x'.repeat(i % 50)}`),
    `${TAG} P m1 24001`,
    `${TAG} L m1`,
    `${TAG} O m1 server ${perftest}`,
    `${TAG} R m1 server 0`,
    '',
  ].join('\n');
}

function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe('prove: the scripts lines as they arrive', () => {
  it('reads each line once, whatever the chunks, with the events of a whole reading', () => {
    const text = serverOutput(2000);
    const whole = scriptEvents(text, TAG);
    assert.equal(whole.length, 3);
    assert.match(whole[2].output ?? '', /^Café: .* — fin\n$/);
    for (const size of [1, 3, 64, 4096]) {
      const reader = new ScriptEventReader(TAG);
      for (const c of chunks(Buffer.from(text), size)) reader.pushBytes(c);
      assert.deepEqual(reader.events, whole, `chunks of ${size}`);
      assert.equal(reader.linesRead, text.split('\n').length - 1, `chunks of ${size}: each line once`);
    }
  });

  it('keeps at most 64 Ki characters of a line that never ends', () => {
    const reader = new ScriptEventReader(TAG);
    const piece = 'y'.repeat(1 << 16);
    for (let i = 0; i < 64; i++) reader.push(piece); // 4 Mi characters, no newline
    reader.push(`\n${TAG} P m1 24002\n`);
    assert.deepEqual(reader.events, [{ kind: 'P', id: 'm1', port: 24002 }]);
    assert.equal(reader.linesRead, 2);
  });

  it('starts the client once, when the server has printed its port and listens; the result reads both sides', async () => {
    const endpoint = testEndpoint();
    const m: Measurement = { id: 'm1', gpu: 'GPU0', mode: 'host', client: endpoint, server: { ...endpoint, host: 'gpu-b' }, limitS: 30 };
    const done = (stdout: string): ShellRun => ({
      stdout: Buffer.from(stdout),
      stderr: Buffer.alloc(0),
      exitCode: 0,
      timedOut: false,
      connectionLost: false,
    });
    const clientRuns: string[] = [];
    const client: ProveShell = {
      host: 'gpu-a',
      address: 'gpu-a',
      run: async (script) => (clientRuns.push(script), done(`${TAG} R m1 client 0\n`)),
    };
    const output = serverOutput(5000);
    const server: ProveShell = {
      host: 'gpu-b',
      address: '10.0.0.2',
      run: async (_script, o) => {
        for (const c of chunks(Buffer.from(output), 7)) o.onStdout?.(c);
        return done(output);
      },
    };
    const runs = await runOnTwoHosts(client, server, m, { tag: TAG, sizeBytes: 65536, durationS: 5 });
    assert.equal(clientRuns.length, 1);
    assert.match(clientRuns[0], /10\.0\.0\.2/);
    assert.match(clientRuns[0], /24001/);
    assert.deepEqual([runs.server?.exitCode, runs.client?.exitCode], [0, 0]);
    assert.match(runs.server?.output ?? '', /^Café/);
  });
});
