// A host's diagnosis in a few words, for the places that have room for no more: the Hosts view's host
// row and its icon, the status bar, the view's badge. Errors speak first (the first one names the
// host's problem); without one, how many GPUs NCCL would use GPUDirect RDMA for. Pure: the CLI may say
// the same words.
import type { Diagnosis } from './index';

export type VerdictTone = 'ok' | 'warning' | 'error';

export interface HostVerdictWords {
  /** "GDR 8/8 GPUs", "GDR 8/8 GPUs · 1 warning", "peermem not loaded", "no RDMA NIC +1". */
  readonly text: string;
  readonly tone: VerdictTone;
  readonly errors: number;
  readonly warnings: number;
}

/** Finding id → the few words that name it where a title is too long. Ids not here show their title. */
const SHORT_WORDS: Readonly<Record<string, string>> = {
  'gpu.none': 'no NVIDIA GPU',
  'gpu.no-gdr-support': 'GPU without GDR',
  'rdma.none': 'no RDMA NIC',
  'rdma.port-down': 'NIC port down',
  'ofed.missing': 'no MLNX_OFED',
  'peermem.conflict': 'two peermem modules',
  'peermem.legacy': 'legacy nv_peer_mem',
  'peermem.missing': 'no peermem module',
  'peermem.not-loaded': 'peermem not loaded',
  'peermem.not-persistent': 'peermem not at boot',
  'peermem.not-registered': 'peermem not registered',
  'peermem.ofed-mismatch': 'peermem cannot load',
  'topo.nic-far': 'NIC too far',
  'topo.gdr-receive-only': 'GDR receives only',
  'pcie.acs-enabled': 'ACS on',
  'bar1.small': 'BAR1 small',
  'iommu.enabled': 'IOMMU on',
  'probe.command-failed': 'probe incomplete',
};

/** The longest text a finding's title may give (a sidebar at its default width shows about this much beside a host name). */
const MAX_TITLE = 28;

export function hostVerdict(d: Diagnosis): HostVerdictWords {
  const errors = d.findings.filter((f) => f.severity === 'error');
  const warnings = d.findings.filter((f) => f.severity === 'warning').length;
  if (errors.length > 0) {
    const more = errors.length > 1 ? ` +${errors.length - 1}` : '';
    return { text: `${findingWords(errors[0].id, errors[0].title)}${more}`, tone: 'error', errors: errors.length, warnings };
  }
  if (d.pairs.length === 0) return { text: 'GPUs not read', tone: 'warning', errors: 0, warnings };
  const gdr = d.pairs.filter((p) => p.gdr).length;
  const tone = gdr === d.pairs.length && warnings === 0 ? 'ok' : 'warning';
  // Warnings are counted where they turn the icon yellow, so "GDR 8/8" beside a warning icon reads right.
  const warned = warnings > 0 ? ` · ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
  return { text: `GDR ${gdr}/${d.pairs.length} GPU${d.pairs.length === 1 ? '' : 's'}${warned}`, tone, errors: 0, warnings };
}

/** A finding in a few words: its short name, else its title cut to fit. */
export function findingWords(id: string, title: string): string {
  const short = SHORT_WORDS[id];
  if (short !== undefined) return short;
  return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1).trimEnd()}…`;
}
