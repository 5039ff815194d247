// Diagnosing one host, whatever it is: the runner chosen for where the host is (SSH on a connection of
// its own or one already open, this machine, the demo, a folder of saved outputs, output that already
// arrived), the probe run, the rules applied. `gdr-doctor diagnose`, the extension's Diagnose, the
// fan-out, the login-node relay and the quick fixes' probes all come through here, so a host reads the
// same on every path.
import { Diagnosis, diagnose, NcclAssumptions } from '../diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../demo/demoHost';
import type { ProbeCommandSpec } from '../probe/commands';
import { localRunner } from '../probe/localRunner';
import { offlineRunner } from '../probe/offlineRunner';
import { ProbeRunner, runProbe } from '../probe/runProbe';
import type { SshConnection } from '../ssh/connect';
import type { SshReachOptions } from '../ssh/openSsh';
import { ProbedHost, probeConnection, probeOverSsh } from '../ssh/probeOverSsh';

export type { ProbedHost } from '../ssh/probeOverSsh';

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
  /** Any other runner: a login node's relay hands each node's stream that arrived. */
  | { readonly kind: 'runner'; readonly host: string; readonly runner: ProbeRunner };

export interface DiagnoseHostOptions {
  /** The probe's client-side deadline; default the probe's own. */
  readonly deadlineMs?: number;
  /** Stops the probe: the remote commands and the connection, this machine's script, the demo's replay. */
  readonly signal?: AbortSignal;
  /** The NCCL release and environment the verdicts are for; default the newest modelled. */
  readonly nccl?: NcclAssumptions;
  /** Default PROBE_COMMANDS. */
  readonly commands?: readonly ProbeCommandSpec[];
  /** The probe's section boundary, for a runner whose output was framed with it already. */
  readonly boundary?: string;
}

export interface DiagnosedHost extends ProbedHost {
  readonly diagnosis: Diagnosis;
}

/**
 * Probes the host and diagnoses what it printed. Rejects with a ConnectError (the step that failed)
 * when an SSH host cannot be reached.
 */
export async function diagnoseHost(source: HostSource, options: DiagnoseHostOptions = {}): Promise<DiagnosedHost> {
  return diagnoseProbed(await probeHost(source, options), options.nccl);
}

/** The probe alone, for a caller that diagnoses later (the fan-out, once it knows whether a deadline cut the host). */
export function probeHost(source: HostSource, options: DiagnoseHostOptions = {}): Promise<ProbedHost> {
  const { deadlineMs, signal } = options;
  if (source.kind === 'ssh') return probeOverSsh(source.destination, { ...source.reach, probeDeadlineMs: deadlineMs }, signal);
  if (source.kind === 'connection') return probeConnection(source.conn, source.destination, deadlineMs, signal);
  const request = { host: hostName(source), deadlineMs, commands: options.commands, boundary: options.boundary };
  return runProbe(runnerFor(source, signal), request).then((report) => ({ report }));
}

/** The rules applied to a probed host. */
export function diagnoseProbed(probed: ProbedHost, nccl?: NcclAssumptions): DiagnosedHost {
  const { report } = probed;
  const diagnosis = diagnose(report, nccl);
  return 'target' in probed ? { report, diagnosis, target: probed.target } : { report, diagnosis };
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
