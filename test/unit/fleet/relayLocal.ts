// A login node on this machine for relay tests: the login script runs in a local shell, and `pdsh`
// and `clush` are the REAL tools, with their real per-line prefixing, stderr and exit messages; only
// `ssh` on the login node's PATH is a stand-in, which runs the node command in a local shell (node-exec)
// with GDR_NODE set, instead of on a node. The fake GPU commands of fakeHost.ts replay real outputs and
// may act per node.
import { runLocalScript } from '../../../src/core/transport/localScript';
import type { LoginRunner } from '../../../src/core/fleet/relay';
import { FakeHost, makeFakeHost } from '../probe/fakeHost';

const NODE_EXEC = [
  'GDR_NODE=$1; export GDR_NODE',
  // What ssh says for a node that refuses (the lab test gets the real one).
  'if [ -e "$GDR_TEST_LOG/down-$1" ]; then echo "ssh: connect to host $1 port 22: Connection refused" >&2; exit 255; fi',
  // Login-shell noise on both streams, as a chatty .bashrc prints it.
  'if [ -e "$GDR_TEST_LOG/noisy-$1" ]; then echo "Welcome to $1"; echo "$1: motd: be nice" >&2; fi',
  // A hostile node: its login shell runs what the test put there, with the node command in $C.
  'C=$2; if [ -e "$GDR_TEST_LOG/hostile-$1" ]; then . "$GDR_TEST_LOG/hostile-$1"; fi',
  'exec /bin/sh -c "$2"',
].join('\n');

// ssh as pdsh's ssh module, clush's ssh worker and the relay's own per-node script call it: options,
// then the node, then the command (the last two arguments).
const SSH = ['eval "node=\\${$(($# - 1))}"', 'eval "command=\\${$#}"', 'exec /bin/sh "$(dirname "$0")/node-exec" "$node" "$command"'].join(
  '\n',
);

export function makeLoginNode(stubs: Record<string, string>): FakeHost {
  return makeFakeHost({ ...stubs, ssh: SSH, 'node-exec': NODE_EXEC });
}

export function localLogin(host: FakeHost): LoginRunner {
  return async (script, limits) => {
    const run = await runLocalScript(script, {
      env: host.env,
      timeoutMs: limits.timeoutMs,
      signal: limits.signal,
      stdout: limits.stdoutSink,
      stderr: limits.stderrSink,
    });
    return {
      stdout: Buffer.alloc(0),
      stderr: Buffer.from(run.note ?? ''),
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      connectionLost: run.connectionLost,
    };
  };
}

/** Runs a login script on the local login node and keeps all it printed (for tests that split it themselves). */
export async function runLoginCollecting(host: FakeHost, script: string, timeoutMs: number): Promise<{ stdout: Buffer; stderr: Buffer }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const keep = (into: Buffer[]) => ({ write: (chunk: Buffer) => (into.push(chunk), true) });
  const run = await localLogin(host)(script, { timeoutMs, maxBytes: 0, stdoutSink: keep(out), stderrSink: keep(err) });
  return { stdout: Buffer.concat(out), stderr: Buffer.concat([...err, run.stderr]) };
}
