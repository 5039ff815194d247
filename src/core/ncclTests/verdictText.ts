// The words of an nccl-tests verdict (verdict.ts decides, this says it), with the rule they rest on:
// busbw against the NICs' line rates, ring against tree (docs/nccl-tests.md §2).
import type { Ceiling } from './ceiling';
import type { GdrUse } from './gdrUse';
import type { NcclTestsRun } from './types';
import { t } from '../l10n';

const fixed = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(n >= 10 ? 1 : 2));

/** `8 × 400 Gb/s` when a node's ports share one rate, else their sum. */
export function portsText(c: Ceiling): string {
  const node = c.nodes[0];
  if (!node || node.ports.length === 0) return '';
  const rates = new Set(node.ports.map((p) => p.gbps));
  const each = node.ports[0].gbps;
  return rates.size === 1 && each !== null
    ? t('{0} × {1} Gb/s per node', node.ports.length, each)
    : t(
        '{0} Gb/s per node',
        node.ports.reduce((s, p) => s + (p.gbps ?? 0), 0),
      );
}

const algorithmText = (a: 'ring' | 'default' | 'unknown'): string =>
  a === 'ring' ? t('ring') : a === 'default' ? t("NCCL's own choice of algorithm") : t('algorithm not known');

/** `NCCL all_reduce`, or `nccl-tests` where the output does not say which test ran. */
export const whatRan = (op: string | null): string => (op === null ? 'nccl-tests' : `NCCL ${op}`);

export const VERDICT_TEXT = {
  bandwidth(op: string, busbw: number, size: string, c: Ceiling, ratio: number | null, algorithm: 'ring' | 'default' | 'unknown'): string {
    const possible = c.gigabytesPerSecond;
    if (possible === null || ratio === null)
      return t('{0} reaches {1} GB/s at {2} ({3})', op, fixed(busbw), size, c.unknownWhy ?? t('no figure to compare with'));
    if (ratio > 1.05 && algorithm === 'ring')
      return t(
        "{0} reports {1} GB/s at {2}, above the {3} GB/s the NICs carry ({4}): more than a ring moves through them; NCCL's log shows which NICs it used",
        op,
        fixed(busbw),
        size,
        fixed(possible),
        portsText(c),
      );
    if (ratio > 1.05)
      return t(
        "{0} reports {1} GB/s at {2}, above the {3} GB/s the NICs carry ({4}): on two nodes NCCL's tree algorithm counts more than crosses the network (nccl-tests#309); NCCL_ALGO=Ring gives the network's figure",
        op,
        fixed(busbw),
        size,
        fixed(possible),
        portsText(c),
      );
    return t(
      '{0} reaches {1} GB/s of {2} possible at {3} ({4} %, {5}; {6})',
      op,
      fixed(busbw),
      fixed(possible),
      size,
      ratio < 0.01 ? '<1' : Math.round(ratio * 100),
      algorithmText(algorithm),
      portsText(c),
    );
  },
  gdr(g: GdrUse): string {
    if (g.gpus === 0)
      return t("no network connection in NCCL's log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows them): GPUDirect RDMA not judged");
    const counted = t('GPUDirect RDMA on {0} of {1} GPUs', g.gdr, g.gpus);
    if (g.asPredicted === true) return t('{0}, as predicted', counted);
    if (g.asPredicted === false) return t('{0}, not as predicted', counted);
    return g.notInLog.length > 0
      ? t('{0} (the log names none of {1}: not compared with the prediction)', counted, g.notInLog.join(', '))
      : counted;
  },
  get noLog(): string {
    return t("NCCL's log is not in the output (NCCL_DEBUG=INFO not set): GPUDirect RDMA not judged");
  },
  noResult(op: string, run: NcclTestsRun): string {
    const why = run.errors[0] ?? run.problems[0]?.why;
    return why ? t('{0} printed no result row: {1}', op, why) : t('{0} printed no result row', op);
  },
  /** The rule, for the report under the verdict. */
  get rule(): string {
    return t(
      "Rule: nccl-tests' bus bandwidth is comparable with the hardware's bottleneck (nccl-tests doc/PERFORMANCE.md); across nodes that is the network: per node, the line rates of the ports NCCL gives the job's GPUs, the slowest node bounding the run. NCCL's maintainers expect ring all-reduce to reach 46–48 GB/s per 400 Gb/s NIC (nccl-tests#290) and 24 GB/s per 200 Gb/s NIC (nccl-tests#119), 92–96 %. On two nodes NCCL picks tree by default, which reports more than the NICs carry (nccl-tests#309): compare a ring run.",
    );
  },
};
