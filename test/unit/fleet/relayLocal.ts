// A login node on this machine for relay tests: the login script runs in a local shell, and `pdsh`
// and `clush` on its PATH are the REAL tools with their local workers (pdsh -R exec, clush
// --worker=exec) in place of ssh, so their per-line prefixing, stderr and exit messages are real.
// Each "node" is a local shell (node-exec) with GDR_NODE set, running the real node command; the
// fake GPU commands of fakeHost.ts replay real outputs and may act per node.
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
  'C=${2:-$GDR_NODE_CMD}; if [ -e "$GDR_TEST_LOG/hostile-$1" ]; then . "$GDR_TEST_LOG/hostile-$1"; fi',
  'exec /bin/sh -c "${2:-$GDR_NODE_CMD}"',
].join('\n');

// `for a do` expands the original arguments once, so `set --` can rebuild them in the loop.
const PDSH = [
  'n=$#; i=0',
  'for a do',
  '  i=$((i + 1)); shift',
  '  [ "$a" = ssh ] && a=exec',
  '  if [ $i -eq $n ]; then set -- "$@" /bin/sh "$(dirname "$0")/node-exec" %h "$a"; else set -- "$@" "$a"; fi',
  'done',
  'exec /usr/bin/pdsh "$@"',
].join('\n');

// clush's exec worker runs its command through a shell: the node command reaches node-exec in the
// environment, so no quoting of it is involved here.
const CLUSH = [
  'n=$#; i=0',
  'for a do',
  '  i=$((i + 1)); shift',
  '  if [ $i -eq $n ]; then GDR_NODE_CMD=$a; export GDR_NODE_CMD; set -- "$@" "/bin/sh $(dirname "$0")/node-exec %h"; else set -- "$@" "$a"; fi',
  'done',
  'exec /usr/bin/clush --worker=exec "$@"',
].join('\n');

export function makeLoginNode(stubs: Record<string, string>): FakeHost {
  return makeFakeHost({ ...stubs, pdsh: PDSH, clush: CLUSH, 'node-exec': NODE_EXEC });
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
