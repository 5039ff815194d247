// Findings as Hosts-tree elements (no VS Code import: treeItems.ts renders them), under a host's
// Findings group, under their cause (knock-ons) and in a host's NCCL log group.
import type { Finding } from '../../core/diagnosis';
import { findingLabel } from '../../core/diagnosis/findingLabel';
import type { FindingRef } from '../findings/findingRefs';
import type { HostsNode } from './nodes';

/**
 * A finding's knock-ons (knockOn.ts) are its children in the tree, as in the CLI report. Each is labelled
 * in a few words; where two siblings' words are the same (two failed commands), the title tells them apart.
 */
export function findingNodes(base: string, hostId: string, findings: readonly Finding[], at: Omit<FindingRef, 'hostId'>): HostsNode[] {
  const labels = findings.map(findingLabel);
  return findings.map((finding, i) => {
    const twin = labels.some((l, j) => j !== i && l === labels[i]) && labels[i] !== finding.title;
    const ref = { hostId, source: at.source, path: [...at.path, i] };
    return {
      kind: 'finding',
      id: `${base}/${i}:${finding.id}`,
      hostId,
      finding,
      ref,
      label: labels[i],
      description: twin ? finding.title : '',
    };
  });
}
