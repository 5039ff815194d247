// Diagnosing one host, whatever it is: the probe run over the transport chosen for where the host is
// (core/transport: SSH on a connection of its own or one already open, this machine, the demo, a folder
// of saved outputs, a relayed node's stream, a runner), the rules applied. `gdr-doctor diagnose`, the
// extension's Diagnose, the fan-out, the login-node relay and the proofs all come through here, so a
// host reads the same on every path.
import { Diagnosis, diagnose, NcclAssumptions } from '../diagnosis';
import { HostSource, ProbedHost, ProbeHostOptions, probeHost } from '../transport';

export interface DiagnoseHostOptions extends ProbeHostOptions {
  /** The NCCL release and environment the verdicts are for; default the newest modelled. */
  readonly nccl?: NcclAssumptions;
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

/** The rules applied to a probed host. */
export function diagnoseProbed(probed: ProbedHost, nccl?: NcclAssumptions): DiagnosedHost {
  const { report } = probed;
  const diagnosis = diagnose(report, nccl);
  return 'target' in probed ? { report, diagnosis, target: probed.target } : { report, diagnosis };
}
