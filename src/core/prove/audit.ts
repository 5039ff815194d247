// A proof in the local audit log (the fixes' log: core/fixes/auditLog.ts): that a measurement ran,
// where, each command as it ran and what came of it. Nothing is changed on a host by a proof; the
// log says what loaded its links and GPUs, and when.
import { appendAuditLine, auditLogPath } from '../fixes/auditLog';
import { ProofReport } from './types';

export function proofAuditEntry(report: ProofReport, user: string | null, now: Date = new Date()) {
  return {
    time: now.toISOString(),
    kind: 'prove',
    host: report.host,
    peer: report.peer,
    via: report.via,
    user,
    status: report.status,
    refusals: report.refusals,
    gpus: report.gpus.map((g) => ({
      gpu: g.gpu,
      client: `${g.client.host}:${g.client.device}:${g.client.port}`,
      server: `${g.server.host}:${g.server.device}:${g.server.port}`,
      verdict: g.verdict,
      modes: g.modes.map((m) => ({
        mode: m.mode,
        status: m.status,
        gbps: m.gbps,
        lineRateGbps: m.lineRateGbps,
        ratio: m.ratio,
        reason: m.reason,
        command: m.command,
        ...(m.sharedFrom ? { sharedFrom: m.sharedFrom } : {}),
      })),
    })),
  };
}

/** Appends the proof when a measurement ran; returns the log's path, or null when nothing ran (refused). */
export function appendProofAudit(
  report: ProofReport,
  user: string | null,
  logPath: string = auditLogPath(),
  now: Date = new Date(),
): string | null {
  const ran = report.gpus.some((g) => g.modes.some((m) => m.command !== null));
  return ran ? appendAuditLine(proofAuditEntry(report, user, now), logPath) : null;
}
