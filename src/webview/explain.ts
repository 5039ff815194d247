// The words shown when a cell or legend entry is hovered or focused. They come from the
// extension's explanations (linkTypes.ts); this file only picks which sentence applies.
import { t } from '@vscode/l10n';
import type { GdrCell, LinkExplanation, TopologyData } from '../protocol/topology';

/**
 * What a hovered or focused part says, in the order it is read: the verdict (and what to do) first, then
 * what the part is, then why, with NCCL's source, last and in smaller type.
 */
export interface Explained {
  readonly lead: string;
  readonly body?: string;
  readonly why?: string;
}

/** One line for a title or an aria-label: the same words, in the same order. */
export function flat(e: Explained): string {
  return [e.lead, e.body, e.why].filter((x) => x !== undefined && x !== '').join(' ');
}

/** A translated paragraph cut after its first sentence: the first is the lead, the rest (with its source) the why. */
export function firstSentence(text: string): Explained {
  const m = /^(.+?[.。])\s*(.+)$/su.exec(text);
  return m ? { lead: m[1], why: m[2] } : { lead: text };
}

export class Explainer {
  private readonly byToken: Map<string, LinkExplanation>;
  private readonly gpus: Set<string>;
  private readonly derived: boolean;

  constructor(data: TopologyData) {
    this.byToken = new Map(data.explanations.map((e) => [e.token, e]));
    this.gpus = new Set(data.gpus.map((g) => g.name));
    this.derived = data.derived;
  }

  of(token: string): LinkExplanation | undefined {
    return this.byToken.get(token);
  }

  /** A legend entry: what NCCL does over such a link by distance first, what the link is, the rule and its source last. */
  legend(token: string): Explained {
    const e = this.of(token);
    if (!e) return { lead: token };
    const lead =
      e.usesGdr === true
        ? t('{0}: GPUDirect RDMA by distance, where both sides support it.', token)
        : e.usesGdr === false
          ? t('{0}: no GPUDirect RDMA by distance (unless NCCL relays through an NVLink peer nearer the NIC, PXN).', token)
          : t('{0}: no GPUDirect RDMA verdict for this link.', token);
    return { lead, body: `${e.meaning}.`, why: e.gdrVerdict };
  }

  /**
   * A cell's words. A GPU↔NIC cell leads with what happens there on this host (`pair`): the devices and the
   * distance, the verdict, then what the distance means and NCCL's rule for it (its source last).
   */
  cell(row: string, column: string, token: string | null, pair?: GdrCell): Explained {
    if (token === null || token === '') return { lead: t('{0} ↔ {1}: not printed in this output.', row, column) };
    const e = this.of(token);
    if (!e) return { lead: `${row} ↔ ${column}: ${token}` };
    const derived = this.derived ? t(' (derived from the sysfs PCI tree: nvidia-smi topo -m was not read)') : '';
    if (pair)
      return {
        lead: t('{0} ↔ {1}: {2} — {3}', row, column, `${token}${derived}`, pair.why),
        body: t('{0}: {1}.', token, e.meaning),
        why: e.gdrVerdict,
      };
    const head =
      row === column ? t('{0} itself: {1}', row, token) : t('{0} ↔ {1}: {2}, {3}.', row, column, `${token}${derived}`, e.meaning);
    if (e.linkClass === 'self' || row === column) return { lead: head };
    const gpuNic = this.gpus.has(row) !== this.gpus.has(column);
    if (gpuNic || e.linkClass === 'nvlink') return { lead: head, why: e.gdrVerdict };
    const between = this.gpus.has(row)
      ? t('Between two GPUs: no GPUDirect RDMA verdict applies here. For a GPU↔NIC path of this type: {0}', e.gdrVerdict)
      : t('Between two NICs: no GPUDirect RDMA verdict applies here. For a GPU↔NIC path of this type: {0}', e.gdrVerdict);
    return { lead: head, why: between };
  }
}
