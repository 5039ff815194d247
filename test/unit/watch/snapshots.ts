// Host snapshots for the watch and metrics tests: a host probed from real saved outputs (the diagnosis
// tests' presets, through the offline runner) and diagnosed, as the CLI builds them.
import { diagnose } from '../../../src/core/diagnosis';
import { HostSnapshot, hostSnapshot } from '../../../src/core/watch/snapshot';
import { HostFiles, hostReport } from '../diagnosis/hostReport';

export async function snapshotOf(files: HostFiles, host = 'gpu01'): Promise<HostSnapshot> {
  const report = { ...(await hostReport(files)), host };
  return hostSnapshot(report, diagnose(report));
}
