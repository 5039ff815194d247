// The demo host from the built CLI, end to end: `diagnose --demo` shows the failure, `fix --demo`
// shows the simulated plan, applies it to the demo's state and shows the host after it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI } from '../../support/paths';
import { joinedRegExp } from '../../support/joinedRegExp';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gdr-doctor fix --demo (built CLI)', () => {
  it('load-peermem: the simulated plan, the result, and the host after it (peer memory fixed, every GPU with GPUDirect RDMA)', () => {
    const r = cli(['fix', '--demo', 'load-peermem']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^demo-hgx-h100 \(replayed\): load-peermem \(nvidia_peermem\): plan \(SIMULATED on the demo host: nothing runs on any machine\)\n/,
    );
    assert.match(r.stdout, /\$ LC_ALL=C sudo -n \/bin\/sh -c 'PATH=/);
    assert.match(r.stdout, /- Simulated: the demo host is replayed from recordings/);
    assert.match(
      r.stdout,
      joinedRegExp(
        [
          /^demo-hgx-h100 \(replayed\): load-peermem applied/,
          / \(SIMULATED on the demo host: nothing runs on any machine\): nvidia_peermem is loaded and registered \(nv_mem\)\.$/,
        ],
        'm',
      ),
    );
    const after = r.stdout.slice(r.stdout.indexOf('demo-hgx-h100 (replayed) after load-peermem (simulated):'));
    assert.ok(after.length > 0, r.stdout);
    assert.doesNotMatch(after, /peermem\.not-loaded/);
    assert.match(after, /WARN {2}peermem\.not-persistent/);
    assert.match(after, /^ {4}GPU1: mlx5_0 — GDR yes via GPU0 \(PXN\)$/m);
    assert.doesNotMatch(after, /GDR no/);
    assert.equal(r.stderr, '');
  });

  it('persist-peermem --json: plan with the new file, result applied, only the port finding left after it', () => {
    const r = cli(['fix', '--demo', 'persist-peermem', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const { plan, result, after } = JSON.parse(r.stdout);
    assert.equal(plan.simulated, true);
    assert.deepEqual(
      plan.steps.map((s: { kind: string }) => s.kind),
      ['load', 'persist'],
    );
    assert.equal(plan.fileChange.path, '/etc/modules-load.d/nvidia-peermem.conf');
    assert.equal(result.status, 'applied');
    assert.deepEqual(
      after.findings.map((f: { id: string }) => f.id),
      ['rdma.port-down', 'pcie.acs-unread'],
    );
  });

  it('--dry-run shows the plan only; every run starts from the recordings', () => {
    const dry = cli(['fix', '--demo', 'load-peermem', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /: plan \(SIMULATED/);
    assert.doesNotMatch(dry.stdout, /applied/);
    // A fix in one run is not remembered by the next: the demo is as recorded again.
    cli(['fix', '--demo', 'load-peermem']);
    assert.match(cli(['diagnose', '--demo']).stdout, /ERROR peermem\.not-loaded/);
  });

  it('takes a fix id and no destination (exit 64)', () => {
    for (const args of [
      ['fix', '--demo'],
      ['fix', '--demo', 'gpu01', 'load-peermem'],
      ['fix', '--demo', 'reboot'],
    ]) {
      const r = cli(args);
      assert.equal(r.status, 64, args.join(' '));
    }
  });
});
