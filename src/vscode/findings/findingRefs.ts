// A finding named by the product's own ids: the host's id in the model, where the finding lives (the
// host's diagnosis, or its NCCL log comparison) and its position there (knock-ons nest). Command links in
// hovers and the details documents carry only a short key of this registry ("f12"), never a host's text.
// No VS Code import.
import type { Finding } from '../../core/diagnosis';
import type { DiagnosedOutcome, HostModel } from '../hosts/hostModel';
import { comparisonOf } from '../ncclLog/links';

export interface FindingRef {
  readonly hostId: string;
  readonly source: 'diagnosis' | 'ncclLog';
  /** Index in the top-level list, then in each `children` down to the finding. */
  readonly path: readonly number[];
}

export interface ResolvedFinding {
  readonly finding: Finding;
  readonly last: DiagnosedOutcome;
}

/** Far more than a view shows: older keys are dropped (a stale link then does nothing). */
const MAX_KEYS = 2000;

export class FindingRefs {
  private readonly byKey = new Map<string, FindingRef>();
  private readonly byRef = new Map<string, string>();
  private next = 1;

  /** The key of a ref: the same ref always gets the same key while it is kept. */
  key(ref: FindingRef): string {
    const text = JSON.stringify([ref.hostId, ref.source, ref.path]);
    const known = this.byRef.get(text);
    if (known !== undefined) return known;
    const key = `f${this.next++}`;
    this.byKey.set(key, ref);
    this.byRef.set(text, key);
    if (this.byKey.size > MAX_KEYS) {
      const [oldest, old] = this.byKey.entries().next().value as [string, FindingRef];
      this.byKey.delete(oldest);
      this.byRef.delete(JSON.stringify([old.hostId, old.source, old.path]));
    }
    return key;
  }

  /** The ref of a key from a link or a URI (anything else: undefined). */
  get(key: unknown): FindingRef | undefined {
    return typeof key === 'string' ? this.byKey.get(key) : undefined;
  }
}

/** The finding a ref names in the host's latest diagnosis; undefined once it is gone (fixed, re-diagnosed). */
export function resolveFinding(model: HostModel, ref: FindingRef): ResolvedFinding | undefined {
  const host = model.get(ref.hostId);
  const status = model.status(ref.hostId);
  const last = status.lastDiagnosed;
  if (!host || !last) return undefined;
  let list: readonly Finding[] = ref.source === 'diagnosis' ? last.diagnosis.findings : (comparisonOf(host, status)?.findings ?? []);
  let finding: Finding | undefined;
  for (const i of ref.path) {
    finding = list[i];
    if (!finding) return undefined;
    list = finding.children ?? [];
  }
  return finding ? { finding, last } : undefined;
}
