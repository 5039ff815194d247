// What NCCL does with a GPU↔NIC path of one `nvidia-smi topo -m` class, under an NCCL release and
// environment: the sentence every explanation of a matrix token uses (editor hovers, the topology
// panel's matrix and legend, `gdr-doctor parse topo`). A host's own verdicts (model.ts) also weigh
// ports, NIC-side support, PXN and C2C; this is the rule for the class alone.
import { gdrThreshold } from './checkGdr';
import { readNcclEnv } from './env';
import { thresholdText, NCCL_SOURCE } from './explain';
import { tokenPath } from './fromMatrix';
import { PATH_MEANING, pathRank } from './pathType';
import { ncclRules } from './rules';
import { NcclVersion, formatNcclVersion } from './version';

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
  if (path === 'LOC') return { usesGdr: null, sentence: 'The device itself: no path, no GPUDirect RDMA verdict.' };
  if (path === 'NVL') {
    return {
      usesGdr: null,
      sentence: `NVLink joins two GPUs: no GPUDirect RDMA verdict applies. ${nccl} may relay a GPU's sends over it to a peer GPU nearer the NIC ` +
        `(PXN, from NCCL 2.12) and then judges that GPU's distance (${NCCL_SOURCE.computePaths}).`,
    };
  }
  if (path === null) return { usesGdr: null, sentence: `A link type gdr-doctor does not know (newer driver?): whether ${nccl} uses GPUDirect RDMA over it is unknown.` };
  const threshold = gdrThreshold({ rules, env, netSupport: [] });
  const level = thresholdText(threshold, env.gdrLevel !== null);
  const counted = token === path ? `a ${path} path (${PATH_MEANING[path]})` : `${token} as ${path} (${PATH_MEANING[path]})`;
  if (pathRank(path, rules.order) <= pathRank(threshold, rules.order)) {
    return { usesGdr: true, sentence: `Between a GPU and a NIC, ${nccl} counts ${counted}: within ${level}, so it uses GPUDirect RDMA when both sides support it (${NCCL_SOURCE.checkGdr}).` };
  }
  const grace = path === 'SYS'
    ? '; on a Grace superchip nvidia-smi prints SYS even for a NIC on the GPU\'s own CPU, which NCCL reaches as P2C (sysfs tells which)'
    : path === 'PHB' ? '; on a Grace superchip a NIC on the GPU\'s own CPU is P2C to NCCL, not PHB' : '';
  return {
    usesGdr: false,
    sentence: `Between a GPU and a NIC, ${nccl} counts ${counted}: beyond ${level}, so no GPUDirect RDMA over it, unless NCCL relays the GPU's sends ` +
      `through an NVLink peer nearer the NIC (PXN)${grace}; NCCL_NET_GDR_LEVEL=${path} would allow it (${NCCL_SOURCE.checkGdr}).`,
  };
}
