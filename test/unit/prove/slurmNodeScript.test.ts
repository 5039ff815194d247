// The Slurm proof's node program (scripts.ts slurmNodeScript), run by a real sh as the two tasks of a
// step would run it — here both on this machine, the server task told it is node 127.0.0.1. No perftest
// can run here: `ib_write_bw` is a stand-in for its TCP handshake only (perftest's server listens on -p
// and accepts one client; its client connects to <server>:-p or says "Couldn't connect to"), which is
// the part the two tasks coordinate on. It prints nothing else; the test reads the script's own lines.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Measurement } from '../../../src/core/prove/plan';
import { scriptEvents, slurmNodeScript } from '../../../src/core/prove/scripts';
import { testEndpoint } from './testEndpoint';

const HANDSHAKE_ONLY = `#!/usr/bin/env node
const net = require('net');
const a = process.argv.slice(2);
const port = Number(a[a.indexOf('-p') + 1]);
const server = a.length > a.indexOf('-p') + 2 ? a[a.length - 1] : null;
if (server === null) {
  const s = net.createServer((c) => { c.end('perftest\\n'); s.close(); });
  s.on('error', () => { console.log("Couldn't listen to port " + port); process.exit(1); });
  s.listen(port, '0.0.0.0');
} else {
  const c = net.connect(port, server);
  let got = '';
  c.on('data', (d) => (got += d));
  c.on('error', () => { console.log("Couldn't connect to " + server + ':' + port); process.exit(1); });
  c.on('close', () => { if (got) process.exit(0); console.log("Couldn't connect to " + server + ':' + port); process.exit(1); });
}
`;

const endpoint = testEndpoint({ host: 'node', numaNode: null });
const ctx = { tag: 'gdrp-0123456789abcdef', sizeBytes: 65536, durationS: 1 };
const measurement = (id: string): Measurement => ({ id, gpu: 'GPU0', mode: 'host', client: endpoint, server: endpoint, limitS: 4 });

/**
 * One task of the step: the script as `sh -c` runs it, or (`onStdin`) read by `/bin/sh -s` from a pipe that
 * holds only its first 600 bytes for half a second, as a slow `base64 -d` hands it on. Resolves with stdout
 * and the exit status.
 */
function task(script: string, node: string, bin: string, onStdin = false): Promise<{ out: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, SLURMD_NODENAME: node, PATH: `${bin}:${process.env.PATH}` };
    const p = spawn('/bin/sh', onStdin ? ['-s'] : ['-c', script], { env });
    if (onStdin) {
      p.stdin.write(script.slice(0, 600));
      setTimeout(() => p.stdin.end(script.slice(600)), 500);
    }
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (status) => resolve({ out, status }));
  });
}

/** A port in the range the proof picks from (20000-32767) that nothing listens on now. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describe('the Slurm proof step, both tasks run by a real sh', function () {
  this.timeout(60_000);
  let bin: string;
  before(() => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-slurm-node-'));
    fs.writeFileSync(path.join(bin, 'ib_write_bw'), HANDSHAKE_ONLY, { mode: 0o755 });
  });
  after(() => fs.rmSync(bin, { recursive: true, force: true }));

  it('a server whose port is taken holds while the client retries: the next measurement still finds its client', async () => {
    // m1's port is taken on the server's node (by something that is not perftest); m2's is free. Without the
    // hold, m2's server would listen at once and give up (4 s) while the client still retries m1 (8 s); with
    // it, m2's server listens from 9 s to 13 s, while the client tries m2 from 8 s to 16 s.
    const taken = net.createServer((c) => c.destroy());
    const p1 = await freePort();
    await new Promise<void>((resolve) => taken.listen(p1, '0.0.0.0', resolve));
    const p2 = await freePort(); // while p1 is taken: never the same port
    try {
      const runs = [
        { m: measurement('m1'), port: p1 },
        { m: measurement('m2'), port: p2 },
      ];
      const script = slurmNodeScript(ctx, runs, '127.0.0.1', 8);
      const [{ out: server }, { out: client }] = await Promise.all([task(script, '127.0.0.1', bin), task(script, 'client-node', bin)]);
      const events = scriptEvents(server + client, ctx.tag);
      const r = (id: string, role: string) => events.find((e) => e.kind === 'R' && e.id === id && e.role === role);
      assert.ok(
        events.some((e) => e.kind === 'N' && e.id === 'm1'),
        `m1: the server said its port was taken\n${server}`,
      );
      assert.notEqual(r('m1', 'client')?.exitCode, 0, 'm1: the client gave up');
      assert.match(r('m1', 'client')?.output ?? '', /Couldn't connect to 127\.0\.0\.1/);
      assert.equal(r('m2', 'server')?.exitCode, 0, `m2: the server served\n${server}\n${client}`);
      assert.equal(r('m2', 'client')?.exitCode, 0, `m2: the client connected\n${client}`);
    } finally {
      taken.close();
    }
  });

  it('reads its whole program before it runs any of it: a script that arrives in pieces on stdin runs to its end', async () => {
    // The program says `exec </dev/null` near its top; run line by line, sh would have read only the first piece.
    const runs = [
      { m: measurement('m1'), port: await freePort() },
      { m: measurement('m2'), port: await freePort() },
    ];
    const script = slurmNodeScript(ctx, runs, '127.0.0.1', 8);
    assert.ok(script.length > 1200, 'the program is longer than its first piece');
    const [server, client] = await Promise.all([task(script, '127.0.0.1', bin, true), task(script, 'client-node', bin, true)]);
    const events = scriptEvents(server.out + client.out, ctx.tag);
    const r = (id: string, role: string) => events.find((e) => e.kind === 'R' && e.id === id && e.role === role)?.exitCode;
    assert.deepEqual([r('m1', 'server'), r('m1', 'client'), r('m2', 'server'), r('m2', 'client')], [0, 0, 0, 0], server.out + client.out);
    assert.deepEqual([server.status, client.status], [0, 0]);
  });
});
