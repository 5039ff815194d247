// The probe of a host for a proof: the diagnosis's own commands plus perftest's check, in one round
// trip (the check's output shows among the host's raw outputs too).
import type { NcclAssumptions } from '../diagnosis';
import { diagnoseHost } from '../host/diagnoseHost';
import { PROBE_COMMANDS, probeDeadlineMs } from '../probe/commands';
import type { ProbeRunner } from '../probe/runProbe';
import { PROVE_CHECK_COMMANDS } from './checks';
import { DiagnosedHost } from './endpoints';

export const PROOF_PROBE_COMMANDS = [...PROBE_COMMANDS, ...PROVE_CHECK_COMMANDS];

export async function probeForProof(
  runner: ProbeRunner,
  host: string,
  nccl: NcclAssumptions,
  deadlineMs = probeDeadlineMs(PROOF_PROBE_COMMANDS),
): Promise<DiagnosedHost> {
  const { report, diagnosis } = await diagnoseHost({ kind: 'runner', host, runner }, { commands: PROOF_PROBE_COMMANDS, deadlineMs, nccl });
  return { host, report, diagnosis };
}
