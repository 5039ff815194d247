// The words shown when a cell or legend entry is hovered or focused. They come from the
// extension's explanations (linkTypes.ts); this file only picks which sentence applies.
import { t } from '@vscode/l10n';
import type { GdrCell, LinkExplanation, TopologyData } from '../protocol/topology';

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

  legend(token: string): string {
    const e = this.of(token);
    return e ? `${token}: ${e.meaning}. ${e.gdrVerdict}` : token;
  }

  /**
   * A cell's words. A GPU↔NIC cell leads with what happens there on this host (`pair`): the devices and the
   * distance, the verdict, then what the distance means and NCCL's rule for it (its source last).
   */
  cell(row: string, column: string, token: string | null, pair?: GdrCell): string {
    if (token === null || token === '') return t('{0} ↔ {1}: not printed in this output.', row, column);
    const e = this.of(token);
    if (!e) return `${row} ↔ ${column}: ${token}`;
    const derived = this.derived ? t(' (derived from the sysfs PCI tree: nvidia-smi topo -m was not read)') : '';
    if (pair)
      return `${t('{0} ↔ {1}: {2} — {3}', row, column, `${token}${derived}`, pair.why)} ${t('{0}: {1}.', token, e.meaning)} ${e.gdrVerdict}`;
    const head =
      row === column ? t('{0} itself: {1}', row, token) : t('{0} ↔ {1}: {2}, {3}.', row, column, `${token}${derived}`, e.meaning);
    if (e.linkClass === 'self' || row === column) return head;
    const gpuNic = this.gpus.has(row) !== this.gpus.has(column);
    if (gpuNic || e.linkClass === 'nvlink') return `${head} ${e.gdrVerdict}`;
    const between = this.gpus.has(row)
      ? t('Between two GPUs: no GPUDirect RDMA verdict applies here. For a GPU↔NIC path of this type: {0}', e.gdrVerdict)
      : t('Between two NICs: no GPUDirect RDMA verdict applies here. For a GPU↔NIC path of this type: {0}', e.gdrVerdict);
    return `${head} ${between}`;
  }
}
