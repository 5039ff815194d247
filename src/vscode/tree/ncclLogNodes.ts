// The "NCCL log" group under a host that has an NCCL log linked: the comparison's findings, then one
// row per GPU, predicted against seen in the log. Built from the host model (no VS Code import).
import { COMPARE_TEXT } from '../../core/ncclLog/compareText';
import type { ComparedGpu } from '../../core/ncclLog/compareTypes';
import { HostModel } from '../hosts/hostModel';
import { comparisonOf } from '../ncclLog/links';
import { findingNodes } from './findingNodes';
import type { HostsNode, Tone } from './nodes';
import { t } from '../../core/l10n';

/** The group's node, or none when the host has no log linked or no diagnosis yet. */
export function ncclLogGroupNodes(scope: string, hostId: string, model: HostModel): HostsNode[] {
  const host = model.get(hostId);
  const status = model.status(hostId);
  const comparison = host ? comparisonOf(host, status) : null;
  if (!comparison || !status.ncclLog) return [];
  const description = COMPARE_TEXT.treeDescription(status.ncclLog.file, comparison.findings.length);
  return [{ kind: 'group', id: `${scope}/ncclLog`, hostId, group: 'ncclLog', label: COMPARE_TEXT.treeGroup, description }];
}

export function ncclLogChildren(base: string, hostId: string, model: HostModel): HostsNode[] {
  const host = model.get(hostId);
  const comparison = host ? comparisonOf(host, model.status(hostId)) : null;
  if (!comparison) return [];
  return [
    ...findingNodes(base, hostId, comparison.findings, { source: 'ncclLog', path: [] }),
    ...comparison.gpus.map((g): HostsNode => ({
      kind: 'row',
      id: `${base}/${g.gpu}`,
      hostId,
      label: g.gpu,
      description: t('log: {0}', g.observed),
      tone: toneOf(g),
      tooltip: COMPARE_TEXT.gpuLine(g),
    })),
  ];
}

function toneOf(g: ComparedGpu): Tone {
  if (g.gdrAgrees === false) return g.way === 'none' ? 'unknown' : 'error';
  if (g.unexpectedNics.length > 0) return 'warning';
  return g.gdrAgrees === true ? 'ok' : 'unknown';
}
