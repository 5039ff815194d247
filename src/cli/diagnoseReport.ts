// The human-readable report of one host's probe: what ran, what failed, what was parsed.
import { ProbeReport } from '../core/probe/runProbe';
import { CommandResult } from '../core/probe/frames';
import { nearestNics } from '../core/topology/nearestNic';

function status(c: CommandResult): string {
  if (c.state === 'not-run') return 'not run';
  if (c.missing) return 'missing';
  if (c.timedOut) return 'timed out';
  if (c.state === 'cut-off') return 'cut off';
  if (c.truncated) return 'truncated';
  return c.exitCode === 0 ? 'ok' : `exit ${c.exitCode ?? '?'}`;
}

export function formatProbeReport(report: ProbeReport): string {
  const lines = [`${report.host} — collected ${report.collectedAt} in ${report.durationMs} ms`];
  if (report.connectionLost) lines.push('  connection lost: the sections below are what arrived');
  if (report.timedOut) lines.push('  the probe hit its deadline: commands still running were stopped');
  for (const c of report.commands) {
    const fact = (report.facts as Record<string, { parsed: { ok: boolean; error?: { line: number; message: string } } } | undefined>)[c.id];
    const parse = fact && !fact.parsed.ok && fact.parsed.error ? `  (unreadable output, line ${fact.parsed.error.line}: ${fact.parsed.error.message})` : '';
    const command = c.command.length > 60 ? `${c.command.slice(0, 57)}...` : c.command;
    lines.push(`  ${status(c).padEnd(10)} ${c.id.padEnd(22)} ${command}${parse}`);
  }
  const topo = report.facts.topo?.parsed;
  if (topo?.ok) {
    lines.push('  nearest RDMA NIC per GPU:');
    for (const n of nearestNics(topo.value)) {
      const nics = n.nics.map((x) => x.device ?? x.nic).join(', ') || 'none';
      lines.push(`    ${n.gpu}: ${nics} (${n.link ?? '-'})${n.ncclDefaultUsesGdr ? '' : ' — NCCL will not use GPUDirect RDMA by default'}`);
    }
  }
  for (const note of report.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
