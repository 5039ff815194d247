// What the user says about the NCCL their jobs run: the release (default: the newest one modelled)
// and the NCCL_* variables set for them. Verdicts are computed for exactly this.
import { NCCL_ENV_NAMES } from '../topology/nccl/env';
import { NEWEST_NCCL, NcclVersion, OLDEST_MODELLED_NCCL, atLeast, formatNcclVersion, parseNcclVersion } from '../topology/nccl/version';
import { t } from '../l10n';

export interface NcclAssumptions {
  readonly version: NcclVersion;
  /** NCCL_* variables by name, as they would be exported for the job. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The GPUs of the job on each host, by nvidia-smi index (NVML's, the `dev` NCCL uses whatever CUDA_VISIBLE_DEVICES
   * says); null or absent: every GPU of the host. NCCL's topology holds only the GPUs of the communicator.
   */
  readonly gpus?: readonly number[] | null;
}

/** At most this many GPUs in a list (no host has more; a longer list is a typo). */
const MAX_JOB_GPUS = 256;

/**
 * The job's GPUs from `--gpus 0,1,2,3` (ranges `0-3` too) or `--gpus-per-node N` (GPUs 0 … N-1, as local ranks
 * take them by default); null for every GPU; a message when neither reads.
 */
export function readJobGpus(list: string | undefined, perNode: string | undefined): number[] | null | string {
  if (list !== undefined && perNode !== undefined) return t('give --gpus or --gpus-per-node, not both');
  if (perNode !== undefined) {
    const n = /^\s*(\d{1,3})\s*$/.exec(perNode);
    if (!n || Number(n[1]) < 1 || Number(n[1]) > MAX_JOB_GPUS)
      return t('"{0}" is not a number of GPUs per node (1 to {1})', perNode, MAX_JOB_GPUS);
    return Array.from({ length: Number(n[1]) }, (_, i) => i);
  }
  if (list === undefined || list.trim() === '') return null;
  const gpus = new Set<number>();
  for (const part of list.split(',')) {
    const m = /^\s*(\d{1,3})(?:\s*-\s*(\d{1,3}))?\s*$/.exec(part);
    const [from, to] = m ? [Number(m[1]), Number(m[2] ?? m[1])] : [1, 0];
    if (!m || to < from || to >= MAX_JOB_GPUS) return t('"{0}" is not a list of GPU indexes (e.g. 0,1,2,3 or 0-3)', list);
    for (let g = from; g <= to; g++) gpus.add(g);
  }
  return [...gpus].sort((a, b) => a - b);
}

export const DEFAULT_NCCL: NcclAssumptions = { version: NEWEST_NCCL, env: {} };

/** From user input (`2.21`, `NCCL_NET_GDR_LEVEL=PHB`…): the assumptions, or a message saying what is wrong. */
export function readNcclAssumptions(version: string | undefined, envEntries: readonly string[]): NcclAssumptions | string {
  let v = NEWEST_NCCL;
  if (version !== undefined && version.trim() !== '') {
    const parsed = parseNcclVersion(version);
    if (!parsed) return t('"{0}" is not an NCCL version (expected e.g. 2.21 or 2.21.5)', version);
    if (!atLeast(parsed, OLDEST_MODELLED_NCCL.major, OLDEST_MODELLED_NCCL.minor)) {
      return t('NCCL {0} is older than {1}, the oldest release gdr-doctor models', version, formatNcclVersion(OLDEST_MODELLED_NCCL));
    }
    v = parsed;
  }
  const env: Record<string, string> = {};
  for (const entry of envEntries) {
    const m = /^(NCCL_[A-Z0-9_]+)=(.*)$/s.exec(entry.trim());
    if (!m) return t('"{0}" is not NAME=VALUE with an NCCL_ name', entry);
    if (!(NCCL_ENV_NAMES as readonly string[]).includes(m[1]))
      return t('{0} does not change a GPUDirect RDMA verdict; known: {1}', m[1], NCCL_ENV_NAMES.join(', '));
    env[m[1]] = m[2];
  }
  return { version: v, env };
}
