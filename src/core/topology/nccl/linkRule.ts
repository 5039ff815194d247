// What NCCL does with a GPU↔NIC path of one `nvidia-smi topo -m` class, under an NCCL release and
// environment: the sentence every explanation of a matrix token uses (editor hovers, the topology
// panel's matrix and legend, `gdr-doctor parse topo`). A host's own verdicts (model.ts) also weigh
// ports, NIC-side support, PXN and C2C; this is the rule for the class alone.
import { gdrThreshold } from './checkGdr';
import { readNcclEnv } from './env';
import { thresholdText, NCCL_SOURCE } from './explain';
import { tokenPath } from './fromMatrix';
import { pathMeaning, pathRank } from './pathType';
import { ncclRules } from './rules';
import { NcclVersion, formatNcclVersion } from './version';
import { t } from '../../l10n';

export interface LinkRule {
  /** Whether NCCL uses GPUDirect RDMA over such a GPU↔NIC path; null where the question does not apply or is unknown. */
  readonly usesGdr: boolean | null;
  readonly sentence: string;
}

export function linkRule(token: string, version: NcclVersion, envVars: Readonly<Record<string, string>> = {}): LinkRule {
  const rules = ncclRules(version);
  const env = readNcclEnv(envVars, rules);
  const nccl = `NCCL ${formatNcclVersion(version)}`;
  const path = tokenPath(token);
  if (path === 'LOC') return { usesGdr: null, sentence: t('The device itself: no path, no GPUDirect RDMA verdict.') };
  if (path === 'NVL') {
    return {
      usesGdr: null,
      sentence: t('NVLink joins two GPUs: no GPUDirect RDMA verdict applies. {0} may relay a GPU\'s sends over it to a peer GPU nearer the NIC (PXN, from NCCL 2.12) and then judges that GPU\'s distance ({1}).', nccl, NCCL_SOURCE.computePaths),
    };
  }
  if (path === null) return { usesGdr: null, sentence: t('A link type gdr-doctor does not know (newer driver?): whether {0} uses GPUDirect RDMA over it is unknown.', nccl) };
  const threshold = gdrThreshold({ rules, env, netSupport: [] });
  const level = thresholdText(threshold, env.gdrLevel !== null);
  const counted = token === path ? t('a {0} path ({1})', path, pathMeaning(path)) : t('{0} as {1} ({2})', token, path, pathMeaning(path));
  if (pathRank(path, rules.order) <= pathRank(threshold, rules.order)) {
    return { usesGdr: true, sentence: t('Between a GPU and a NIC, {0} counts {1}: within {2}, so it uses GPUDirect RDMA when both sides support it ({3}).', nccl, counted, level, NCCL_SOURCE.checkGdr) };
  }
  const grace = path === 'SYS'
    ? t('; on a Grace superchip nvidia-smi prints SYS even for a NIC on the GPU\'s own CPU, which NCCL reaches as P2C (sysfs tells which)')
    : path === 'PHB' ? t('; on a Grace superchip a NIC on the GPU\'s own CPU is P2C to NCCL, not PHB') : '';
  return {
    usesGdr: false,
    sentence: t('Between a GPU and a NIC, {0} counts {1}: beyond {2}, so no GPUDirect RDMA over it, unless NCCL relays the GPU\'s sends through an NVLink peer nearer the NIC (PXN){3}; NCCL_NET_GDR_LEVEL={4} would allow it ({5}).', nccl, counted, level, grace, path, NCCL_SOURCE.checkGdr),
  };
}
