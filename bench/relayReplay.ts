// Simulated compute nodes for the relay bench: real `pdsh -R exec` (its local worker, no sshd) runs
// one small shell per node that prints what the relay's node wrapper prints (loginScript.ts: `<T>.<G> B
// <node>`, the probe's output in base64 wrapped at 76, each line after the node's key `<G> `, `<T>.<G> E 0`,
// with the key the login script gave that node), the probe's output being a stream
// replayed from the lab's recordings of a healthy 8-GPU host (test/lab/profiles/healthy: the real
// outputs it records, framed as the probe frames them). So pdsh does its real per-node and per-line
// work, and gdr-doctor's relay (demux, per-node parse, diagnosis) gets what it would get from a
// login node, without running thousands of probes on this machine.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LoginRunner } from '../src/core/fleet/relay';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { encodeDone, encodeHeader, encodeSection } from '../src/core/probe/frames';
import { runLocalScript } from '../src/core/transport/localScript';
import { shQuote } from '../src/core/shellText';
import type { ByteSink } from '../src/core/probe/streamCaps';
import { recordingName } from '../test/lab/lab';

const PROFILE = path.join(__dirname, '../test/lab/profiles/healthy');

/** The recorded stdout of each probe command the profile has a recording for (the others: not collected). */
function recordedOutputs(): Map<string, Buffer> {
  const outputs = new Map<string, Buffer>();
  for (const c of PROBE_COMMANDS) {
    const [cmd, ...args] = c.command.split(' ');
    const file = path.join(PROFILE, 'out', `${recordingName(cmd, args)}.stdout`);
    const modinfo = cmd === 'modinfo' ? path.join(PROFILE, 'modinfo', `${args[0]}.txt`) : '';
    if (fs.existsSync(file)) outputs.set(c.id, fs.readFileSync(file));
    else if (modinfo && fs.existsSync(modinfo)) outputs.set(c.id, fs.readFileSync(modinfo));
  }
  return outputs;
}

/** The probe stream a node would print, with this run's boundary. */
export function replayedStream(boundary: string): Buffer {
  const parts = [Buffer.from('\n'), encodeHeader(boundary, { clock: 'cs', timeout: 'yes' })];
  for (const [id, stdout] of recordedOutputs()) {
    const limitS = PROBE_COMMANDS.find((c) => c.id === id)?.timeoutS ?? 10;
    parts.push(encodeSection(boundary, { id, exitCode: 0, durationMs: 10, limitS, stdout, stderr: Buffer.alloc(0) }));
  }
  parts.push(encodeDone(boundary));
  return Buffer.concat(parts);
}

/** The relay run's tag, probe boundary and node keys, read back from the login script relayDiagnose built. */
export function runIds(loginScript: string): { tag: string; boundary: string; keys: Map<string, string> } {
  const tag = /^T='(gdrr-[0-9a-f]+)'$/m.exec(loginScript)?.[1];
  const command = /^C='echo ([A-Za-z0-9+/= ]+) \| tr/m.exec(loginScript)?.[1];
  const wrapper = command ? Buffer.from(command.replace(/ /g, ''), 'base64').toString() : '';
  const probe = /^P='([A-Za-z0-9+/=]+)'$/m.exec(wrapper)?.[1];
  const boundary = probe ? /^B='(gdr-doctor-[0-9a-f]+)'$/m.exec(Buffer.from(probe, 'base64').toString())?.[1] : undefined;
  // The key file's lines: `<node> <base64 of "G=<key>\n">`.
  const keys = new Map(
    [...loginScript.matchAll(/^(\S+) (Rz[A-Za-z0-9+/]+)$/gm)].map((m) => [m[1], Buffer.from(m[2], 'base64').toString().slice(2).trim()]),
  );
  if (!tag || !boundary || keys.size === 0)
    throw new Error('cannot read the tag, boundary and keys from the login script (loginScript.ts changed?)');
  return { tag, boundary, keys };
}

export interface ReplayFleet {
  readonly nodes: number;
  readonly fanout: number;
  readonly dir: string;
  cleanup(): void;
}

export function replayFleet(nodes: number, fanout: number): ReplayFleet {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-relay-bench-'));
  return { nodes, fanout, dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function nodeList(nodes: number): string {
  const width = String(nodes).length;
  return `node[${'1'.padStart(width, '0')}-${nodes}]`;
}

/** The login node's script for the replay: pdsh -R exec, each node a shell printing the wrapper's lines with its key. */
export function replayLoginScript(fleet: ReplayFleet, tag: string, boundary: string, keys: ReadonlyMap<string, string>): string {
  const b64 = path.join(fleet.dir, `${boundary}.b64`);
  if (!fs.existsSync(b64))
    fs.writeFileSync(
      b64,
      `${(
        replayedStream(boundary)
          .toString('base64')
          .match(/.{1,76}/g) ?? []
      ).join('\n')}\n`,
    );
  const keyDir = path.join(fleet.dir, `keys-${tag}`);
  fs.mkdirSync(keyDir, { recursive: true });
  for (const [node, key] of keys) fs.writeFileSync(path.join(keyDir, node), `${key}\n`);
  const node = `read -r G <${shQuote(keyDir)}/%h; printf '%s.%s B %s \\n' ${tag} "$G" %h; sed "s/^/$G /" ${shQuote(b64)}; printf '%s.%s E 0\\n' ${tag} "$G"`;
  return [
    `pdsh -R exec -f ${fleet.fanout} -w ${shQuote(nodeList(fleet.nodes))} /bin/sh -c ${shQuote(node)} </dev/null; rc=$?`,
    `printf '%s X %s\\n' ${tag} "$rc"`,
    '',
  ].join('\n');
}

/** relayDiagnose's login runner for the replay: the bench's own login script, run here, into the relay's sinks. */
export function replayLogin(fleet: ReplayFleet): LoginRunner {
  return async (script, limits) => {
    const { tag, boundary, keys } = runIds(script);
    return runReplay(replayLoginScript(fleet, tag, boundary, keys), limits.timeoutMs, limits.stdoutSink, limits.stderrSink);
  };
}

export async function runReplay(script: string, timeoutMs: number, stdout: ByteSink, stderr: ByteSink) {
  const run = await runLocalScript(script, { timeoutMs, stdout, stderr });
  return {
    stdout: Buffer.alloc(0),
    stderr: Buffer.from(run.note ?? ''),
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    connectionLost: run.connectionLost,
  };
}
