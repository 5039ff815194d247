// The part of an NCCL log summary a fixture's `<name>.expected.json` sidecar states (test/fixtures/SOURCES.md).
import type { NcclLogSummary } from '../../src/core/ncclLog/types';

export function sidecarView(s: NcclLogSummary): unknown {
  const hosts: Record<string, unknown> = {};
  for (const h of s.hosts) {
    const nicsByGpu: Record<string, string[]> = {};
    for (const g of h.gpus) {
      if (g.nics.length === 0) continue;
      // The NVML index where the log names it (one process per GPU prints [0] everywhere), else the CUDA device.
      const base = String(g.nvmlDev ?? g.dev);
      let key = base;
      for (let i = 2; key in nicsByGpu; i++) key = `${base}#${i}`;
      nicsByGpu[key] = g.nics.map((n) => n.name);
    }
    hosts[h.name] = {
      ranks: h.ranks,
      network: h.network,
      netConnections: h.netConnections,
      nicsByGpu,
      gdrOffReasons: h.gdrOffReasons.length,
    };
  }
  return {
    ncclVersion: s.ncclVersion,
    network: s.network,
    verdict: s.verdict,
    netConnections: s.netConnections,
    hcas: s.hcas,
    hosts,
    findings: s.findings.map((f) => f.id),
  };
}
