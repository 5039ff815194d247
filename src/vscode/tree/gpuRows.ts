// A GPU's row in the Hosts tree: the verdict first and the NIC NCCL gives it, in the few columns a
// sidebar at its default width shows; the tooltip leads with the verdict and what to do, then the
// facts (NICs, path, NUMA node, the GPU's model and bus address) and NCCL's reasoning last. No VS Code
// import (treeItems.ts renders it).
import { Finding, GpuNicPair, pathLabel, shortVerdict } from '../../core/diagnosis';
import { findingLabel } from '../../core/diagnosis/findingLabel';
import { factOf } from '../../core/diagnosis/evidence';
import { ProbeReport } from '../../core/probe/runProbe';
import type { HostsNode } from './nodes';
import { gdrState } from '../../protocol/topology';
import { t } from '../../core/l10n';

export function gpuNode(base: string, hostId: string, pair: GpuNicPair, report: ProbeReport, findings: readonly Finding[]): HostsNode {
  const index = /^GPU(\d+)$/.exec(pair.gpu)?.[1];
  const gpu = factOf(report, 'gpus')?.gpus.find((g) => index !== undefined && g.index === Number(index));
  const nics = pair.nics.map((n) => n.device ?? n.nic);
  const nic = nics.length === 0 ? t('no RDMA NIC') : nics.length > 1 ? `${nics[0]} +${nics.length - 1}` : nics[0];
  return {
    kind: 'gpu',
    id: `${base}/${pair.gpu}`,
    hostId,
    pair,
    label: pair.gpu,
    description: `${shortVerdict(pair)} · ${nic}${pair.link ? ` (${pathLabel(pair)})` : ''}`,
    tooltip: {
      verdict: verdictSentence(pair),
      todo: whatToDo(pair, findings),
      facts: [
        nics.length > 0 ? t('NIC(s) NCCL gives it: {0}', nics.join(', ')) : undefined,
        pair.link ? t('Path: {0}', pathLabel(pair)) : undefined,
        pair.numaNode !== null ? t('NUMA node {0}{1}', pair.numaNode, pair.cpus ? t(', CPUs {0}', pair.cpus) : '') : undefined,
        gpu ? `${gpu.name} · ${gpu.pciBusId}` : undefined,
      ].filter((x): x is string => x !== undefined),
      why: [pair.reason, pair.confirm],
    },
  };
}

/** The verdict in one sentence, as the row's icon says it. */
function verdictSentence(pair: GpuNicPair): string {
  const nic = pair.nics[0]?.device ?? pair.nics[0]?.nic;
  switch (gdrState(pair.gdr)) {
    case 'on':
      return pair.proxyGpu
        ? t('{0} uses GPUDirect RDMA, through {1} (PXN) to {2}.', pair.gpu, pair.proxyGpu, nic ?? '?')
        : t('{0} uses GPUDirect RDMA with {1}.', pair.gpu, nic ?? '?');
    case 'off':
      return nic === undefined
        ? t('{0} does not use GPUDirect RDMA: NCCL has no RDMA NIC for it.', pair.gpu)
        : t('{0} does not use GPUDirect RDMA ({1}): NCCL stages its transfers through host memory.', pair.gpu, shortVerdict(pair));
    case 'unknown':
      return t('{0}: whether NCCL uses GPUDirect RDMA is unknown: what it depends on was not read.', pair.gpu);
  }
}

/** For a GPU without GPUDirect RDMA: the host's first error (or a warning naming the GPU), and its quick fix. */
function whatToDo(pair: GpuNicPair, findings: readonly Finding[]): string | undefined {
  if (pair.gdr === true) return undefined;
  const names = (f: Finding) => new RegExp(`\\b${pair.gpu}\\b`).test(f.title);
  const cause = findings.find((f) => f.severity === 'error') ?? findings.find((f) => f.severity === 'warning' && names(f));
  if (!cause) return undefined;
  return cause.fixes.length > 0
    ? t('What to do: {0} (quick fix {1}, under Findings).', findingLabel(cause), cause.fixes[0])
    : t('What to do: see the finding "{0}".', findingLabel(cause));
}
