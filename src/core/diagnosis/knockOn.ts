// Knock-on findings: on a host where GPUDirect RDMA is already ruled out (no NVIDIA GPU or driver, no
// GPU that supports it, no RDMA device), a diagnostic that could not be read costs nothing more, so its
// `probe.command-failed` finding belongs under the finding that ruled it out, not beside it.
//
// The rule, decided per diagnostic rather than per symptom: each probe command feeds some of the
// checks below; a blocking finding makes some of those checks moot (docs/nccl-gdr.md: GPUDirect RDMA
// needs a GPU that supports it, an RDMA NIC, peer memory or dma-buf, and a short PCIe path). A failed
// command is a knock-on of the blocking finding when every check it feeds is moot; one that feeds a
// check still standing (the GPU list on a host without an RDMA device) stays a finding of its own.
import { ProbeCommandId } from '../probe/commands';
import { Finding } from './finding';
import { t } from '../l10n';

/** What the diagnosis checks, as far as the probe's commands feed them. */
type Check =
  /** A GPU is there and supports GPUDirect RDMA (gpu.none, gpu.no-gdr-support). */
  | 'gpu'
  /** RDMA devices and their ports (rdma.none, rdma.port-down). */
  | 'nic'
  /** The peer-memory module, OFED, dma-buf, and whether a fix may run (peermem.*, dmabuf.*, ofed.*). */
  | 'peer-memory'
  /** GPU↔NIC paths, NUMA placement and NCCL's verdicts (topo.*, the GPU rows). */
  | 'locality'
  /** IOMMU, ACS, PCIe links, BAR1, virtual machines (iommu.*, pcie.*, bar1.*, platform.*). */
  | 'platform';

/** The checks each probe command feeds (src/core/diagnosis: which rules read it). os-release feeds only the report. */
const FEEDS: Readonly<Record<ProbeCommandId, readonly Check[]>> = {
  topo: ['gpu', 'nic', 'locality'],
  gpus: ['gpu'],
  'smi-q': ['gpu', 'peer-memory', 'platform'],
  lscpu: ['locality', 'platform'],
  numactl: ['locality'],
  lsmod: ['peer-memory'],
  'modinfo-nvidia-peermem': ['peer-memory'],
  'modinfo-nv-peer-mem': ['peer-memory'],
  'modinfo-nvidia': ['peer-memory'],
  ibv: ['nic', 'locality'],
  ofed: ['peer-memory'],
  uname: ['peer-memory'],
  'os-release': [],
  'nvidia-version': ['peer-memory'],
  cmdline: ['platform'],
  'memory-peers': ['peer-memory'],
  'sys-module-peermem': ['peer-memory'],
  'modules-load': ['peer-memory'],
  'etc-modules': ['peer-memory'],
  'run-nvidia-driver': ['peer-memory'],
  'sudo-n': ['peer-memory'],
  'kallsyms-peer': ['peer-memory'],
  'nv-peer-mem-service': ['peer-memory'],
  'pci-sysfs': ['nic', 'locality', 'platform'],
  'iommu-groups': ['platform'],
  'pci-acs': ['platform'],
  dmi: ['platform'],
  'nccl-conf': ['peer-memory', 'locality'],
  'nccl-topo': ['locality'],
  'nccl-net-plugin': ['nic'],
  'fi-info': ['nic'],
  'roce-qos': ['nic'],
};

export interface Blocker {
  readonly id: string;
  /** Why the checks are moot, in a few words for the knock-on's detail (a function: the words are translated when read). */
  readonly because: () => string;
  readonly moot: ReadonlySet<Check>;
}

/**
 * The findings that rule GPUDirect RDMA out, first match wins. Without a GPU nothing else can change
 * the answer; without a GPU that supports it the NIC side no longer matters either; without an RDMA
 * device the GPUs themselves are still worth listing (a NIC may be added), the rest is moot.
 */
const BLOCKERS: readonly Blocker[] = [
  {
    id: 'gpu.none',
    because: () => t('without an NVIDIA GPU and driver, GPUDirect RDMA cannot work whatever it would show'),
    moot: new Set<Check>(['gpu', 'nic', 'peer-memory', 'locality', 'platform']),
  },
  {
    id: 'gpu.no-gdr-support',
    because: () => t('these GPUs do not support GPUDirect RDMA, whatever it would show'),
    moot: new Set<Check>(['nic', 'peer-memory', 'locality', 'platform']),
  },
  {
    id: 'rdma.none',
    because: () => t('without an RDMA device, GPUDirect RDMA has no NIC to work with, whatever it would show'),
    moot: new Set<Check>(['peer-memory', 'locality', 'platform']),
  },
];

/** The finding that rules GPUDirect RDMA out, among those found; undefined when none does. */
export function blockerOf(findings: readonly Finding[]): Blocker | undefined {
  return BLOCKERS.find((b) => findings.some((f) => f.id === b.id));
}

/** Every check these commands feed is moot under the blocker. */
export function mootUnder(blocker: Blocker | undefined, ids: readonly string[]): boolean {
  if (!blocker) return false;
  return ids.every((id) => (FEEDS[id as ProbeCommandId] ?? ['gpu']).every((check) => blocker.moot.has(check)));
}

/**
 * Nests each finding that names a cause (`causedBy`) under the first root finding with that id, in
 * order; one whose cause is not among the findings stays at the root.
 */
export function nestKnockOns(findings: readonly Finding[]): Finding[] {
  const causeOf = (f: Finding) =>
    f.causedBy === undefined ? undefined : findings.find((c) => c.id === f.causedBy && c.causedBy === undefined);
  const roots = findings.filter((f) => causeOf(f) === undefined);
  return roots.map((root) => {
    const children = findings.filter((f) => causeOf(f) === root);
    return children.length === 0 ? root : { ...root, children: [...(root.children ?? []), ...children] };
  });
}
