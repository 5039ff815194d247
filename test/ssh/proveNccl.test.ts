// `gdr-doctor prove --nccl` end to end against lab hosts (the built CLI, real sshd, real Slurm and Open
// MPI's mpirun, the lab's nccl-tests stand-in: fakenccltests.sh replaying real nccl-tests tables and
// printing NCCL's lines in NCCL's formats for the host's own state). Two and four nodes, through srun on
// a login node and through mpirun (on the first node, and on the login node). What ran is read from the
// hosts' call logs and what is left from their process tables, never only from gdr-doctor's own words.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { readAuditLog } from '../support/labFix';
import { CLI } from '../support/paths';
import { until } from '../support/until';
import { derivedProfile, inHost, Lab, LabHost, LabHostSpec, startTestLab } from '../lab/lab';
import { joinedRegExp } from '../support/joinedRegExp';

const RECORDS = '/tmp/gdrlab-records-prove-nccl.json';
const NETWORK = { bridge: 'gdrbr19', subnet: 19 };
const NODES = ['nc-a', 'nc-b', 'nc-c', 'nc-d'];

function specs(): LabHostSpec[] {
  return [
    { name: 'nc-login', profile: 'no-gpu', netns: true, login: true },
    // login: true gives each node gdr's cluster key and known_hosts: the nodes' own SSH trust, which mpirun uses.
    ...NODES.map((name) => ({ name, profile: 'hgx-ndr', netns: true, login: true })),
    { name: 'nc-nopm-a', profile: 'hgx-ndr-no-peermem', netns: true, login: true },
    { name: 'nc-nopm-b', profile: 'hgx-ndr-no-peermem', netns: true, login: true },
    {
      name: 'nc-notests',
      profile: derivedProfile('nccl-tests not installed', 'hgx-ndr', { ncclTests: null }),
      netns: true,
      login: true,
    },
  ];
}

interface ProofJson {
  status: string;
  nodes: string[];
  via: string | null;
  refusals: string[];
  gpusPerNode: number | null;
  command: string | null;
  result: { source: string; devices: { hostname: string }[]; hosts: string[]; results: unknown[] } | null;
  log: { verdict: string; netConnections: { total: number; gdrdma: number } } | null;
  verdict: {
    verdict: string;
    tone: string;
    explainedBy: string[];
    bandwidth: { busbw: number; ratio: number | null; ceiling: { gigabytesPerSecond: number | null } };
    gdr: { gpus: number; gdr: number; asPredicted: boolean | null } | null;
  } | null;
}

const rankCalls = (h: LabHost) => h.calls().filter((c) => c.cmd === 'all_reduce_perf');
const leftovers = (h: LabHost) => h.processes().filter((p) => /all_reduce_perf|fakenccltests|orted|sleep 600/.test(p.args));

