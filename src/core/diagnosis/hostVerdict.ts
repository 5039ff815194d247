// A host's diagnosis in a few words, for the places that have room for no more: the Hosts view's host
// row and its icon, the status bar, the view's badge. Errors speak first (the first one names the
// host's problem); without one, how many GPUs NCCL would use GPUDirect RDMA for. Pure: the CLI may say
// the same words.
import type { Diagnosis } from './index';
import { t } from '../l10n';

/** `unknown`: no error or warning, but some GPU's GPUDirect RDMA rests on facts that were not read (never green). */
export type VerdictTone = 'ok' | 'warning' | 'error' | 'unknown';

export interface HostVerdictWords {
  /** "GDR 8/8 GPUs", "GDR 8/8 GPUs · 1 warning", "peermem not loaded", "no RDMA NIC +1". */
  readonly text: string;
  readonly tone: VerdictTone;
  readonly errors: number;
  readonly warnings: number;
}

/** Finding id → the few words that name it where a title is too long. Ids not here show their title. */
export const shortWords = (): Readonly<Record<string, string>> => ({
  'gpu.none': t('no NVIDIA GPU'),
  'gpu.no-gdr-support': t('GPU without GDR'),
  'rdma.none': t('no RDMA NIC'),
  'rdma.port-down': t('NIC port down'),
  'ofed.missing': t('no MLNX_OFED'),
  'net.plugin-missing': t('no NCCL net plugin'),
  'peermem.conflict': t('two peermem modules'),
  'peermem.legacy': t('legacy nv_peer_mem'),
  'peermem.missing': t('no peermem module'),
  'peermem.not-loaded': t('peermem not loaded'),
  'peermem.not-persistent': t('peermem not at boot'),
  'peermem.not-registered': t('peermem not registered'),
  'peermem.ofed-mismatch': t('peermem cannot load'),
  'topo.nic-far': t('NIC too far'),
  'topo.gdr-receive-only': t('GDR receives only'),
  'pcie.acs-enabled': t('ACS on'),
  'bar1.small': t('BAR1 small'),
  'iommu.enabled': t('IOMMU on'),
  'probe.command-failed': t('probe incomplete'),
  'dmabuf.available': t('dma-buf available'),
  'driver.operator-managed': t('GPU Operator driver'),
  'pcie.acs-unread': t('ACS not read'),
  'pcie.link-degraded': t('PCIe link degraded'),
  'platform.virtual-machine': t('virtual machine'),
  'roce.no-v2-gid': t('no RoCE v2 GID'),
  'roce.gid-index': t('RoCE GID index wrong'),
  'ib.mtu-low': t('IB MTU low'),
  'ib.link-degraded': t('IB link narrow'),
  'rdma.mixed-link-layers': t('IB and RoCE mixed'),
  'fleet.topology-differs': t('topology differs'),
  'fleet.acs-differs': t('ACS differs'),
  'fleet.firmware-differs': t('firmware differs'),
  'fleet.link-width-differs': t('link width differs'),
  'nccl.gdr-not-used': t('GDR predicted, not used'),
  'nccl.gdr-not-predicted': t('GDR used, not predicted'),
  'nccl.unexpected-nic': t('NIC not the predicted one'),
  'nccl.socket-fallback': t('NCCL fell back to sockets'),
  'nccl.agrees': t('log agrees'),
  'nccl.not-compared': t('nothing to compare'),
  'fleet.errors-differ': t('error counters differ'),
  'fleet.ib-rate-differs': t('IB rate differs'),
  'ib.port-errors': t('IB port errors'),
  'net.plugin': t('NCCL net plugin'),
  'operator.host-mofed': t('host MOFED mismatch'),
  'operator.kernel-module-type': t('peermem vs dma-buf'),
  'operator.mofed-not-ready': t('MOFED not ready'),
  'operator.no-driver-pod': t('no driver pod'),
  'operator.peermem-crashloop': t('peermem pod crashing'),
  'operator.rdma-disabled': t('RDMA off in ClusterPolicy'),
  'operator.unread': t('operator not read'),
  'operator.validator-failing': t('validator failing'),
  'pcie.aer-errors': t('PCIe AER errors'),
  'roce.mtu-low': t('RoCE MTU low'),
  'roce.traffic-class': t('RoCE traffic class'),
});

/** The longest text a finding's title may give (a sidebar at its default width shows about this much beside a host name). */
const MAX_TITLE = 28;

export function hostVerdict(d: Diagnosis): HostVerdictWords {
  const errors = d.findings.filter((f) => f.severity === 'error');
  const warnings = d.findings.filter((f) => f.severity === 'warning').length;
  if (errors.length > 0) {
    const more = errors.length > 1 ? ` +${errors.length - 1}` : '';
    return { text: `${findingWords(errors[0].id, errors[0].title)}${more}`, tone: 'error', errors: errors.length, warnings };
  }
  if (d.pairs.length === 0) return { text: t('GPUs not read'), tone: 'warning', errors: 0, warnings };
  const gdr = d.pairs.filter((p) => p.gdr === true).length;
  const unknown = d.pairs.filter((p) => p.gdr === null).length;
  const tone = warnings > 0 || gdr + unknown < d.pairs.length ? 'warning' : unknown > 0 ? 'unknown' : 'ok';
  // Warnings are counted where they turn the icon yellow, so "GDR 8/8" beside a warning icon reads right.
  const warned = warnings === 0 ? '' : warnings === 1 ? t(' · 1 warning') : t(' · {0} warnings', warnings);
  const unread = unknown === 0 ? '' : t(' · {0} unknown', unknown);
  const gpus = d.pairs.length === 1 ? t('GDR {0}/1 GPU', gdr) : t('GDR {0}/{1} GPUs', gdr, d.pairs.length);
  return { text: `${gpus}${unread}${warned}`, tone, errors: 0, warnings };
}

/** A finding in a few words: its short name, else its title cut to fit. */
export function findingWords(id: string, title: string): string {
  const short = shortWords()[id];
  if (short !== undefined) return short;
  return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1).trimEnd()}…`;
}
