// What a proof with NCCL needs from each node besides the diagnosis, read in the same probe round trip
// (one more read-only command, like the perftest check): the nccl-tests binary (in --nccl-tests DIR, else
// on PATH, also as the `_mpi` name some images give it), whether it writes -J JSON (its usage text names
// `output_file` from nccl-tests 2.17 on: grep, nothing is run), and the launchers on the node.
import type { ProbeCommandSpec } from '../../probe/commands';
import { shQuote } from '../../shellText';
import type { ProbeReport } from '../../probe/runProbe';
import { binaryOf, NcclProveOp } from './options';
import { t } from '../../l10n';

export const NCCL_TESTS_CHECK_ID = 'nccl-tests';

export function ncclTestsCheckCommand(op: NcclProveOp, dir: string | null): ProbeCommandSpec {
  const b = binaryOf(op);
  const find = dir === null ? 'p=$(command -v "$b" 2>/dev/null) || p=-' : `p=${shQuote(dir)}/$b; [ -x "$p" ] && [ -f "$p" ] || p=-`;
  return {
    id: NCCL_TESTS_CHECK_ID,
    command:
      `p=-; for b in ${b} ${b}_mpi; do ${find}; [ "$p" != - ] && break; done; printf 'which nccl-tests %s\\n' "$p"; ` +
      `if [ "$p" != - ]; then if grep -q -a -e output_file "$p" 2>/dev/null; then echo 'json yes'; else echo 'json no'; fi; fi; ` +
      `for x in mpirun srun timeout; do q=$(command -v "$x" 2>/dev/null) || q=-; printf 'which %s %s\\n' "$x" "$q"; done; exit 0`,
    timeoutS: 10,
  };
}

export interface NcclTestsCheck {
  /** The binary's path on this node; null: not found. */
  readonly binary: string | null;
  readonly json: boolean;
  readonly mpirun: string | null;
  readonly srun: string | null;
}

export function readNcclTestsCheck(report: ProbeReport): NcclTestsCheck | null {
  const c = report.commands.find((x) => x.id === NCCL_TESTS_CHECK_ID);
  if (!c || c.state === 'not-run' || c.exitCode !== 0) return null;
  const which = new Map<string, string | null>();
  let json = false;
  for (const line of c.stdout.split('\n')) {
    const m = /^which (\S+) (.+)$/.exec(line);
    if (m) which.set(m[1], m[2] === '-' ? null : m[2]);
    else if (line === 'json yes') json = true;
  }
  if (!which.has('nccl-tests')) return null;
  return { binary: which.get('nccl-tests') ?? null, json, mpirun: which.get('mpirun') ?? null, srun: which.get('srun') ?? null };
}

/** How to get nccl-tests onto the nodes: gdr-doctor installs nothing. */
export const ncclTestsBuildHint = (): string =>
  t(
    'build it once on a shared filesystem: git clone https://github.com/NVIDIA/nccl-tests && make -C nccl-tests MPI=1 MPI_HOME=<your MPI> CUDA_HOME=<CUDA> NCCL_HOME=<NCCL>, then pass --nccl-tests <that dir>/build (or the setting gdrDoctor.ncclTestsDir)',
  );
