// An NCCL log's comparison with a host as text: the heading (which host, which log host, which NCCL
// release the prediction follows), one line per GPU (predicted, seen in the log), then the findings.
// `gdr-doctor nccl-log --host` prints it under the log's summary.
import { formatFindings } from '../report/findingsText';
import type { NcclHostComparison } from './compareTypes';
import { COMPARE_TEXT } from './compareText';

export function comparisonText(c: NcclHostComparison): string {
  const lines = [COMPARE_TEXT.heading(c)];
  if (Object.keys(c.envFromLog).length > 0) lines.push(`  (${COMPARE_TEXT.envFromLog(c.envFromLog)})`);
  for (const g of c.gpus) lines.push(`  ${COMPARE_TEXT.gpuLine(g)}`);
  lines.push(...formatFindings(c.findings));
  return lines.join('\n');
}
