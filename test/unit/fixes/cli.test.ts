// `gdr-doctor fix` argument handling, before any connection: usage errors, and the refusal to apply
// anything without --yes when there is no terminal to confirm on.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli';
import { runDiagnose } from '../../../src/cli/diagnoseCommand';
import { runFix } from '../../../src/cli/fixCommand';
import { CliIo } from '../../../src/cli/io';

function capture(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readInput: () => '',
  };
  return io;
}

describe('gdr-doctor fix: arguments', () => {
  it('is listed in the main help and has its own', async () => {
    const io = capture();
    assert.equal(await main(['--help'], io), 0);
    assert.match(io.out, /fix <host> <fix-id>/);
    const help = capture();
    assert.equal(await main(['fix', '--help'], help), 0);
    assert.match(help.out, /^Usage: gdr-doctor fix <destination> <fix-id> \[--yes\] \[--force\] \[--dry-run\] \[-F FILE\] \[--json\]/);
    assert.match(help.out, /GDR_DOCTOR_AUDIT_LOG/);
  });

  it('needs one destination and a known fix id (exit 64)', async () => {
    for (const [args, message] of [
      [['fix'], /give one destination and one fix id \(load-peermem or persist-peermem or disable-acs or persist-acs or export-timer\)/],
      [['fix', 'gpu-a'], /give one destination/],
      [
        ['fix', 'gpu-a', 'reboot-host'],
        /unknown fix "reboot-host": the fixes are load-peermem, persist-peermem, disable-acs, persist-acs, export-timer$/m,
      ],
      [['fix', 'gpu-a', 'load-peermem', '--forced'], /unknown option "--forced"/],
    ] as const) {
      const io = capture();
      assert.equal(await main([...args], io), 64, args.join(' '));
      assert.match(io.err, message);
    }
  });

  it('without a terminal, applies nothing unless --yes is given, before connecting anywhere', async () => {
    for (const extra of [[], ['--batch']]) {
      const io = capture();
      // .invalid never resolves: reaching the network would exit 3, not 64.
      const status = await runFix(['host.invalid', 'load-peermem', ...extra], io, { stdinIsTty: extra.length === 0 ? false : true });
      assert.equal(status, 64);
      assert.match(io.err, /no terminal to ask on: look at the plan with --dry-run, then run again with --yes/);
    }
  });

  it('an unreachable host exits 3, naming the step', async () => {
    const io = capture();
    const status = await runFix(['host.invalid', 'load-peermem', '--dry-run', '-F', '/dev/null'], io, { stdinIsTty: false });
    assert.equal(status, 3);
    assert.match(io.err, /^gdr-doctor: host\.invalid: cannot reach \(dns\)/);
  });

  it('tells an unreachable host exactly as diagnose does', async () => {
    // A ProxyJump ssh could not parse: the host cannot be reached, before any connection is tried.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-fix-reach-'));
    const config = path.join(dir, 'ssh_config');
    fs.writeFileSync(config, 'Host badjump\n  HostName 127.0.0.1\n  ProxyJump ssh://jump:0\n');
    try {
      const fix = capture();
      assert.equal(await runFix(['badjump', 'load-peermem', '--dry-run', '--batch', '-F', config], fix, { stdinIsTty: false }), 3);
      const diagnose = capture();
      assert.equal(await runDiagnose(['badjump', '--batch', '-F', config], diagnose), 3);
      assert.equal(fix.err, 'gdr-doctor: badjump: cannot reach (protocol): badjump: port out of range in "ssh://jump:0"\n');
      assert.equal(fix.err, diagnose.err);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
