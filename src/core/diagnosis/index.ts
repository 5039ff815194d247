// One host's diagnosis: the probe's facts in, findings (errors first), GPU↔NIC verdicts and the
// suggested job environment out. Pure: no I/O, no SSH, nothing from VS Code.
import { ProbeReport } from '../probe/runProbe';
import { formatNcclVersion } from '../topology/nccl/version';
import { factOf } from './evidence';
import { ruleContext } from './context';
import { dmabufFindings } from './dmabuf';
import { Finding, sortFindings } from './finding';
import { blockerOf, nestKnockOns } from './knockOn';
import { gpuNoneFindings, gpuSupportFindings } from './gpu';
import { DEFAULT_NCCL, NcclAssumptions } from './ncclAssumptions';
import { NcclEnvOrigin, withHostConfig } from './ncclHostConfig';
import type { TopoFileNote } from '../topology/nccl/model';
import { GpuNicPair, gpuNicPairs } from './pairs';
import { peermemStateFindings } from './peermem';
import { peermemLoadFindings } from './peermemLoad';
import { acsFindings } from './acs';
import { iommuFindings } from './iommu';
import { linkFindings } from './links';
import { aerFindings, ibCounterFindings } from './errorCounters';
import { pairPaths } from './pciePaths';
import { bar1Findings, operatorFindings } from './platform';
import { roceFindings } from './roce';
import { virtState, vmFindings } from './virt';
import { probeFindings } from './probe';
import { ofedMissingFindings, portDownFindings, rdmaNoneFindings } from './rdma';
import { SuggestedEnv, suggestEnv } from './suggestedEnv';
import { netPluginFindings, pluginOnlyHost } from './netPlugin';
import { gdrReceiveOnlyFindings, nicFarFindings } from './topology';
import { t } from '../l10n';

export type { Finding, FixId, OperatorFixId, Severity } from './finding';
export type { GpuNicPair, PairNic } from './pairs';
export { missingText, pairsFromTopology, pathLabel, shortVerdict } from './pairs';
export type { SuggestedEnv } from './suggestedEnv';
export type { NcclAssumptions } from './ncclAssumptions';
export { DEFAULT_NCCL, readJobGpus, readNcclAssumptions } from './ncclAssumptions';
export { ofedMismatchFromModprobe } from './peermemLoad';
export { hostGpuCount } from './gpuFacts';

export interface Diagnosis {
  /** Errors, then warnings, then info; knock-on findings are not here but in their cause's `children`. */
  readonly findings: Finding[];
  /** One per GPU in `nvidia-smi topo -m`; [] when the topology was not read. */
  readonly pairs: GpuNicPair[];
  readonly suggestedEnv: SuggestedEnv;
  /** What the verdicts assumed about NCCL, and where the topology came from. */
  readonly nccl: NcclSummary;
}

export interface NcclSummary {
  /** The release the verdicts follow (`2.30.7`), the newest modelled unless the user named one. */
  readonly assumed: string;
  readonly env: Readonly<Record<string, string>>;
  /** sysfs (NCCL's own source of locality), an XML topology file NCCL loads instead, or the nvidia-smi matrix; null without GPUs. */
  readonly topologySource: 'sysfs' | 'topo-file' | 'matrix' | null;
  /** The XML topology NCCL loads (NCCL_TOPO_FILE, virtualTopology.xml): used, unread (verdicts unknown), or named but absent. */
  readonly topologyFile: TopoFileNote | null;
  /** Where each variable of `env` was set: `environment` (the job, as the user said) or the nccl.conf file and line. */
  readonly envFrom: Readonly<Record<string, NcclEnvOrigin>>;
  /** Why sysfs could not be used, when it was read but fell short. */
  readonly sysfsMissing: string | null;
  /** NCCL_* values NCCL would ignore or read otherwise than they look. */
  readonly envProblems: readonly string[];
  /** The job's GPUs the verdicts are for (nvidia-smi indexes); null: every GPU of the host. */
  readonly jobGpus: readonly number[] | null;
}

