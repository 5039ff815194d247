// The probe of a host for a proof: the diagnosis's own commands plus perftest's check, in one round
// trip (the check's output shows among the host's raw outputs too).
import { diagnose, NcclAssumptions } from '../diagnosis';
import { PROBE_COMMANDS, probeDeadlineMs } from '../probe/commands';
import { ProbeRunner, runProbe } from '../probe/runProbe';
import { PROVE_CHECK_COMMANDS } from './checks';
import { DiagnosedHost } from './endpoints';

export const PROOF_PROBE_COMMANDS = [...PROBE_COMMANDS, ...PROVE_CHECK_COMMANDS];

export async function probeForProof(runner: ProbeRunner, host: string, nccl: NcclAssumptions, deadlineMs = probeDeadlineMs(PROOF_PROBE_COMMANDS)): Promise<DiagnosedHost> {
  const report = await runProbe(runner, { host, commands: PROOF_PROBE_COMMANDS, deadlineMs });
  return { host, report, diagnosis: diagnose(report, nccl) };
}
