// Checked before anything runs, nothing run when one fails (docs/nccl-tests.md §3): nccl-tests found on
// every node at one path (srun and mpirun start one command line everywhere), GPUs on every node for the
// ranks asked, mpirun where it starts; GPUs with processes on them are asked about by the caller.
import type { DiagnosedHost } from '../endpoints';
import { BusyGpu, busyGpus } from '../preconditions';
import { NcclTestsCheck, ncclTestsBuildHint, readNcclTestsCheck } from './check';
import { binaryOf, NcclProveOptions } from './options';
import { t } from '../../l10n';

export interface NcclPreconditions {
  readonly refusals: string[];
  readonly binary: string | null;
  readonly json: boolean;
  readonly gpusPerNode: number | null;
  readonly busy: BusyGpu[];
}

/** The nccl-tests binary is missing: where it was looked for, and how to build it. */
function notInstalledText(binary: string, testsDir: string | null): string {
  const where = testsDir === null ? t('on the PATH') : t('in {0}', testsDir);
  return t('{0} of nccl-tests is not {1}: {2}. gdr-doctor installs nothing.', binary, where, ncclTestsBuildHint());
}

export function checkNcclPreconditions(nodes: readonly DiagnosedHost[], o: NcclProveOptions, mpirunOnLauncher: boolean): NcclPreconditions {
  const refusals: string[] = [];
  const checks = new Map<string, NcclTestsCheck>();
  for (const n of nodes) {
    const c = readNcclTestsCheck(n.report);
    if (!c) refusals.push(`${n.host}: ${t('could not tell whether nccl-tests is installed (the check did not run to its end)')}`);
    else if (c.binary === null) refusals.push(`${n.host}: ${notInstalledText(binaryOf(o.op), o.testsDir)}`);
    else checks.set(n.host, c);
  }
  const paths = new Set([...checks.values()].map((c) => c.binary));
  // The path goes onto srun's or mpirun's command line: only plain path characters (command.ts checks it again).
  for (const p of paths)
    if (!/^\/?[A-Za-z0-9._/+-]{1,512}$/.test(p ?? ''))
      refusals.push(
        t('nccl-tests was found at {0}, a path gdr-doctor does not put on a command line: give --nccl-tests DIR', JSON.stringify(p)),
      );
  if (paths.size > 1)
    refusals.push(
      t(
        'nccl-tests is at different paths on the nodes ({0}): give --nccl-tests DIR on a filesystem every node shares',
        [...paths].join(', '),
      ),
    );
  if (o.launcher === 'mpirun' && !mpirunOnLauncher && checks.size > 0)
    refusals.push(
      t(
        'mpirun is not installed where it would start the ranks: install Open MPI (Debian/Ubuntu: openmpi-bin) or load its module, or use --with slurm',
      ),
    );
  const counts = nodes.map((n) => n.diagnosis.pairs.length);
  const fewest = counts.length > 0 ? Math.min(...counts) : 0;
  const gpusPerNode = o.gpusPerNode ?? (fewest > 0 ? fewest : null);
  if (gpusPerNode === null)
    refusals.push(
      t(
        'no GPU was read on {0}: nothing to run NCCL on',
        nodes
          .filter((n) => n.diagnosis.pairs.length === 0)
          .map((n) => n.host)
          .join(', '),
      ),
    );
  else
    for (const n of nodes)
      if (n.diagnosis.pairs.length < gpusPerNode)
        refusals.push(t('{0} has {1} GPUs, fewer than the {2} per node asked', n.host, n.diagnosis.pairs.length, gpusPerNode));
  const busy =
    gpusPerNode === null
      ? []
      : nodes.flatMap((n) =>
          busyGpus(
            n,
            Array.from({ length: gpusPerNode }, (_, i) => i),
          ),
        );
  return {
    refusals,
    binary: paths.size === 1 ? ([...paths][0] as string) : null,
    json: checks.size === nodes.length && [...checks.values()].every((c) => c.json),
    gpusPerNode,
    busy,
  };
}
