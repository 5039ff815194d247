// What a proof with NCCL runs (docs/nccl-tests.md §3): which nccl-tests binary, on how many GPUs per
// node, over which sizes, launched by Slurm's srun or by mpirun, under which deadline. Every value is
// checked here before it reaches a script; nothing a host printed ever goes into one.
import { t } from '../../l10n';

export const NCCL_OPS = ['all_reduce', 'all_gather', 'sendrecv'] as const;
export type NcclProveOp = (typeof NCCL_OPS)[number];
export type NcclLauncher = 'slurm' | 'mpirun';

export interface NcclProveOptions {
  readonly op: NcclProveOp;
  readonly launcher: NcclLauncher;
  /** Ranks (one per GPU) on each node; null: every GPU the nodes have (the fewest of them). */
  readonly gpusPerNode: number | null;
  /** Where the nccl-tests binaries are (`…/build`); null: on each node's PATH. */
  readonly testsDir: string | null;
  /** nccl-tests' -b, -e (with its K/M/G suffixes) and -f. */
  readonly minBytes: string;
  readonly maxBytes: string;
  readonly stepFactor: number;
  /** NCCL_ALGO=Ring (the figure to compare with the NICs: tree on two nodes reports more). */
  readonly ring: boolean;
  /** Seconds the whole run may take; srun's --time and the session's deadline follow it. */
  readonly timeoutS: number;
  /** Slurm partition and srun's --mpi (the cluster's MpiDefault when absent). */
  readonly partition?: string;
  readonly mpi?: string;
}

export const DEFAULT_NCCL_PROVE_OPTIONS: NcclProveOptions = {
  op: 'all_reduce',
  launcher: 'slurm',
  gpusPerNode: null,
  testsDir: null,
  minBytes: '8',
  maxBytes: '8G',
  stepFactor: 2,
  ring: true,
  timeoutS: 600,
};

const SIZE = /^\d{1,12}[KMG]?$/;
const DIR = /^\/[A-Za-z0-9._/+-]{0,511}$/;
const WORD = /^[A-Za-z0-9._-]{1,64}$/;

/** nccl-tests' size argument (`8`, `512K`, `8G`) in bytes. */
export function sizeBytes(text: string): number {
  const m = /^(\d+)([KMG]?)$/.exec(text);
  if (!m) return Number.NaN;
  return Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
}

/** Why the options cannot run, one message each; [] when they can. */
export function checkNcclOptions(o: NcclProveOptions): string[] {
  const bad: string[] = [];
  if (!(NCCL_OPS as readonly string[]).includes(o.op)) bad.push(t('--op takes {0}', NCCL_OPS.join(', ')));
  for (const [name, v] of [
    ['-b', o.minBytes],
    ['-e', o.maxBytes],
  ] as const)
    if (!SIZE.test(v)) bad.push(t('{0} needs a size such as 8, 512K, 8G; got {1}', name, JSON.stringify(v)));
  if (SIZE.test(o.minBytes) && SIZE.test(o.maxBytes) && sizeBytes(o.minBytes) > sizeBytes(o.maxBytes))
    bad.push(t('the smallest size ({0}) is above the largest ({1})', o.minBytes, o.maxBytes));
  if (!Number.isInteger(o.stepFactor) || o.stepFactor < 2 || o.stepFactor > 1024) bad.push(t('-f needs a whole factor from 2 to 1024'));
  if (o.gpusPerNode !== null && (!Number.isInteger(o.gpusPerNode) || o.gpusPerNode < 1 || o.gpusPerNode > 64))
    bad.push(t('--gpus-per-node needs a whole number from 1 to 64'));
  if (o.testsDir !== null && !DIR.test(o.testsDir))
    bad.push(t('--nccl-tests needs an absolute directory of [A-Za-z0-9._/+-]; got {0}', JSON.stringify(o.testsDir)));
  if (!Number.isInteger(o.timeoutS) || o.timeoutS < 10 || o.timeoutS > 86400)
    bad.push(t('--timeout needs a whole number of seconds from 10 to 86400'));
  for (const [name, v] of [
    ['--partition', o.partition],
    ['--mpi', o.mpi],
  ] as const)
    if (v !== undefined && !WORD.test(v)) bad.push(t('{0} takes a word of [A-Za-z0-9._-]; got {1}', name, JSON.stringify(v)));
  return bad;
}

/** The binary's name for the op: `all_reduce_perf`. */
export const binaryOf = (op: NcclProveOp): string => `${op}_perf`;
