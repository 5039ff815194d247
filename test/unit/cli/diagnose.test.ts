// `gdr-doctor diagnose` without a network: the demo host and a folder of saved outputs.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, FIXTURES } from '../../support/paths';
import { H100_STUBS, makeFakeHost } from '../probe/fakeHost';
import { joinedRegExp } from '../../support/joinedRegExp';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gdr-doctor diagnose (offline paths)', () => {
  it('--demo reports the replayed node: every diagnostic collected, the peer-memory failure and its fixes', () => {
    const r = cli(['diagnose', '--demo']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^demo-hgx-h100 \(replayed\)/);
    assert.match(r.stdout, /ok\s+topo\s+nvidia-smi topo -m/);
    // modinfo finds no legacy nv_peer_mem: exit 1 is its answer, not a failure; nothing else is short of "ok".
    const statuses = r.stdout.split('\n').filter((l) => /^ {2}\S/.test(l) && !/findings:|GPU↔NIC|suggested/.test(l));
    assert.equal(statuses.length, 32);
    assert.deepEqual(
      statuses.filter((l) => !l.startsWith('  ok ')).map((l) => l.trim().split(/\s+/).slice(0, 3).join(' ')),
      ['exit 1 modinfo-nv-peer-mem'],
    );
    assert.match(r.stdout, /^ {4}ERROR peermem\.not-loaded: nvidia_peermem is not loaded\n/m);
    assert.match(r.stdout, /^ {10}fix: gdr-doctor fix <host> load-peermem$/m);
    assert.match(r.stdout, /^ {4}WARN {2}peermem\.not-persistent: nvidia_peermem is not loaded at boot$/m);
    assert.match(r.stdout, /^ {4}WARN {2}rdma\.port-down: No active port on mlx5_1$/m);
    // Without peer memory (and no dma-buf with the proprietary driver) no GPU gets GPUDirect RDMA.
    assert.match(r.stdout, /GPU0: mlx5_0:1, mlx5_2:1, mlx5_3:1 \(PIX → NCCL PHB\) — NUMA 0, CPUs 0-47,96-143 — GDR no/);
  });

  it('--demo --json has the report shape with parsed facts', () => {
    const r = cli(['diagnose', '--demo', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    for (const key of ['host', 'collectedAt', 'durationMs', 'commands', 'facts', 'findings', 'pairs']) assert.ok(key in report, key);
    assert.equal(report.facts.topo.parsed.ok, true);
    assert.equal(report.facts.topo.parsed.value.gpus.length, 8);
    const topo = report.commands.find((c: { id: string }) => c.id === 'topo');
    assert.equal(topo.exitCode, 0);
    assert.match(topo.stdout, /NIC Legend:/);
  });

  it('--from DIR reads saved outputs and reports what is missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-from-'));
    fs.copyFileSync(path.join(FIXTURES, 'topo/seed-xeon-gold-5318y-8gpu-3nic.txt'), path.join(dir, 'topo.txt'));
    fs.copyFileSync(path.join(FIXTURES, 'numactl/seed-xeon-gold-5318y-2node.txt'), path.join(dir, 'numactl.txt'));
    const r = cli(['diagnose', '--from', dir, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.facts.topo.parsed.value.nics[2].device, 'mlx5_2');
    assert.equal(report.facts.numactl.parsed.value.nodes[1].sizeMb, 258027);
    assert.equal(report.commands.find((c: { id: string }) => c.id === 'lscpu').state, 'not-run');
    fs.rmSync(dir, { recursive: true });
  });

  it('--from DIR whose files link elsewhere (/dev/zero, a secret): refused with a note per file, the secret never printed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-from-links-'));
    const secret = `SECRET-${process.pid}-${Date.now()}`;
    fs.writeFileSync(path.join(dir, 'secret'), `PRETTY_NAME="${secret}"\n`);
    fs.symlinkSync(path.join(dir, 'secret'), path.join(dir, 'os-release.txt'));
    fs.symlinkSync('/dev/zero', path.join(dir, 'topo.txt'));
    const r = cli(['diagnose', '--from', dir]);
    fs.rmSync(dir, { recursive: true });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^ {2}note: topo: \S+topo\.txt is a symbolic link: a saved folder is read from regular files only, so it was not read$/m,
    );
    assert.match(r.stdout, /^ {2}note: os-release: \S+os-release\.txt is a symbolic link/m);
    assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret));
  });

  it('--from DIR holding none of the files it reads: exit 66, naming them and the collect script', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-from-empty-'));
    try {
      // A folder of something else, and the saved outputs one level down (the user named the parent).
      fs.writeFileSync(path.join(dir, 'notes.md'), 'saved on gpu01\n');
      fs.mkdirSync(path.join(dir, 'gpu01'));
      fs.copyFileSync(path.join(FIXTURES, 'topo/seed-xeon-gold-5318y-8gpu-3nic.txt'), path.join(dir, 'gpu01', 'topo.txt'));
      const r = cli(['diagnose', '--from', dir]);
      assert.equal(r.status, 66, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /holds none of the files --from reads/);
      for (const name of ['topo.txt', 'lsmod.txt', 'modules-load.txt', 'pci-sysfs.txt', 'iommu-groups.txt'])
        assert.ok(r.stderr.includes(name), name);
      assert.match(r.stderr, /--print-collect-script/);
      assert.ok(r.stderr.includes(`These folders inside it do: ${path.join(dir, 'gpu01')}.`), r.stderr);
      // The same folder with one saved output is a (partial) probe: read, exit 0.
      fs.copyFileSync(path.join(dir, 'gpu01', 'topo.txt'), path.join(dir, 'topo.txt'));
      assert.equal(cli(['diagnose', '--from', dir]).status, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists knock-on findings under their cause, in the text and in --json (a real machine without GPUs)', () => {
    const dir = path.join(FIXTURES, '../probes/debian12-vm-no-gpu');
    const text = cli(['diagnose', '--from', dir]);
    assert.equal(text.status, 0, text.stderr);
    const findings = text.stdout.slice(text.stdout.indexOf('  findings:'));
    assert.match(findings, /^ {2}findings:\n {4}ERROR gpu\.none: nvidia-smi is not installed: no NVIDIA driver\n/);
    assert.match(
      findings,
      joinedRegExp(
        [
          /^ {10}8 more findings following from this one \(nothing they show can change the answer until it is solved\):/,
          /\n {12}info {2}probe\.command-failed: Could not read `numactl -H`: command not found \(exit 127\)\n {18}> numactl -H: /,
        ],
        'm',
      ),
    );
    // Nothing else at the top level: every other line of the findings is indented under gpu.none.
    assert.deepEqual(
      findings
        .split('\n')
        .filter((l) => /^ {4}\S/.test(l))
        .map((l) => l.trim().split(':')[0]),
      ['ERROR gpu.none'],
    );
    const json = JSON.parse(cli(['diagnose', '--from', dir, '--json']).stdout);
    assert.deepEqual(
      json.findings.map((f: { id: string }) => f.id),
      ['gpu.none'],
    );
    assert.equal(json.findings[0].children.length, 8);
    assert.ok(
      json.findings[0].children.every((c: { causedBy: string; severity: string }) => c.causedBy === 'gpu.none' && c.severity === 'info'),
    );
  });

  it('refuses ambiguous or missing input with exit 64', () => {
    assert.equal(cli(['diagnose']).status, 64);
    assert.equal(cli(['diagnose', '--demo', '--local']).status, 64);
    assert.equal(cli(['diagnose', '--from', '/nonexistent/dir']).status, 64);
    assert.equal(cli(['diagnose', '--demo', '--timeout', 'soon']).status, 64);
    assert.equal(cli(['diagnose', '--help']).status, 0);
  });
});

describe('gdr-doctor diagnose --print-collect-script', () => {
  it('prints a script that, run with sh on a host, saves what --from reads', () => {
    const printed = cli(['diagnose', '--print-collect-script']);
    assert.equal(printed.status, 0, printed.stderr);
    assert.match(printed.stdout, /^#!\/bin\/sh\n/);
    const host = makeFakeHost(H100_STUBS);
    const out = path.join(host.log, 'saved');
    try {
      const script = path.join(host.log, 'gdr-doctor-collect.sh');
      fs.writeFileSync(script, printed.stdout);
      spawnSync('/bin/sh', [script, out], { env: host.env, encoding: 'utf8' });
      const r = cli(['diagnose', '--from', out, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      // h100-hgx-8gpu-nic-legend-spaces: 8 GPUs, NIC0..NIC7 = mlx5_0..mlx5_7.
      assert.equal(report.facts.topo.parsed.value.gpus.length, 8);
      assert.equal(report.facts.topo.parsed.value.nics[7].device, 'mlx5_7');
      assert.equal(report.facts.lscpu.parsed.value.cpus, 48);
    } finally {
      host.cleanup();
    }
  });
});