describe('gdr-doctor prove --nccl (lab hosts, the built CLI)', function () {
  this.timeout(600_000);
  let lab: Lab;
  const audit = () => path.join(lab.dir, 'prove-nccl-audit.log');
  const prove = (args: string[]) => runCli(['prove', '--nccl', '-F', lab.sshConfigPath, ...args], { GDR_DOCTOR_AUDIT_LOG: audit() });
  const json = (stdout: string) => JSON.parse(stdout) as ProofJson;
  const noneLeft = async (nodes: readonly string[]) => {
    for (const n of nodes) await until(`nothing left on ${n}`, () => leftovers(lab.host(n)).length === 0, 30_000);
  };

  before(async () => {
    lab = await startTestLab({
      hosts: specs(),
      recordsPath: RECORDS,
      network: NETWORK,
      slurm: { controller: 'nc-login', nodes: [...NODES, 'nc-nopm-a', 'nc-nopm-b', 'nc-notests'] },
      readyTimeoutMs: 120_000,
    });
  });
  after(async () => {
    await lab?.stop();
  });

  it('two nodes through srun on the login node: 16 ranks, busbw against 8 × 400 Gb/s, GDR on 16 of 16 GPUs as predicted', async () => {
    const r = await prove(['nc-a', 'nc-b', '--via', 'nc-login', '--json']);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const p = json(r.stdout);
    assert.equal(p.status, 'measured');
    assert.match(
      p.command ?? '',
      joinedRegExp([
        /^srun --nodelist=nc-a,nc-b --nodes=2 --ntasks-per-node=8 --gpus-per-node=8/,
        / .* env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_ALGO=Ring \S*all_reduce_perf -b 8 -e 8G -f 2 -g 1 -J /,
      ]),
    );
    assert.deepEqual(p.result?.hosts.sort(), ['nc-a', 'nc-b']);
    assert.equal(p.result?.devices.length, 16);
    assert.deepEqual([p.log?.verdict, p.log?.netConnections], ['gdr', { total: 32, gdrdma: 32 }]);
    assert.deepEqual(
      [p.verdict?.bandwidth.busbw, p.verdict?.bandwidth.ceiling.gigabytesPerSecond, p.verdict?.bandwidth.ratio],
      [365.84, 400, 0.91],
    );
    assert.deepEqual(p.verdict?.gdr && [p.verdict.gdr.gpus, p.verdict.gdr.gdr, p.verdict.gdr.asPredicted], [16, 16, true]);
    assert.equal(p.verdict?.tone, 'ok');
    assert.match(
      p.verdict?.verdict ?? '',
      /^NCCL all_reduce reaches 366 GB\/s of 400 possible at 16 GiB \(91 %, ring; 8 × 400 Gb\/s per node\), GPUDirect RDMA on 16 of 16 GPUs, as predicted$/,
    );
    for (const n of ['nc-a', 'nc-b']) assert.equal(rankCalls(lab.host(n)).length, 8, n);
    assert.ok(rankCalls(lab.host('nc-a')).every((c) => c.args.join(' ').startsWith('-b 8 -e 8G -f 2 -g 1 -J /tmp/gdr-doctor-nccl-')));
    await noneLeft(['nc-a', 'nc-b']);
    const logged = readAuditLog(audit()) as { kind: string; nodes: string[]; status: string }[];
    assert.deepEqual(logged.map((e) => [e.kind, e.nodes, e.status]).slice(-1), [['prove-nccl', ['nc-a', 'nc-b'], 'measured']]);
  });

  it('four nodes through srun: 32 ranks, one per GPU', async () => {
    const r = await prove([...NODES, '--via', 'nc-login', '--json']);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const p = json(r.stdout);
    assert.equal(p.result?.devices.length, 32);
    assert.deepEqual(p.verdict?.gdr && [p.verdict.gdr.gpus, p.verdict.gdr.gdr], [32, 32]);
    assert.equal(p.verdict?.tone, 'ok');
    await noneLeft(NODES);
  });

  it("two nodes directly: mpirun on the first node reaches the second over the nodes' own SSH trust", async () => {
    const before = ['nc-c', 'nc-d'].map((n) => rankCalls(lab.host(n)).length);
    const r = await prove(['nc-c', 'nc-d', '--json']);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const p = json(r.stdout);
    const [c, d] = ['nc-c', 'nc-d'].map((n) => lab.host(n).address);
    assert.ok((p.command ?? '').startsWith(`mpirun --np 16 -H ${c}:8,${d}:8 --tag-output `), p.command ?? '');
    assert.equal(p.result?.devices.length, 16);
    assert.deepEqual(p.verdict?.gdr && [p.verdict.gdr.gpus, p.verdict.gdr.gdr, p.verdict.gdr.asPredicted], [16, 16, true]);
    assert.equal(p.verdict?.tone, 'ok');
    ['nc-c', 'nc-d'].forEach((n, i) => assert.equal(rankCalls(lab.host(n)).length - before[i], 8, n));
    await noneLeft(['nc-c', 'nc-d']);
  });

  it('four nodes through mpirun on the login node', async () => {
    const r = await prove([...NODES, '--via', 'nc-login', '--with', 'mpirun', '--json']);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const p = json(r.stdout);
    assert.match(p.command ?? '', /^mpirun --np 32 -H nc-a:8,nc-b:8,nc-c:8,nc-d:8 /);
    assert.equal(p.result?.devices.length, 32);
    assert.deepEqual(p.result?.hosts.sort(), NODES);
    await noneLeft(NODES);
  });

  it('nodes without peer memory: NCCL stages through host memory, as predicted, and the finding says why', async () => {
    const r = await prove(['nc-nopm-a', 'nc-nopm-b', '--via', 'nc-login', '--json']);
    assert.equal(r.status, 1, `${r.stderr}\n${r.stdout}`);
    const p = json(r.stdout);
    assert.equal(p.result?.source, 'json');
    assert.deepEqual([p.log?.verdict, p.log?.netConnections.gdrdma], ['no-gdr', 0]);
    assert.deepEqual(p.verdict?.gdr && [p.verdict.gdr.gdr, p.verdict.gdr.asPredicted], [0, true]);
    assert.equal(p.verdict?.tone, 'error');
    assert.match(p.verdict?.verdict ?? '', /GPUDirect RDMA on 0 of 16 GPUs, as predicted: peermem\.not-loaded: /);
  });

  it('refuses, running nothing, where nccl-tests is not installed, and says how to build it', async () => {
    const r = await prove(['nc-a', 'nc-notests', '--via', 'nc-login', '--json']);
    assert.equal(r.status, 4, r.stderr);
    const p = json(r.stdout);
    assert.equal(p.status, 'refused');
    assert.match(
      p.refusals.join('\n'),
      joinedRegExp(
        [
          /^nc-notests: all_reduce_perf of nccl-tests is not on the PATH/,
          /: build it once on a shared filesystem: git clone https:\/\/github.com\/NVIDIA\/nccl-tests/,
        ],
        'm',
      ),
    );
    assert.deepEqual(rankCalls(lab.host('nc-notests')), []);
  });

  it('stops every rank on every node at the deadline: the Slurm step is cancelled', async () => {
    for (const n of ['nc-a', 'nc-b']) lab.host(n).setFault('all_reduce_perf', 'hang', 600);
    try {
      const r = await prove(['nc-a', 'nc-b', '--via', 'nc-login', '--timeout', '20', '--json']);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(json(r.stdout).status, 'timed-out');
      await noneLeft(['nc-a', 'nc-b']);
      // scancel returns before slurmctld drops the job (it shows while COMPLETING): the queue empties soon after.
      let queue = await squeue(lab);
      for (const deadline = Date.now() + 30_000; queue !== '' && Date.now() < deadline; queue = await squeue(lab))
        await new Promise((r) => setTimeout(r, 500));
      assert.equal(queue, '');
    } finally {
      for (const n of ['nc-a', 'nc-b']) lab.host(n).clearFaults();
    }
  });

  it('stops every rank on Ctrl-C (mpirun on the first node): nothing is left on either node', async () => {
    for (const n of ['nc-c', 'nc-d']) lab.host(n).setFault('all_reduce_perf', 'hang', 600);
    try {
      const child = spawn(process.execPath, [CLI, 'prove', '--nccl', '-F', lab.sshConfigPath, 'nc-c', 'nc-d', '--gpus-per-node', '2'], {
        env: { ...process.env, SSH_AUTH_SOCK: '', GDR_DOCTOR_AUDIT_LOG: audit() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await until(
        'ranks run on both nodes',
        () => ['nc-c', 'nc-d'].every((n) => leftovers(lab.host(n)).some((p) => /sleep 600/.test(p.args))),
        180_000,
      );
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      assert.match(stdout, /Cancelled: the run was stopped on every node/);
      await noneLeft(['nc-c', 'nc-d']);
    } finally {
      for (const n of ['nc-c', 'nc-d']) lab.host(n).clearFaults();
    }
  });
});

async function squeue(lab: Lab): Promise<string> {
  return (await inHost(lab.host('nc-login').listenerPid(), ['squeue', '-h', '-o', '%j'])).trim();
}
