// The local audit log: where it lives, what one entry holds, and that only fixes that ran are kept.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixResult, appendAudit, auditLogPath, planFix } from '../../../src/core/fixes';
import { NEEDS_PEERMEM, report } from './hosts';

async function result(steps: FixResult['steps']): Promise<FixResult> {
  const plan = planFix({
    fixId: 'load-peermem',
    host: 'gpu-a',
    user: 'gdr',
    report: await report(NEEDS_PEERMEM),
    sudoMarker: 'gdr-doctor-sudo-0000000000',
  });
  return {
    fixId: 'load-peermem',
    host: 'gpu-a',
    user: 'gdr',
    status: 'applied',
    message: 'nvidia_peermem is loaded and registered (nv_mem).',
    plan,
    steps,
    findings: [],
    verification: ['lsmod / /sys/module: nvidia_peermem is loaded'],
  };
}

describe('audit log', () => {
  it('lives at $GDR_DOCTOR_AUDIT_LOG, else under $XDG_STATE_HOME, else ~/.local/state', () => {
    assert.equal(auditLogPath({ GDR_DOCTOR_AUDIT_LOG: '/x/a.log', XDG_STATE_HOME: '/s' }, '/home/u'), '/x/a.log');
    assert.equal(auditLogPath({ XDG_STATE_HOME: '/s' }, '/home/u'), '/s/gdr-doctor/audit.log');
    assert.equal(auditLogPath({ XDG_STATE_HOME: 'relative' }, '/home/u'), '/home/u/.local/state/gdr-doctor/audit.log');
    assert.equal(auditLogPath({}, '/home/u'), '/home/u/.local/state/gdr-doctor/audit.log');
  });

  it('appends one JSON line per fix that ran (host, time, commands, result), private to the user', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-audit-'));
    try {
      const log = path.join(dir, 'state', 'gdr-doctor', 'audit.log');
      const ran = await result([
        { title: 'load', command: "LC_ALL=C sudo -n /bin/sh -c '…'", exitCode: 0, stdout: '', stderr: '', ok: true },
      ]);
      assert.equal(appendAudit(ran, log, new Date('2026-01-02T03:04:05Z')), log);
      assert.equal(appendAudit(ran, log, new Date('2026-01-02T03:05:05Z')), log);
      assert.equal(appendAudit(await result([]), log), null, 'nothing ran: nothing to audit');
      const lines = fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(lines.length, 2);
      assert.deepEqual(
        { ...lines[0], commands: lines[0].commands.length },
        {
          time: '2026-01-02T03:04:05.000Z',
          host: 'gpu-a',
          user: 'gdr',
          fix: 'load-peermem',
          module: 'nvidia_peermem',
          status: 'applied',
          message: 'nvidia_peermem is loaded and registered (nv_mem).',
          commands: 1,
          fileChange: null,
          findings: [],
          verification: ['lsmod / /sys/module: nvidia_peermem is loaded'],
        },
      );
      assert.equal(fs.statSync(log).mode & 0o777, 0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
