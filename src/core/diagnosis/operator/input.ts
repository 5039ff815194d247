// What the operator rules read about one Kubernetes node: the two policies (or why they could not be
// read) and the operators' pods on that node with the last log lines of those that crash-loop
// (core/kube/cluster.ts reads them with get/list only). Plain data, no kubectl here.
import type { ContainerLog, NodeOperatorView } from '../../kube/cluster';
import type { NicPolicyView, PolicyView } from '../../kube/policies';

export type Readable<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface OperatorInput {
  readonly node: string;
  readonly policy: Readable<PolicyView | null>;
  readonly nicPolicy: Readable<NicPolicyView | null>;
  readonly pods: NodeOperatorView;
  /** Pod lists kubectl could not read (kubectl's words): "no such pod here" is then unknown. */
  readonly unreadPods: readonly { readonly what: 'driver' | 'mofed' | 'validator'; readonly error: string }[];
}

export const podsRead = (input: OperatorInput, what: 'driver' | 'mofed' | 'validator'): boolean =>
  !input.unreadPods.some((u) => u.what === what);

/** `kubectl logs … : <line>` evidence of a container's log: the lines that name the failure, else its last ones. */
export function logEvidence(logs: readonly ContainerLog[], pod: string, container: string, max = 4): string[] {
  const log = logs.find((l) => l.pod === pod && l.container === container);
  if (!log) return [];
  const telling = log.lines.filter((l) => /error|fail|invalid|not found|unknown symbol|disagrees/i.test(l));
  return (telling.length > 0 ? telling : log.lines).slice(-max).map((l) => `${log.command}: ${l}`);
}
