// A GPUDirect RDMA proof (`gdr-doctor prove`) as Prometheus gauges: per GPU, NIC port and mode what
// perftest's ib_write_bw measured and its share of the port's line rate, beside the health metrics
// (healthMetrics.ts) under the same labels, so a dashboard shows a GPU's verdict and its measured rate.
// A mode that ran without a number (it failed, it was stopped) is NaN, one series still; a mode
// skipped is left out.
import type { ModeOutcome, ProofReport } from '../prove/types';
import { Labels, MetricFamily } from './exposition';
import { family } from './healthMetrics';

export function proofFamilies(report: ProofReport): MetricFamily[] {
  const host: Labels = { host: report.host, ...(report.peer !== null ? { peer: report.peer } : {}) };
  const measured = report.gpus.flatMap((g) =>
    g.modes
      .filter((m) => m.status !== 'skipped')
      .map((m) => ({
        m,
        labels: { ...host, gpu: String(g.client.gpuIndex), nic: `${g.client.device}:${g.client.port}`, mode: m.mode },
      })),
  );
  const sample = (value: (m: ModeOutcome) => number | null) => measured.map(({ m, labels }) => ({ labels, value: value(m) ?? NaN }));
  return [
    family(
      'gdr_doctor_proof_gbps',
      "Bandwidth perftest's ib_write_bw measured between the GPU (or host memory) and its NIC port, Gb/s.",
      sample((m) => m.gbps),
    ),
    family(
      'gdr_doctor_proof_line_rate_ratio',
      "The measured bandwidth as a share of the port's line rate (0 to 1).",
      sample((m) => m.ratio),
    ),
    family('gdr_doctor_proof_last_run_timestamp_seconds', 'When gdr-doctor last measured the host (Unix time, seconds).', [
      { labels: host, value: Math.floor(Date.parse(report.startedAt) / 1000) },
    ]),
  ];
}
