// A quick fix through the core API as the CLI drives it, against a lab host over real SSH: connect,
// plan, then apply, sudo's password asked through the same prompts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { FixPlan, FixResult, newSudoMarker, prepareFix, runPlan, sshFixSession, sudoPasswordVia } from '../../src/core/fixes';
import { connect, SshConnection } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { SshPrompts } from '../../src/core/ssh/prompts';
import { resolveTarget } from '../../src/core/ssh/resolveTarget';

export async function openLabHost(sshConfigPath: string, destination: string, prompts: SshPrompts): Promise<SshConnection> {
  const target = await resolveTarget(parseDestination(destination), sshConfigPath);
  return connect(target, { prompts, resolveHop: async () => assert.fail('no hops') });
}

export async function fixOverSsh(
  sshConfigPath: string,
  destination: string,
  fixId: FixPlan['fixId'],
  prompts: SshPrompts,
  /** Runs between the plan and its application (a test changes the host there). */
  beforeApply?: (plan: FixPlan) => Promise<void> | void,
): Promise<FixResult> {
  const conn = await openLabHost(sshConfigPath, destination, prompts);
  try {
    const session = sshFixSession(conn, destination);
    const sudoMarker = newSudoMarker();
    const plan = await prepareFix(session, fixId, sudoMarker);
    await beforeApply?.(plan);
    return await runPlan(plan, session, { sudoMarker, sudoPassword: sudoPasswordVia(prompts, session) });
  } finally {
    conn.close();
  }
}

/** The entries of an audit log (GDR_DOCTOR_AUDIT_LOG), one JSON object a line, oldest first. */
export function readAuditLog(file: string) {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
