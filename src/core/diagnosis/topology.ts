// Topology findings from NCCL's own decision (topology/nccl/model.ts): GPUs whose NIC is too far for
// GPUDirect RDMA even after PXN and P2C (`topo.nic-far`), and GPUs that get it only for receives
// because of NCCL's GDR-read rule (`topo.gdr-receive-only`).
import { ProbeReport } from '../probe/runProbe';
import { NCCL_SOURCE, decisionText, netLabel, thresholdText } from '../topology/nccl/explain';
import { GpuVerdict, HostVerdict } from '../topology/nccl/model';
import { formatNcclVersion } from '../topology/nccl/version';
import { quote, startsWithWord } from './evidence';
import { Finding, SOURCES } from './finding';
import { GpuNicPair } from './pairs';
import { t } from '../l10n';

export function nicFarFindings(report: ProbeReport, pairs: readonly GpuNicPair[], hv: HostVerdict): Finding[] {
  const far = hv.gpus.filter((gv) => gv.primary?.receive.block === 'distance');
  if (far.length === 0) return [];
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const threshold = far[0].primary?.receive.threshold ?? 'PXB';
  const line = (gv: GpuVerdict) => {
    const pair = pairs.find((p) => p.gpu === gv.gpu.name);
    return `${gv.gpu.name} → ${gv.primary ? netLabel(gv.primary.net) : '?'} (${pair?.link ?? gv.primary?.direct}, NCCL ${gv.primary?.path})`;
  };
  const paths = [...new Set(far.map((gv) => gv.primary?.path))];
  return [{
    id: 'topo.nic-far',
    severity: 'warning',
    title: far.length === 1
      ? t('{0}: nearest usable NIC is {1}; {2} will not use GPUDirect RDMA for it', far[0].gpu.name, paths.join('/'), nccl)
      : t('{0}: nearest usable NIC is {1}; {2} will not use GPUDirect RDMA for them', far.map((gv) => gv.gpu.name).join(', '), paths.join('/'), nccl),
    detail: [
      t('{0} uses GPUDirect RDMA only when the GPU\'s path to the NIC is within {1}, after relaying through an NVLink peer (PXN) where one is nearer.', nccl, thresholdText(threshold, hv.env.gdrLevel !== null)),
      t('NICs: {0}. These GPUs stage network traffic through host memory.', far.map(line).join('; ')),
      paths.includes('PHB') ? t('NCCL_NET_GDR_LEVEL=PHB would enable it over the PHB paths, through the CPU\'s root complex (measure it).') : '',
      paths.includes('SYS') ? t('NCCL_NET_GDR_LEVEL=SYS would force it across NUMA nodes, usually slower than staging; better give those GPUs a NIC on their own PCIe switch or NUMA node.') : '',
      t('({0}; {1}.) See the GPU rows for each verdict and how to confirm it in NCCL\'s log.', NCCL_SOURCE.checkGdr, NCCL_SOURCE.computePaths),
    ].filter((s) => s !== '').join(' '),
    evidence: far.flatMap((gv) => quote(report, 'topo', startsWithWord(gv.gpu.name))).slice(0, 8),
    fixes: [],
    source: `${SOURCES.ncclGdr}; ${SOURCES.ncclEnv}`,
  }];
}

export function gdrReceiveOnlyFindings(report: ProbeReport, hv: HostVerdict): Finding[] {
  const only = hv.gpus.filter((gv) => gv.primary?.send.block === 'read-no-nvlink' && gv.primary.receive.enabled !== false);
  if (only.length === 0) return [];
  const nccl = `NCCL ${formatNcclVersion(hv.rules.version)}`;
  const use = only[0].primary;
  return [{
    id: 'topo.gdr-receive-only',
    severity: 'warning',
    title: t('{0}: {1} uses GPUDirect RDMA for receives only', only.map((gv) => gv.gpu.name).join(', '), nccl),
    detail: hv.rules.gdrReadOnlyPreAmpere
      ? t('With NCCL_NET_GDR_READ unset, {0} lets the NIC read GPU memory (sends) only from GPUs that have an NVLink peer or compute capability 8.0 or more (since 2.19): {1}. Receives still use it. NCCL_NET_GDR_READ=1 forces it for sends (measure it: NCCL disables it because PCIe reads compete with other traffic on these GPUs).', nccl, use ? decisionText(use.send, hv) : '')
      : t('With NCCL_NET_GDR_READ unset, {0} lets the NIC read GPU memory (sends) only from GPUs that have an NVLink peer (before 2.19: every GPU): {1}. Receives still use it. NCCL_NET_GDR_READ=1 forces it for sends (measure it: NCCL disables it because PCIe reads compete with other traffic on these GPUs).', nccl, use ? decisionText(use.send, hv) : ''),
    evidence: only.flatMap((gv) => quote(report, 'topo', startsWithWord(gv.gpu.name))).slice(0, 8),
    fixes: [],
    source: SOURCES.ncclGdr,
  }];
}