export function diagnose(report: ProbeReport, job: NcclAssumptions = DEFAULT_NCCL): Diagnosis {
  // NCCL reads /etc/nccl.conf and ~/.nccl.conf under the job's environment: the verdicts follow all three.
  const host = withHostConfig(job, report);
  const nccl = host.assumptions;
  const ctx = ruleContext(report, nccl);
  const { pairs, verdict } = gpuNicPairs(ctx, nccl, host.origins);
  const gpuNone = gpuNoneFindings(report);
  const rdmaNone = rdmaNoneFindings(report);
  const unsupported = gpuSupportFindings(report);
  // Without a GPU, a NIC or a GPU that can do it, peer memory and distances cannot matter.
  const gdrPossible = gpuNone.length === 0 && rdmaNone.length === 0 && unsupported.length === 0;
  const virt = virtState(report);
  const paths = pairPaths(report, pairs);
  const blocker = blockerOf([...gpuNone, ...(gpuNone.length === 0 ? unsupported : []), ...rdmaNone]);
  const findings = [
    ...gpuNone,
    ...(gpuNone.length === 0 ? unsupported : []),
    ...rdmaNone,
    ...portDownFindings(report),
    // On an EFA host the plugin registers GPU memory: NCCL's peer-memory test and OFED do not apply.
    ...(gdrPossible && !pluginOnlyHost(report)
      ? [...peermemStateFindings(ctx), ...peermemLoadFindings(ctx), ...ofedMissingFindings(ctx), ...dmabufFindings(ctx.dmabuf)]
      : []),
    ...(gdrPossible ? netPluginFindings(report, verdict) : []),
    ...(gdrPossible && verdict ? [...nicFarFindings(report, pairs, verdict), ...gdrReceiveOnlyFindings(report, verdict)] : []),
    ...(gdrPossible ? acsFindings(report, pairs, virt) : []),
    ...(gdrPossible ? linkFindings(report, paths) : []),
    ...(gdrPossible ? [...aerFindings(report, paths), ...ibCounterFindings(report, pairs)] : []),
    ...(gdrPossible ? roceFindings(ctx, pairs) : []),
    ...(gdrPossible ? bar1Findings(report) : []),
    ...iommuFindings(
      report,
      paths.flatMap((p) => [p.gpuBdf, p.nicBdf]),
      virt.guest.length > 0,
    ),
    ...(gdrPossible ? vmFindings(report, virt, [...new Set(paths.map((p) => p.nicBdf))]) : []),
    ...operatorFindings(report),
    ...probeFindings(report, { gpuNone: gpuNone.length > 0, rdmaNone: rdmaNone.length > 0 }, blocker),
  ];
  return {
    // Errors first; knock-ons (failures that change nothing once GPUDirect RDMA is ruled out) under their cause.
    findings: nestKnockOns(sortFindings(ctx.host.operatorManaged ? findings.map(withoutHostFixes) : findings)),
    pairs,
    suggestedEnv: suggestEnv(pairs, verdict),
    nccl: {
      assumed: formatNcclVersion(nccl.version),
      env: nccl.env,
      topologySource: verdict?.source ?? null,
      topologyFile: verdict?.topoFile ?? null,
      envFrom: host.origins,
      sysfsMissing: verdict?.source === 'matrix' && factOf(report, 'pci-sysfs') ? verdict.sysfsMissing : null,
      envProblems: [...(verdict?.env.problems ?? []), ...jobProblems(job.gpus ?? null, pairs.length, factOf(report, 'topo')?.gpus.length)],
      jobGpus: job.gpus ?? null,
    },
  };
}

/** A job naming GPUs the host does not have. */
function jobProblems(jobGpus: readonly number[] | null, kept: number, onHost: number | undefined): string[] {
  if (jobGpus === null || onHost === undefined) return [];
  const absent = jobGpus.filter((g) => g >= onHost);
  return absent.length === 0 && kept > 0
    ? []
    : [t('the job names GPU {0}, which this host does not have ({1} GPUs)', absent.join(', '), onHost)];
}

/** Under the GPU Operator the host must not load or persist modules itself (docs/peer-memory.md §4). */
function withoutHostFixes(f: Finding): Finding {
  return f.fixes.length === 0 ? f : { ...f, fixes: [], detail: `${f.detail} (Quick fix withheld: the GPU Operator owns the driver.)` };
}
