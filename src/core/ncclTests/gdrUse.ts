// NCCL's own log of the run (NCCL_DEBUG=INFO, the same output as the table) read by the NCCL log reader,
// and, per diagnosed node, compared with what diagnose predicted for it (core/ncclLog compare: per GPU
// the model's GDR verdict against `/GDRDMA` on its network connections; docs/nccl-tests.md §4).
import type { NcclAssumptions } from '../diagnosis';
import type { Finding } from '../diagnosis/finding';
import { compareNcclLogWithHost, logHostsMatching } from '../ncclLog/compare';
import type { NcclHostComparison } from '../ncclLog/compareTypes';
import type { NcclLogSummary } from '../ncclLog';
import type { NcclNode } from './ceiling';

export interface GdrUse {
  /** GPUs with network connections in the log, and those whose every such connection named /GDRDMA. */
  readonly gpus: number;
  readonly gdr: number;
  /** GPUs the model predicts GPUDirect RDMA for (one way or both), among those compared. */
  readonly predicted: number;
  /** Every compared GPU agrees with the prediction and no comparison found a problem; null: nothing compared. */
  readonly asPredicted: boolean | null;
  readonly comparisons: NcclHostComparison[];
  /** Nodes whose name the log never printed (no comparison for them). */
  readonly notInLog: string[];
  /** The comparisons' error and warning findings, errors first. */
  readonly findings: Finding[];
}

export function gdrUse(summary: NcclLogSummary | null, nodes: readonly NcclNode[], nccl: NcclAssumptions): GdrUse | null {
  if (!summary) return null;
  const comparisons: NcclHostComparison[] = [];
  const notInLog: string[] = [];
  for (const node of nodes) {
    const logHost = logHostsMatching(summary, [node.host])[0];
    if (logHost === undefined) notInLog.push(node.host);
    else comparisons.push(compareNcclLogWithHost({ summary, logHost, host: node.host, report: node.report, nccl }));
  }
  const logGpus = summary.hosts.flatMap((h) => h.gpus).filter((g) => g.netConnections.total > 0);
  const compared = comparisons.flatMap((c) => c.gpus).filter((g) => g.gdrAgrees !== null);
  const findings = comparisons.flatMap((c) => c.findings).filter((f) => f.severity !== 'info');
  return {
    gpus: logGpus.length,
    gdr: logGpus.filter((g) => g.netConnections.gdrdma === g.netConnections.total).length,
    predicted: compared.filter((g) => g.way !== 'none').length,
    asPredicted: compared.length === 0 ? null : compared.every((g) => g.gdrAgrees === true) && findings.length === 0,
    comparisons,
    notInLog,
    findings: [...findings.filter((f) => f.severity === 'error'), ...findings.filter((f) => f.severity !== 'error')],
  };
}
