// `gdr-doctor prove` end to end against lab hosts (the built CLI, real sshd, the lab's ib_write_bw
// stand-in replaying real perftest outputs, which really listens on and connects to -p): one host
// between its ports, two hosts over SSH, and two nodes in one Slurm step through a login node.
// What ran is read from the hosts' call logs and what is left from their process tables, never only
// from gdr-doctor's own words.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { readAuditLog } from '../support/labFix';
import { CLI, FIXTURES } from '../support/paths';
import { until } from '../support/until';
import { derivedProfile, Lab, LabHost, LabHostSpec, recordingName, startTestLab } from '../lab/lab';
import { joinedRegExp } from '../support/joinedRegExp';

const RECORDS = '/tmp/gdrlab-records-prove.json';
const NETWORK = { bridge: 'gdrbr17', subnet: 17 };

/** A test-only profile over `base` with real recordings of other hosts put in (`out/<name>` → fixture). */
function profileWith(description: string, base: string, changes: object, recordings: Record<string, string>): string {
  const dir = derivedProfile(description, base, changes);
  for (const [name, fixture] of Object.entries(recordings)) {
    fs.mkdirSync(path.join(dir, 'out'), { recursive: true });
    if (fixture.startsWith('rc:')) fs.writeFileSync(path.join(dir, 'out', name), `${fixture.slice(3)}\n`);
    else fs.copyFileSync(path.join(FIXTURES, fixture), path.join(dir, 'out', name));
  }
  return dir;
}

function specs(): LabHostSpec[] {
  const help = recordingName('ib_write_bw', ['--help']);
  return [
    { name: 'login', profile: 'no-gpu', netns: true, login: true },
    { name: 'pv-a', profile: 'healthy', netns: true },
    { name: 'pv-b', profile: 'healthy', netns: true },
    { name: 'pv-one', profile: 'healthy' },
    { name: 'pv-nopm', profile: 'no-peermem' },
    { name: 'pv-hang', profile: 'healthy' },
    {
      name: 'pv-slow',
      // GPU memory through the 200 Gb/s port answers with the real 100 Gb/s-link recording: 40 % of line rate.
      profile: derivedProfile('GPU memory at 40 % of line rate on mlx5_0', 'healthy', {
        perftest: [
          ['mlx5_0', 'host', 'ok', 'host-200g'],
          ['*', 'host', 'ok', 'host-100g'],
          ['*', 'peermem', 'ok', 'peermem-100g'],
          ['*', 'peermem', 'fail', 'peermem-fail'],
          ['*', 'dmabuf', 'order', 'dmabuf-before-cuda'],
        ],
      }),
    },
    {
      name: 'pv-noperf',
      profile: derivedProfile('perftest not installed', 'healthy', {
        missingCommands: ['ib_write_bw', 'dmesg', 'lspci', 'setpci', 'ibstat', 'ibdev2netdev', 'rdma'],
      }),
    },
    {
      name: 'pv-nocuda',
      profile: profileWith(
        "Debian's perftest, built without CUDA",
        'healthy',
        {},
        { [`${help}.stdout`]: 'perftest/help-debian12-perftest-4.5-0.17-no-cuda.txt', [`${help}.rc`]: 'rc:1' },
      ),
    },
    {
      name: 'pv-busy',
      profile: profileWith(
        'GPU0 busy: an MPS server runs on it (the T4 host of the smi-q fixture)',
        'healthy',
        {},
        { [`${recordingName('nvidia-smi', ['-q'])}.stdout`]: 'smi-q/t4-1gpu-vm-passthrough-bar1-256mib-driver530.txt' },
      ),
    },
  ];
}

interface ModeJson {
  mode: string;
  status: string;
  gbps: number | null;
  lineRateGbps: number | null;
  ratio: number | null;
  reason: string | null;
  explainedBy: string[];
  command: string | null;
  sharedFrom?: string;
}
interface GpuJson {
  gpu: string;
  client: { host: string; device: string; port: number; numaNode: number | null };
  server: { host: string; device: string; port: number };
  loopback: string | null;
  notes: string[];
  modes: ModeJson[];
  verdict: string;
  tone: string;
}
interface ProofJson {
  host: string;
  peer: string | null;
  via: string | null;
  status: string;
  refusals: string[];
  gpus: GpuJson[];
}

