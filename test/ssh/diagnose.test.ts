// `gdr-doctor diagnose <host>` end to end: the built CLI, the user's ssh_config, a real sshd
// serving a simulated GPU host, one exec carrying the whole probe.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';

const cli = (args: string[]) => runCli(args);

describe('gdr-doctor diagnose over SSH', function () {
  this.timeout(90_000);
  let lab: Lab;

  before(async () => {
    assertLabCanRun();
    await cleanupStale();
    lab = await startLab({
      hosts: [
        { name: 'gpu-healthy', profile: 'healthy' },
        { name: 'gpu-nopeermem', profile: 'no-peermem' },
        { name: 'gpu-nonic', profile: 'no-nic' },
        { name: 'cpu-nogpu', profile: 'no-gpu' },
      ],
    });
  });
  after(async () => lab?.stop());

  it('collects a healthy host in one exec and parses what it recorded', async () => {
    const before = lab.host('gpu-healthy').calls().length;
    const r = await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-healthy', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.host, 'gpu-healthy');
    assert.equal(report.target.user, 'gdr');
    assert.equal(report.finished, true);
    assert.equal(report.facts.topo.parsed.ok, true);
    assert.equal(report.facts.topo.parsed.value.gpus.length, 8);
    assert.ok(report.facts.lsmod.parsed.value.modules.some((m: { name: string }) => m.name === 'nvidia_peermem'));
    const calls = lab.host('gpu-healthy').calls().slice(before);
    assert.ok(
      calls.some((c) => c.cmd === 'nvidia-smi'),
      'the fake nvidia-smi ran',
    );
    assert.ok(
      calls.every((c) => c.uid === 1500),
      'nothing ran as root',
    );
  });

  it('gives findings and per-GPU verdicts for the healthy host (--json)', async () => {
    const report = JSON.parse((await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-healthy', '--json'])).stdout);
    const ids = report.findings.map((f: { id: string }) => f.id);
    assert.ok(!ids.includes('peermem.not-loaded'), ids.join(', '));
    // The seed topology: GPU3 is PIX to NIC2 (mlx5_2), NODE to NIC0/NIC1; GPU4-7 reach every NIC only over SYS.
    // The profile's ibv_devinfo (a real 3-HCA node) has mlx5_0 at 200 Gb/s and mlx5_1/2 at 100 Gb/s: NCCL's
    // ncclTopoGetLocal ranks bandwidth before path class, so GPU3 uses mlx5_0 over NODE (PHB), without GDR.
    assert.equal(report.pairs.length, 8);
    const gpu3 = report.pairs.find((p: { gpu: string }) => p.gpu === 'GPU3');
    assert.deepEqual([gpu3.link, gpu3.ncclPath, gpu3.gdr, gpu3.nics[0].device], ['NODE', 'PHB', false, 'mlx5_0']);
    const gpu4 = report.pairs.find((p: { gpu: string }) => p.gpu === 'GPU4');
    assert.deepEqual([gpu4.link, gpu4.gdr], ['SYS', false]);
    assert.ok(ids.includes('topo.nic-far'));
    // Kept to its PIX NIC by NCCL_IB_HCA, GPU3 gets GDR.
    const only2 = JSON.parse(
      (await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-healthy', '--json', '--nccl-env', 'NCCL_IB_HCA==mlx5_2'])).stdout,
    );
    const kept = only2.pairs.find((p: { gpu: string }) => p.gpu === 'GPU3');
    assert.deepEqual([kept.link, kept.ncclPath, kept.gdr, kept.nics[0].device], ['PIX', 'PIX', true, 'mlx5_2']);
  });

  it('reports a workstation without an RDMA NIC, and a CPU node without a GPU', async () => {
    const nonic = JSON.parse((await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-nonic', '--json'])).stdout);
    assert.ok(
      nonic.findings.some((f: { id: string }) => f.id === 'rdma.none'),
      JSON.stringify(nonic.findings.map((f: { id: string }) => f.id)),
    );
    const nogpu = JSON.parse((await cli(['diagnose', '-F', lab.sshConfigPath, 'cpu-nogpu', '--json'])).stdout);
    assert.ok(
      nogpu.findings.some((f: { id: string }) => f.id === 'gpu.none'),
      JSON.stringify(nogpu.findings.map((f: { id: string }) => f.id)),
    );
  });

  it('shows a host without the module loaded, in the human report', async () => {
    const r = await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-nopeermem']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^gpu-nopeermem/);
    assert.match(r.stdout, /ok\s+topo/);
  });

  it("diagnoses several hosts in one call, keeping a reachable host's report when another fails", async () => {
    const r = await cli(['diagnose', '-F', lab.sshConfigPath, 'gpu-healthy', 'unknown-host.invalid', 'gpu-nopeermem', '--each']);
    assert.equal(r.status, 3);
    assert.match(r.stdout, /\ngpu-healthy — collected [\s\S]*\ngpu-nopeermem — collected /);
    assert.match(r.stderr, /unknown-host\.invalid: cannot reach \(dns\)/);
  });

  it('exits 3 naming the host and the step when the host key is unknown', async () => {
    const conf = path.join(lab.dir, 'strict-unknown.conf');
    const h = lab.host('gpu-healthy');
    fs.writeFileSync(
      conf,
      `Host x\n  HostName ${h.address}\n  Port ${h.port}\n  User gdr\n  IdentityFile ${lab.keys.plain}\n` +
        `  UserKnownHostsFile /dev/null\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n`,
    );
    const r = await cli(['diagnose', '-F', conf, 'x']);
    assert.equal(r.status, 3);
    assert.match(r.stderr, /^gdr-doctor: x: cannot reach \(host-key\)/);
  });

  it('never runs a destination as a shell command', async () => {
    const marker = path.join(lab.dir, 'pwned');
    const r = await cli(['diagnose', '-F', lab.sshConfigPath, `x;touch ${marker}`]);
    assert.notEqual(r.status, 0);
    assert.equal(fs.existsSync(marker), false);
  });
});
