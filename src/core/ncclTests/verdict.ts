// One verdict for an nccl-tests run (docs/nccl-tests.md §2, §4): the largest size's bus bandwidth against
// what the nodes' NICs allow, and GPUDirect RDMA per GPU from NCCL's own log against diagnose's
// prediction. "NCCL all_reduce reaches 372 GB/s of 400 possible (93 %), GPUDirect RDMA on 16 of 16 GPUs,
// as predicted", or what is wrong and the finding that explains it.
import type { NcclAssumptions } from '../diagnosis';
import type { NcclLogSummary } from '../ncclLog';
import type { Tone } from '../prove/types';
import { Ceiling, NcclNode, NcclOp, opOf, runCeiling } from './ceiling';
import { GdrUse, gdrUse } from './gdrUse';
import { largestRow } from './index';
import { formatBytes } from './summaryText';
import type { NcclTestsRun } from './types';
import { VERDICT_TEXT, whatRan } from './verdictText';

/** Ring all-reduce reaches 46–48 GB/s of a 400 Gb/s NIC's 50 and 24 of a 200 Gb/s NIC's 25 (docs/nccl-tests.md §2). */
export const EXPECTED_RATIO = { low: 0.92, high: 0.96 } as const;
/** Below this share of the NICs, the run is reported as below what they allow. */
const OK_RATIO = 0.85;
/** At or below this, as good as not using the network well at all. */
const BAD_RATIO = 0.5;

export interface NcclBandwidth {
  readonly op: NcclOp | null;
  readonly size: number | null;
  readonly busbw: number | null;
  readonly side: 'out-of-place' | 'in-place' | null;
  readonly ceiling: Ceiling;
  /** busbw ÷ the ceiling, rounded to 0.01; null when either is unknown. */
  readonly ratio: number | null;
  /** `ring` when the run forced NCCL_ALGO=Ring; `default`: NCCL chose (tree on two nodes reports more). */
  readonly algorithm: 'ring' | 'default' | 'unknown';
}

export interface NcclVerdict {
  readonly verdict: string;
  readonly tone: Tone;
  readonly bandwidth: NcclBandwidth;
  readonly gdr: GdrUse | null;
  /** Finding ids (and titles) that explain what is wrong, first the most direct. */
  readonly explainedBy: string[];
}

export interface VerdictInput {
  readonly run: NcclTestsRun;
  readonly log: NcclLogSummary | null;
  readonly nodes: readonly NcclNode[];
  readonly nccl: NcclAssumptions;
  readonly algorithm: NcclBandwidth['algorithm'];
  /** When the test name is not in the output (the caller knows what it ran). */
  readonly op?: NcclOp | null;
}

export function ncclVerdict(input: VerdictInput): NcclVerdict {
  const op = opOf(input.run.test) ?? input.op ?? null;
  const largest = largestRow(input.run);
  const ceiling = runCeiling(input.nodes, input.run, op);
  const ratio = largest && ceiling.gigabytesPerSecond ? Math.round((largest.busbw / ceiling.gigabytesPerSecond) * 100) / 100 : null;
  const bandwidth: NcclBandwidth = {
    op,
    size: largest?.row.size ?? null,
    busbw: largest?.busbw ?? null,
    side: largest?.side ?? null,
    ceiling,
    ratio,
    algorithm: input.algorithm,
  };
  const gdr = gdrUse(input.log, input.nodes, input.nccl);
  const explainedBy = explanations(gdr, input.nodes, ratio);
  return {
    verdict: sentence(bandwidth, gdr, explainedBy, input.run),
    tone: toneOf(bandwidth, gdr, input.run),
    bandwidth,
    gdr,
    explainedBy,
  };
}

function toneOf(b: NcclBandwidth, gdr: GdrUse | null, run: NcclTestsRun): Tone {
  const failed = b.busbw === null || run.errors.length > 0 || run.out_of_bounds?.okay === false;
  if (failed || gdr?.findings.some((f) => f.severity === 'error') || (b.ratio !== null && b.ratio <= BAD_RATIO)) return 'error';
  if ((b.ratio !== null && b.ratio < OK_RATIO) || gdr?.asPredicted === false || (gdr?.findings.length ?? 0) > 0) return 'warning';
  return b.ratio === null || b.ratio > 1.05 || !gdr?.asPredicted ? 'unknown' : 'ok';
}

/** The comparison's findings first; where bandwidth or GDR falls short without one, the nodes' own errors and warnings. */
function explanations(gdr: GdrUse | null, nodes: readonly NcclNode[], ratio: number | null): string[] {
  const out = (gdr?.findings ?? []).map((f) => `${f.id}: ${f.title}`);
  const short = (ratio !== null && ratio < OK_RATIO) || (gdr !== null && gdr.gdr < gdr.gpus);
  if (short)
    for (const n of nodes)
      for (const f of n.diagnosis.findings.filter((x) => x.severity !== 'info'))
        if (!out.some((o) => o.startsWith(`${f.id}:`))) out.push(`${f.id}: ${f.title}`);
  return out.slice(0, 8);
}

function sentence(b: NcclBandwidth, gdr: GdrUse | null, explainedBy: readonly string[], run: NcclTestsRun): string {
  const op = whatRan(b.op);
  if (b.busbw === null || b.size === null) return VERDICT_TEXT.noResult(op, run);
  const parts = [VERDICT_TEXT.bandwidth(op, b.busbw, formatBytes(b.size), b.ceiling, b.ratio, b.algorithm)];
  if (gdr) parts.push(VERDICT_TEXT.gdr(gdr));
  else parts.push(VERDICT_TEXT.noLog);
  const why = explainedBy[0];
  return why && (b.ratio === null || b.ratio < OK_RATIO || gdr?.asPredicted === false) ? `${parts.join(', ')}: ${why}` : parts.join(', ');
}
