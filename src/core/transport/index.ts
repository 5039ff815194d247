// Every way of reaching a host, in one place: SSH on a connection of its own or one already open
// (ssh.ts), this machine (local.ts), the demo (demo.ts), a folder of saved outputs (saved.ts), a node's
// stream that a login node's relay handed on (relay/), or a runner the caller made. Each gives the
// probe a runner; probeHost runs it. Diagnosing what it printed is core/host's, above this folder:
// `gdr-doctor diagnose`, the extension's Diagnose, the fan-out, the relay, the quick fixes' probes and
// the proofs all come through here, so a host reads the same on every path.
import type { ProbeCommandSpec } from '../probe/commands';
import { ProbeRunner, runProbe } from '../probe/runProbe';
import type { SshConnection } from '../ssh/connect';
import type { SshReachOptions } from '../ssh/openSsh';
import { DEMO_HOST_NAME, DemoHost } from './demo';
import { localRunner } from './local';
import { RelayedStream, relayedRunner } from './relay';
import { offlineRunner } from './saved';
import { ProbedHost, probeConnection, probeOverSsh } from './ssh';

export type { ProbedHost, SshProbeOptions } from './ssh';
export { sshRunner } from './sshRunner';
export { DEMO_HOST_NAME, DEMO_USER, DemoHost, INITIAL_DEMO_STATE } from './demo';
export type { DemoState } from './demo';
export { collectScript, savedOutputNames, savedOutputsIn } from './saved';
export * from './relay';

/** Where a host's probe runs. */
export type HostSource =
  /** An SSH destination, over a connection of its own that closes when the probe ends. */
  | { readonly kind: 'ssh'; readonly destination: string; readonly reach: SshReachOptions }
  /** An SSH destination over a connection already open, which stays open. */
  | { readonly kind: 'connection'; readonly destination: string; readonly conn: SshConnection }
  /** This machine; `name` is what its report is called (default localhost). */
  | { readonly kind: 'local'; readonly name?: string }
  /** The demo host, replayed in its current state. */
  | { readonly kind: 'demo'; readonly demo: DemoHost }
  /** A folder of saved outputs (`<command id>.txt`), as the collect script writes them. */
  | { readonly kind: 'saved'; readonly dir: string }
  /** A compute node's stream that arrived through a login node's srun, pdsh or clush. */
  | { readonly kind: 'relay'; readonly node: string; readonly stream: RelayedStream }
  /** Any other runner: a proof's probe over a connection it holds. */
  | { readonly kind: 'runner'; readonly host: string; readonly runner: ProbeRunner };

export interface ProbeHostOptions {
  /** The probe's client-side deadline; default the probe's own. */
  readonly deadlineMs?: number;
  /** Stops the probe: the remote commands and the connection, this machine's script, the demo's replay. */
  readonly signal?: AbortSignal;
  /** Default PROBE_COMMANDS. */
  readonly commands?: readonly ProbeCommandSpec[];
  /** The probe's section boundary, for a runner whose output was framed with it already. */
  readonly boundary?: string;
}

/** Probes the host: SSH rejects with a ConnectError (the step that failed) when the host cannot be reached. */
export function probeHost(source: HostSource, options: ProbeHostOptions = {}): Promise<ProbedHost> {
  const { deadlineMs, signal } = options;
  if (source.kind === 'ssh') return probeOverSsh(source.destination, { ...source.reach, probeDeadlineMs: deadlineMs }, signal);
  if (source.kind === 'connection') return probeConnection(source.conn, source.destination, deadlineMs, signal);
  const request = { host: hostName(source), deadlineMs, commands: options.commands, boundary: options.boundary };
  return runProbe(runnerFor(source, signal), request).then((report) => ({ report }));
}

/** What the host's report is called (and the name its failure is told under). */
export function hostName(source: HostSource): string {
  switch (source.kind) {
    case 'ssh':
    case 'connection':
      return source.destination;
    case 'local':
      return source.name ?? 'localhost';
    case 'demo':
      return DEMO_HOST_NAME;
    case 'saved':
      return source.dir;
    case 'relay':
      return source.node;
    case 'runner':
      return source.host;
  }
}

function runnerFor(source: Exclude<HostSource, { kind: 'ssh' | 'connection' }>, signal: AbortSignal | undefined): ProbeRunner {
  switch (source.kind) {
    case 'local': // the signal stops the script's process group
      return localRunner({ signal });
    case 'demo':
      return signal ? abortable(source.demo.runner(), signal) : source.demo.runner();
    case 'saved':
      return offlineRunner(source.dir);
    case 'relay':
      return relayedRunner(source.stream);
    case 'runner':
      return source.runner;
  }
}

/** A runner that gives up when the user cancels (the demo replays files: nothing to stop). */
function abortable(runner: ProbeRunner, signal: AbortSignal): ProbeRunner {
  return (script, request) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('cancelled'));
      const onAbort = () => reject(new Error('cancelled'));
      signal.addEventListener('abort', onAbort, { once: true });
      runner(script, request)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
}
