// The local audit log: one JSON line per fix that ran anything on a host (host, time, commands,
// result), so an operator can later tell what gdr-doctor changed where; measurements add their own
// lines (core/prove/audit.ts). Never holds a password: the commands carry none (sudo's goes on
// stdin), and sudo's prompt marker is already removed from output.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixResult } from './types';

export interface AuditEntry {
  readonly time: string;
  readonly host: string;
  readonly user: string;
  readonly fix: string;
  readonly module: string | null;
  readonly status: string;
  readonly message: string;
  readonly commands: { readonly command: string; readonly exitCode: number | null; readonly stdout: string; readonly stderr: string }[];
  readonly fileChange: { readonly path: string; readonly diff: string } | null;
  /** Further files the fix changed (persist-acs: the boot script and unit, or the bootloader's files). */
  readonly otherFileChanges?: { readonly path: string; readonly diff: string }[];
  /** Processes that held the GPUs or RDMA devices when the script looked. */
  readonly holders?: { readonly pid: number; readonly command: string; readonly devices: string[] }[];
  /** disable-acs / persist-acs: the bridges and their ACSCtl before (for undo). */
  readonly bridges?: { readonly bdf: string; readonly before: string | null }[];
  readonly findings: string[];
  readonly verification: string[];
}

/** `$GDR_DOCTOR_AUDIT_LOG`, else `$XDG_STATE_HOME/gdr-doctor/audit.log`, else `~/.local/state/gdr-doctor/audit.log`. */
export function auditLogPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  if (env.GDR_DOCTOR_AUDIT_LOG) return env.GDR_DOCTOR_AUDIT_LOG;
  // The XDG spec ignores a relative XDG_STATE_HOME.
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'gdr-doctor', 'audit.log');
}

export function auditEntry(result: FixResult, now: Date = new Date()): AuditEntry {
  return {
    time: now.toISOString(),
    host: result.host,
    user: result.user,
    fix: result.fixId,
    module: result.plan.module,
    status: result.status,
    message: result.message,
    commands: result.steps.map((s) => ({ command: s.command, exitCode: s.exitCode, stdout: s.stdout, stderr: s.stderr })),
    fileChange: result.plan.fileChange ? { path: result.plan.fileChange.path, diff: result.plan.fileChange.diff } : null,
    ...(result.plan.otherFileChanges
      ? { otherFileChanges: result.plan.otherFileChanges.map((c) => ({ path: c.path, diff: c.diff })) }
      : {}),
    ...(result.plan.acs ? { bridges: result.plan.acs.bridges.map((b) => ({ bdf: b.bdf, before: b.before })) } : {}),
    ...(result.holders ? { holders: result.holders.map((h) => ({ pid: h.pid, command: h.command, devices: h.devices })) } : {}),
    findings: result.findings.map((f) => f.id),
    verification: result.verification,
  };
}

/** Appends the result when something ran on the host; returns the log's path, or null when nothing ran. */
export function appendAudit(result: FixResult, logPath: string = auditLogPath(), now: Date = new Date()): string | null {
  if (result.steps.length === 0) return null;
  return appendAuditLine(auditEntry(result, now), logPath);
}

/** One JSON line at the end of the log (made private to the user when created); returns the log's path. */
export function appendAuditLine(entry: object, logPath: string = auditLogPath()): string {
  fs.mkdirSync(path.dirname(logPath), { recursive: true, mode: 0o700 });
  fs.appendFileSync(logPath, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  return logPath;
}
