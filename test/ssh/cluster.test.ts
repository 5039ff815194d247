// The lab as a cluster (test/lab, "Cluster"): 16 own-address compute hosts and a login node
// running real Slurm (munge, slurmctld, slurmd inside each simulated host), real pdsh and real
// clush, all driven as user gdr on the login node over the real OpenSSH client. The fleet
// tests build on this. Needs root; fails (does not skip) without it.
// Run: npx mocha --require tsx/cjs --extension ts test/ssh/cluster.test.ts --timeout 60000
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';

const recordsPath = path.join(os.tmpdir(), 'gdrlab-records-cluster-test.json');
const network = { bridge: 'gdrclu15', subnet: 15 };
const nodes = Array.from({ length: 16 }, (_, i) => `gpu${String(i + 1).padStart(2, '0')}`);
const nodeList = 'gpu[01-16]';
// Mostly healthy, a few broken: the fleet's odd nodes out.
const profileOf = (i: number) => (i === 4 || i === 11 ? 'no-peermem' : i === 7 ? 'no-nic' : 'healthy');

describe('lab cluster: login node, real Slurm, pdsh and clush over 16 own-address hosts', function () {
  this.timeout(180000); // pdsh/clush over 16 hosts take tens of seconds on a busy 2-CPU runner
  let lab: Lab;
  let etcSlurmBefore: string[];

  /** Runs a command as gdr on the login node (real ssh, strict host key checking). */
  function onLogin(command: string): { rc: number | null; stdout: string; stderr: string } {
    const r = spawnSync('ssh', ['-F', lab.sshConfigPath, '-o', 'BatchMode=yes', 'login', command], { encoding: 'utf8', timeout: 120000 });
    return { rc: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  before(async function () {
    this.timeout(300000); // 17 hosts and a Slurm cluster on a busy 2-CPU runner
    assertLabCanRun();
    const stale = await cleanupStale(recordsPath);
    if (stale.length) console.log(`  cleaned a previous run's leftovers: ${stale.join('; ')}`);
    etcSlurmBefore = fs.readdirSync('/etc/slurm').sort();
    const t = Date.now();
    lab = await startLab({
      recordsPath,
      network,
      readyTimeoutMs: 120000,
      hosts: [
        { name: 'login', profile: 'no-gpu', netns: true, login: true },
        ...nodes.map((name, i) => ({ name, profile: profileOf(i), netns: true })),
      ],
      slurm: { controller: 'login', nodes },
    });
    console.log(`  ${lab.hosts.length} hosts and Slurm up in ${Date.now() - t} ms (${lab.dir})`);
  });

  after(async function () {
    this.timeout(60000);
    if (lab) await lab.stop();
  });

  it('resolves every lab host by name inside the hosts', function () {
    const r = onLogin('getent hosts gpu01 gpu16 login');
    assert.equal(r.rc, 0, r.stderr);
    const n = lab.network.subnet;
    // getent pads the address to 15 columns: compare the fields.
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));
    assert.deepEqual(rows, [
      [`10.250.${n}.12`, 'gpu01'],
      [`10.250.${n}.27`, 'gpu16'],
      [`10.250.${n}.11`, 'login'],
    ]);
  });

  it('sinfo on the login node lists the 16 nodes, idle, in partition gpu', function () {
    const r = onLogin('sinfo -h -N -o "%N %P %t"');
    assert.equal(r.rc, 0, r.stderr);
    assert.deepEqual(
      r.stdout.trim().split('\n').sort(),
      nodes.map((n) => `${n} gpu* idle`),
    );
  });

  it('srun runs one task on each of the 16 nodes', function () {
    const r = onLogin('srun --nodes=16 --ntasks-per-node=1 hostname');
    assert.equal(r.rc, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').sort(), nodes);
  });

  it("srun tasks run inside the simulated hosts: each node answers with its own profile's nvidia-smi topo -m", function () {
    // --label: each line carries its task's number; a task's first line is its node's name.
    const r = onLogin(`srun --nodes=16 --ntasks-per-node=1 --label sh -c 'hostname; nvidia-smi topo -m'`);
    assert.equal(r.rc, 0, r.stderr);
    const byTask = new Map<string, string[]>();
    for (const line of r.stdout.split('\n').filter(Boolean)) {
      const m = /^\s*(\d+): ?(.*)$/.exec(line);
      assert.ok(m, `unlabelled line: ${line}`);
      byTask.set(m[1], [...(byTask.get(m[1]) ?? []), m[2]]);
    }
    const seen = new Map([...byTask.values()].map(([node, ...out]) => [node, out.join('\n')]));
    assert.deepEqual([...seen.keys()].sort(), nodes);
    for (const n of nodes) {
      const recorded = fs.readFileSync(path.join(lab.host(n).hostDir, 'prof/out/nvidia-smi_topo_-m.stdout'), 'utf8');
      assert.equal(seen.get(n)?.trimEnd(), recorded.trimEnd(), `${n}'s output`); // only trailing blank lines may differ
      assert.ok(
        lab
          .host(n)
          .calls()
          .some((c) => c.cmd === 'nvidia-smi' && c.uid === 1500),
        `${n} logged the call as gdr`,
      );
    }
    assert.equal(new Set(seen.values()).size, 2, 'healthy and no-nic hosts answer differently');
  });

  it('pdsh -R ssh reaches all 16 nodes from the login node', function () {
    const r = onLogin(`pdsh -R ssh -w ${nodeList} hostname`);
    assert.equal(r.rc, 0, r.stderr);
    assert.deepEqual(
      r.stdout.trim().split('\n').sort(),
      nodes.map((n) => `${n}: ${n}`),
    );
  });

  it('clush -b reaches all 16 nodes from the login node', function () {
    const r = onLogin(`clush -w ${nodeList} -b hostname`);
    assert.equal(r.rc, 0, r.stderr);
    // -b: per distinct output a header (the nodes that printed it) and the output, each after a rule.
    const parts = r.stdout
      .split(/^-+\n/m)
      .filter(Boolean)
      .map((b) => b.trim());
    const blocks = parts.filter((_, i) => i % 2 === 0).map((header, i) => `${header}=${parts[2 * i + 1]}`);
    assert.deepEqual(
      blocks.sort(),
      nodes.map((n) => `${n}=${n}`),
    );
  });

  it("keeps Slurm's files inside the hosts: slurm.conf in the login node's /etc overlay, the real /etc/slurm unchanged", function () {
    assert.match(
      fs.readFileSync(path.join(lab.host('login').etcUpperDir, 'slurm/slurm.conf'), 'utf8'),
      new RegExp(`^NodeName=gpu16 NodeAddr=10\\.250\\.${lab.network.subnet}\\.27 `, 'm'),
    );
    assert.deepEqual(fs.readdirSync('/etc/slurm').sort(), etcSlurmBefore);
  });
});