const perftestCalls = (h: LabHost) => h.calls().filter((c) => c.cmd === 'ib_write_bw' && c.args.includes('-p'));
const leftovers = (h: LabHost) => h.processes().filter((p) => /ib_write_bw|numactl|perl -MIO|fakeperftest|sleep/.test(p.args));
const mode = (g: GpuJson, m: string) => g.modes.find((x) => x.mode === m) as ModeJson;

describe('gdr-doctor prove (lab hosts, the built CLI)', function () {
  this.timeout(300_000);
  let lab: Lab;
  const audit = () => path.join(lab.dir, 'prove-audit.log');
  const prove = (args: string[]) =>
    runCli(['prove', '-F', lab.sshConfigPath, '--duration', '1', ...args], { GDR_DOCTOR_AUDIT_LOG: audit() });
  const json = (stdout: string) => JSON.parse(stdout) as ProofJson;

  before(async () => {
    lab = await startTestLab({
      hosts: specs(),
      recordsPath: RECORDS,
      network: NETWORK,
      slurm: { controller: 'login', nodes: ['pv-a', 'pv-b'] },
      readyTimeoutMs: 90_000,
    });
  });
  after(async () => {
    await lab?.stop();
  });

  describe('one host, between its ports', () => {
    let r: Awaited<ReturnType<typeof prove>>;
    before(async () => {
      r = await prove(['pv-one', '--gpu', '0,5', '--json']);
    });

    it('measures GPUs of one host between its ports, host memory first, against line rate and host memory', () => {
      assert.equal(r.status, 0, r.stderr);
      const proof = json(r.stdout);
      assert.equal(proof.status, 'measured');
      const [gpu0, gpu5] = proof.gpus;
      // GPU0's NIC mlx5_0 is the host's only InfiniBand port: it serves itself (HCA loopback).
      assert.deepEqual([gpu0.client.device, gpu0.server.device, gpu0.loopback], ['mlx5_0', 'mlx5_0', 'same-port']);
      assert.deepEqual(
        gpu0.modes.map((m) => [m.mode, m.status, m.gbps, m.lineRateGbps, m.ratio]),
        [
          ['host', 'ok', 196.07, 200, 0.98],
          ['peermem', 'ok', 181.46, 200, 0.91],
          ['dmabuf', 'skipped', null, null, null],
        ],
      );
      assert.match(mode(gpu0, 'dmabuf').reason ?? '', /has no --use_cuda_dmabuf/);
      assert.equal(gpu0.verdict, 'GPUDirect RDMA works at 91 % of line rate with peermem (host memory: 98 %)');
      // GPU5's RoCE port mlx5_1 is served by the other RoCE port, mlx5_2 (GPU6's NIC), at 100 Gb/s.
      assert.deepEqual([gpu5.client.device, gpu5.server.device, gpu5.loopback], ['mlx5_1', 'mlx5_2', 'other-port']);
      assert.deepEqual([mode(gpu5, 'host').gbps, mode(gpu5, 'peermem').gbps, mode(gpu5, 'peermem').ratio], [98.38, 80.96, 0.81]);
      assert.equal(gpu5.tone, 'warning');
      assert.match(gpu5.verdict, /GPU memory is 18 % slower than host memory; topo\.nic-far/);
    });

    it('runs perftest pinned, on one free TCP port per measurement, the GPU (by PCI address) only for the GPU modes', () => {
      const h = lab.host('pv-one');
      const calls = perftestCalls(h);
      const pinned = h.calls().filter((c) => c.cmd === 'numactl' && c.args[0] !== '-H');
      assert.ok(
        pinned.length === 8 &&
          pinned.every((c) => c.args[0] === c.args[1].replace('membind', 'cpunodebind') && c.args[2] === 'ib_write_bw'),
        JSON.stringify(pinned.map((c) => c.args.slice(0, 3))),
      );
      const ports = calls.map((c) => c.args[c.args.indexOf('-p') + 1]);
      assert.equal(new Set(ports).size, calls.length / 2, 'each measurement on a port of its own, server and client on the same');
      assert.deepEqual(
        calls.map((c) => c.args.find((a) => a.startsWith('--use_cuda')) ?? 'host'),
        // The GPU by its PCI address: the lab's perftest lists --use_cuda_bus_id in its --help.
        [
          'host',
          'host',
          '--use_cuda_bus_id=0000:18:00.0',
          '--use_cuda_bus_id=0000:18:00.0',
          'host',
          'host',
          '--use_cuda_bus_id=0000:ba:00.0',
          '--use_cuda_bus_id=0000:ab:00.0',
        ],
      );
      assert.deepEqual(leftovers(h), []);
    });

    it('records the measurement in the audit log: where, each command, the result', () => {
      const entries = readAuditLog(audit());
      const entry = entries.find((e) => e.host === 'pv-one');
      assert.equal(entry.kind, 'prove');
      assert.equal(entry.user, 'gdr');
      assert.match(
        entry.gpus[0].modes[1].command,
        joinedRegExp([
          /^numactl --cpunodebind=0 --membind=0 ib_write_bw -d mlx5_0 -i 1 -s 1048576 -D 1 -F --report_gbits/,
          / --use_cuda_bus_id=0000:18:00\.0 -p \d+ 127\.0\.0\.1$/,
        ]),
      );
    });
  });

  it('GPU memory at 40 % of line rate: "works, but at 40 %", with what to check, and exit 2', async () => {
    const r = await prove(['pv-slow', '--gpu', '0', '--mode', 'host,peermem', '--json']);
    assert.equal(r.status, 2, r.stderr);
    const gpu = json(r.stdout).gpus[0];
    assert.match(
      gpu.verdict,
      /^GPUDirect RDMA works, but at 40 % of line rate with peermem \(host memory: 98 %; "works" needs 80 % at 1 MiB messages or more\): check the link width/,
    );
  });

  it("has a stand-in that reads perftest's flags in order, as perftest does", () => {
    // The lab's own check: --use_cuda_dmabuf before --use_cuda is refused with perftest's recorded message.
    const r = spawnSync(
      'ssh',
      ['-F', lab.sshConfigPath, '-o', 'BatchMode=yes', 'pv-one', 'ib_write_bw -d mlx5_0 --use_cuda_dmabuf --use_cuda=0'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.deepEqual([r.status, r.stdout], [1, 'CUDA DMA-BUF cannot be used without CUDA\n Parser function exited with Error\n']);
  });

  it("says which mode failed in perftest's own words, and the finding that explains it", async () => {
    const r = await prove(['pv-nopm', '--gpu', '0', '--json']);
    assert.equal(r.status, 1, r.stderr);
    const gpu = json(r.stdout).gpus[0];
    assert.deepEqual(
      gpu.modes.map((m) => [m.mode, m.status]),
      [
        ['host', 'ok'],
        ['peermem', 'failed'],
        ['dmabuf', 'skipped'],
      ],
    );
    assert.equal(mode(gpu, 'peermem').reason, "Couldn't allocate MR with error=14");
    // With the open driver dma-buf makes the module optional, so the diagnosis reports it as such.
    assert.deepEqual(mode(gpu, 'peermem').explainedBy, [
      'no peer-memory module is loaded (neither nvidia_peermem nor nv_peer_mem): modprobe nvidia_peermem, or use the dmabuf mode where dma-buf works (docs/peer-memory.md)',
      'dmabuf.available: dma-buf can carry GPUDirect RDMA: the peer-memory module is optional',
    ]);
    assert.equal(gpu.verdict, "peermem mode failed: Couldn't allocate MR with error=14");
    const text = await prove(['pv-nopm', '--gpu', '0']);
    assert.match(text.stdout, /explained by no peer-memory module is loaded/);
  });

  it('refuses with the package to install, and runs nothing, where perftest is missing', async () => {
    const r = await prove(['pv-noperf']);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stdout,
      /Nothing was run:\n {2}- pv-noperf: perftest's ib_write_bw is not installed \(not on the login PATH\): install it with `apt install perftest` \(Debian/,
    );
    assert.deepEqual(
      lab
        .host('pv-noperf')
        .calls()
        .filter((c) => c.cmd === 'numactl' && c.args[0] !== '-H'),
      [],
    );
  });

  it('refuses the GPU modes of a perftest built without CUDA, and measures host memory alone when asked', async () => {
    const refused = await prove(['pv-nocuda', '--gpu', '5']);
    assert.equal(refused.status, 4);
    assert.match(
      refused.stdout,
      /built without CUDA \("ib_write_bw --help" has no --use_cuda\), so the peermem and dmabuf modes cannot run/,
    );
    assert.deepEqual(perftestCalls(lab.host('pv-nocuda')), []);
    const host = await prove(['pv-nocuda', '--gpu', '5', '--mode', 'host', '--json']);
    assert.equal(host.status, 0, host.stderr);
    assert.deepEqual(
      json(host.stdout).gpus[0].modes.map((m) => [m.mode, m.gbps]),
      [['host', 98.38]],
    );
  });

  it('asks before measuring a busy GPU: without a yes nothing runs, with --yes it measures', async () => {
    const no = await prove(['pv-busy', '--gpu', '0', '--batch']);
    assert.equal(no.status, 4);
    assert.match(no.stderr, /GPU0 on pv-busy: pid 25384 nvidia-cuda-mps-server \(26 MiB\)/);
    assert.deepEqual(perftestCalls(lab.host('pv-busy')), []);
    const yes = await prove(['pv-busy', '--gpu', '0', '--yes', '--json']);
    assert.equal(yes.status, 0, yes.stderr);
    assert.equal(json(yes.stdout).gpus[0].tone, 'ok');
  });

  it('stops perftest at the deadline: nothing is left running on the host', async () => {
    const h = lab.host('pv-hang');
    h.setFault('ib_write_bw', 'hang', 600);
    try {
      const r = await prove(['pv-hang', '--gpu', '5', '--mode', 'host', '--timeout', '2', '--json']);
      assert.equal(r.status, 1, r.stderr);
      const m = json(r.stdout).gpus[0].modes[0];
      assert.deepEqual([m.status, m.reason], ['timed-out', 'stopped at its deadline (2 s per side)']);
      await until('the hung perftest is gone from pv-hang', () => leftovers(h).length === 0, 15_000);
    } finally {
      h.clearFaults();
    }
  });

  it('stops every remote process on Ctrl-C and prints what was measured', async () => {
    const h = lab.host('pv-hang');
    h.setFault('ib_write_bw', 'hang', 600);
    try {
      const child = spawn(process.execPath, [CLI, 'prove', '-F', lab.sshConfigPath, 'pv-hang', '--gpu', '5', '--mode', 'host'], {
        env: { ...process.env, SSH_AUTH_SOCK: '', GDR_DOCTOR_AUDIT_LOG: audit() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await until('perftest runs on pv-hang', () => leftovers(h).some((p) => /sleep 600/.test(p.args)), 30_000);
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      assert.match(stdout, /host +- +100 +- +cancelled: cancelled while it ran/);
      await until('nothing left running on pv-hang', () => leftovers(h).length === 0, 15_000);
    } finally {
      h.clearFaults();
    }
  });

  it('measures between two hosts over SSH: the server on the peer, the client here', async () => {
    const r = await prove(['pv-a', 'pv-b', '--gpu', '5', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const proof = json(r.stdout);
    const gpu = proof.gpus[0];
    assert.deepEqual([proof.peer, gpu.client.host, gpu.server.host, gpu.loopback], ['pv-b', 'pv-a', 'pv-b', null]);
    assert.deepEqual(
      gpu.modes.map((m) => [m.mode, m.status, m.gbps]),
      [
        ['host', 'ok', 98.38],
        ['peermem', 'ok', 80.96],
        ['dmabuf', 'skipped', null],
      ],
    );
    const b = lab.host('pv-b').address;
    const clients = perftestCalls(lab.host('pv-a'));
    const servers = perftestCalls(lab.host('pv-b'));
    assert.ok(clients.length === 2 && clients.every((c) => c.args[c.args.length - 1] === b), JSON.stringify(clients.map((c) => c.args)));
    assert.ok(servers.length === 2 && servers.every((c) => c.args[c.args.length - 2] === '-p'));
    assert.deepEqual([...leftovers(lab.host('pv-a')), ...leftovers(lab.host('pv-b'))], []);
  });

  it('measures two nodes through a login node, as one srun step on both', async () => {
    const before = perftestCalls(lab.host('pv-b')).length;
    const r = await prove(['pv-a', 'pv-b', '--via', 'login', '--gpu', '0', '--json']);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const proof = json(r.stdout);
    assert.equal(proof.via, 'login');
    assert.deepEqual(
      proof.gpus[0].modes.map((m) => [m.mode, m.status, m.gbps]),
      [
        ['host', 'ok', 196.07],
        ['peermem', 'ok', 181.46],
        ['dmabuf', 'skipped', null],
      ],
    );
    assert.equal(perftestCalls(lab.host('pv-b')).length - before, 2, 'the peer served both modes');
  });
});
