// What the user says about the NCCL their jobs run: the release (default: the newest one modelled)
// and the NCCL_* variables set for them. Verdicts are computed for exactly this.
import { NCCL_ENV_NAMES } from '../topology/nccl/env';
import { NEWEST_NCCL, NcclVersion, OLDEST_MODELLED_NCCL, atLeast, formatNcclVersion, parseNcclVersion } from '../topology/nccl/version';
import { t } from '../l10n';

export interface NcclAssumptions {
  readonly version: NcclVersion;
  /** NCCL_* variables by name, as they would be exported for the job. */
  readonly env: Readonly<Record<string, string>>;
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
    if (!(NCCL_ENV_NAMES as readonly string[]).includes(m[1])) return t('{0} does not change a GPUDirect RDMA verdict; known: {1}', m[1], NCCL_ENV_NAMES.join(', '));
    env[m[1]] = m[2];
  }
  return { version: v, env };
}
