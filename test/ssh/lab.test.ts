// Checks the simulated-host lab itself (test/lab) with the real OpenSSH client, so the
// ssh tests of gdr-doctor can trust it. Needs root; fails (does not skip) without it.
// Run: npx mocha --require tsx/cjs --extension ts test/ssh/lab.test.ts --timeout 60000
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertLabCanRun, cleanupStale, defaultRecordsPath, Lab, LabHost, startLab } from '../lab/lab';
import { pidsInNamespaceOf } from '../lab/procs';
import { materialiseProfile } from '../lab/profile';
import { shiftRecordsPath } from '../lab/sideBySide';
import { realSshArgs } from '../support/sshCase';

interface Result {
  rc: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function ssh(
  lab: Lab,
  h: LabHost,
  command: string,
  user = 'gdr',
  extra: { knownHosts?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Result {
  const t = Date.now();
  const r = spawnSync('ssh', [...(extra.args ?? []), ...realSshArgs(lab, h, user, extra.knownHosts), command], {
    encoding: 'utf8',
    env: extra.env ?? process.env,
    timeout: 30000,
  });
  return { rc: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t };
}

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe('simulated-host lab (real sshd, real ssh client)', function () {
  let lab: Lab;
  let healthy: LabHost, noPeermem: LabHost, noGpu: LabHost, noNic: LabHost, bench: LabHost;

  before(async function () {
    assertLabCanRun(); // not root / no sshd: this hook fails with the reason, so mocha exits non-zero
    const stale = await cleanupStale();
    if (stale.length) console.log(`  cleaned a previous run's leftovers: ${stale.join('; ')}`);
    const t = Date.now();
    lab = await startLab({
      hosts: [
        { name: 'gpu-healthy', profile: 'healthy' },
        { name: 'gpu-nopeermem', profile: 'no-peermem' },
        { name: 'cpu-nogpu', profile: 'no-gpu' },
        { name: 'gpu-nonic', profile: 'no-nic', netns: true },
        { name: 'gpu-bench', profile: 'bench-healthy', delays: { lsmod: 300 } },
      ],
    });
    console.log(`  ${lab.hosts.length} hosts up in ${Date.now() - t} ms (${lab.dir})`);
    [healthy, noPeermem, noGpu, noNic, bench] = lab.hosts;
  });

  after(async function () {
    if (lab) await lab.stop(); // idempotent: a no-op after the teardown test
  });

  it("refuses a second start while this run's records exist", async function () {
    await assert.rejects(startLab({ hosts: [{ name: 'x', profile: 'healthy' }] }), /previous lab run left records/);
  });

  it('replays the recorded nvidia-smi topo -m byte for byte', function () {
    const r = ssh(lab, healthy, 'nvidia-smi topo -m');
    assert.equal(r.rc, 0, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(path.join(__dirname, '../lab/profiles/healthy/out/nvidia-smi_topo_-m.stdout'), 'utf8'));
  });

  it('keeps module state: non-root modprobe fails, sudo modprobe loads, lsmod and sysfs follow', function () {
    const before = ssh(lab, noPeermem, 'lsmod; test -e /sys/module/nvidia_peermem; echo sys=$?');
    assert.doesNotMatch(before.stdout, /^nvidia_peermem /m);
    assert.match(before.stdout, /sys=1/);
    const nonRoot = ssh(lab, noPeermem, '/sbin/modprobe nvidia_peermem');
    assert.equal(nonRoot.rc, 1);
    assert.equal(nonRoot.stderr, "modprobe: ERROR: could not insert 'nvidia_peermem': Operation not permitted\n");
    const load = ssh(lab, noPeermem, 'sudo modprobe nvidia-peermem && lsmod && cat /sys/kernel/mm/memory_peers/nv_mem/version');
    assert.equal(load.rc, 0, load.stderr);
    assert.match(load.stdout, /^nvidia_peermem\s+16384\s+0\n/m);
    assert.match(load.stdout, /^nvidia\s+\d+\s+3 nvidia_modeset,nvidia_peermem,nvidia_uvm\n/m);
    assert.match(load.stdout, /^595\.71\.05$/m);
    const modprobes = noPeermem.calls().filter((c) => c.cmd === 'modprobe');
    assert.deepEqual(
      modprobes.map((c) => [c.uid, c.args.join(' ')]),
      [
        [1500, 'nvidia_peermem'],
        [0, 'nvidia-peermem'],
      ],
    );
  });

  it('reproduces the recorded modprobe error on a host without OFED (own netns address, root by key)', function () {
    assert.equal(noNic.address, `10.250.${lab.network.subnet}.11`);
    assert.equal(noNic.port, 22);
    const r = ssh(lab, noNic, 'hostname; modprobe nvidia_peermem', 'root');
    assert.equal(r.stdout, 'gpu-nonic\n');
    assert.equal(r.rc, 1);
    assert.equal(r.stderr, "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n");
  });

  it("lands writes to /etc in the host's etc-upper, never in the real /etc", function () {
    const conf = '/etc/modules-load.d/nvidia-peermem.conf';
    assert.equal(fs.existsSync(conf), false, 'precondition: the real /etc has no such file');
    const r = ssh(lab, healthy, `echo nvidia-peermem | sudo tee ${conf} >/dev/null && cat ${conf}`);
    assert.equal(r.rc, 0, r.stderr);
    assert.equal(r.stdout, 'nvidia-peermem\n');
    assert.equal(fs.readFileSync(path.join(healthy.etcUpperDir, 'modules-load.d/nvidia-peermem.conf'), 'utf8'), 'nvidia-peermem\n');
    assert.equal(fs.existsSync(conf), false);
  });

  it('answers a missing command with 127 and an unrecorded command line with 99', function () {
    const missing = ssh(lab, noGpu, 'nvidia-smi topo -m');
    assert.equal(missing.rc, 127);
    assert.match(missing.stderr, /nvidia-smi: command not found/);
    const unrecorded = ssh(lab, healthy, 'nvidia-smi -L');
    assert.equal(unrecorded.rc, 99);
    assert.match(unrecorded.stderr, /no recording for: nvidia-smi -L .*out\/nvidia-smi_-L\.stdout/);
  });

  it('logs each fake call with its uid', function () {
    ssh(lab, noGpu, 'lsmod >/dev/null; sudo lsmod >/dev/null');
    assert.deepEqual(
      noGpu
        .calls()
        .filter((c) => c.cmd === 'lsmod')
        .map((c) => c.uid),
      [1500, 0],
    );
  });

  it('asks pwuser for a sudo password (password auth)', function () {
    const askpass = path.join(lab.dir, 'askpass.sh');
    fs.writeFileSync(askpass, '#!/bin/sh\necho pwuser-lab-pw\n', { mode: 0o755 });
    const env = { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: '' };
    const r = ssh(lab, healthy, 'sudo -n true; echo rc=$?', 'pwuser', {
      env,
      args: ['-o', 'BatchMode=no', '-o', 'PubkeyAuthentication=no'],
    });
    assert.equal(r.rc, 0, r.stderr);
    assert.match(r.stdout, /rc=1/);
    assert.match(r.stderr, /a password is required/);
  });

  it('hangs and drops on demand', function () {
    healthy.setFault('lsmod', 'hang', 2);
    const slow = ssh(lab, healthy, 'lsmod');
    assert.equal(slow.rc, 0);
    assert.ok(slow.ms >= 2000, `took ${slow.ms} ms`);
    healthy.clearFaults();
    healthy.setFault('nvidia-smi', 'drop', 2);
    const dropped = ssh(lab, healthy, 'nvidia-smi topo -m');
    healthy.clearFaults();
    assert.equal(dropped.rc, 255, 'the client sees a lost connection, not an exit status');
    assert.equal(dropped.stdout.split('\n').length, 3);
  });

  it("delays replies as the profile and the host spec say, on top of the base profile's recordings", function () {
    assert.equal(fs.readFileSync(path.join(bench.hostDir, 'prof/delay/nvidia-smi'), 'utf8'), '2.000\n');
    assert.equal(fs.readFileSync(path.join(bench.hostDir, 'prof/delay/lsmod'), 'utf8'), '0.300\n');
    const r = ssh(lab, bench, 'nvidia-smi topo -m');
    assert.equal(r.rc, 0, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(path.join(__dirname, '../lab/profiles/healthy/out/nvidia-smi_topo_-m.stdout'), 'utf8'));
    assert.ok(r.ms >= 2000, `replied after ${r.ms} ms`); // a lower bound: sleep never returns early
    assert.equal(fs.existsSync(path.join(healthy.hostDir, 'prof/delay')), false, 'functional profiles have no delays');
    const scratch = fs.mkdtempSync(path.join(lab.dir, 'scratch-'));
    assert.throws(
      () => materialiseProfile(path.join(__dirname, '../lab/profiles/healthy'), scratch, { uname: 100 }),
      /uname is not a faked command/,
    );
  });

  it('serves the rotated host key after rotateHostKey()', async function () {
    await noGpu.rotateHostKey();
    const changed = ssh(lab, noGpu, 'true');
    assert.equal(changed.rc, 255);
    assert.match(changed.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
    const kh = path.join(lab.dir, 'known_hosts.rotated');
    fs.writeFileSync(kh, noGpu.rotatedHostKeyLine + '\n');
    assert.equal(ssh(lab, noGpu, 'true', 'gdr', { knownHosts: kh }).rc, 0);
  });

  it('stop() leaves no process, namespace, bridge or records behind', async function () {
    healthy.setFault('lsmod', 'hang', 300);
    const hung = spawn('ssh', [...realSshArgs(lab, healthy, 'gdr'), 'lsmod'], { stdio: 'ignore' });
    const deadline = Date.now() + 5000;
    while (
      !healthy.calls().some((c) => c.cmd === 'lsmod' && c.args.length === 0 && Date.now() - c.time * 1000 < 5000) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const inside = lab.hosts.flatMap((h) => pidsInNamespaceOf(h.listenerPid()));
    assert.ok(inside.length > lab.hosts.length, 'sessions and the hung sleep are running');
    await lab.stop();
    hung.kill();
    for (const pid of [...lab.pids, ...inside]) assert.equal(alive(pid), false, `pid ${pid} still alive`);
    const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
    // This lab's own names only (gdrbr0, subnet 0, unless GDR_LAB_SHIFT moved them): other labs may run meanwhile.
    const { bridge, subnet } = lab.network;
    assert.doesNotMatch(links, new RegExp(`\\b${bridge}\\b|\\bgdr${subnet}v\\d`));
    assert.doesNotMatch(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout, new RegExp(`gdrlab${subnet}-`));
    assert.doesNotMatch(
      spawnSync('ip', ['route', 'show', 'table', 'all'], { encoding: 'utf8' }).stdout,
      new RegExp(`10\\.250\\.${subnet}\\.`),
    );
    assert.equal(fs.existsSync(shiftRecordsPath(defaultRecordsPath)), false);
    fs.rmSync(lab.dir, { recursive: true }); // kept (with the sshd logs) when a test above failed
  });
});
