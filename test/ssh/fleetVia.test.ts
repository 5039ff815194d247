// `gdr-doctor diagnose --via LOGIN --with slurm|pdsh|clush`, the built CLI end to end: one SSH
// connection to a lab login node (real slurmctld, pdsh, clush there; real slurmd in every compute
// node), the same grouped summary and JSON as a direct fan-out, and a node that is down reported for
// that node alone. The relay's byte-level behaviour is tested in relay.test.ts; this is the user's path.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { Run, TmuxServer } from '../support/tmux';
import { Lab } from '../lab/lab';
import { startLoginNodeLab } from '../lab/loginNodeLab';

const RECORDS = '/tmp/gdrlab-records-fleet-via.json';
const NETWORK = { bridge: 'gdrbr11', subnet: 11 };
const PROFILE: Record<string, string> = { gpu01: 'healthy', gpu02: 'healthy', gpu03: 'needs-peermem', gpu04: 'no-nic' };
const NODES = Object.keys(PROFILE);

interface HostJson {
  host: string;
  status: string;
  path: string;
  error?: { step: string; message: string };
  report?: { finished: boolean; findings: { id: string }[] };
}

describe('gdr-doctor diagnose through a login node (the CLI)', function () {
  this.timeout(300_000);
  let lab: Lab;

  before(async () => {
    lab = await startLoginNodeLab({ recordsPath: RECORDS, network: NETWORK, nodes: PROFILE });
  });
  after(async () => {
    await lab?.stop();
  });

  /** A command on the login node, as the user who runs gdr-doctor (user gdr, the lab's key). */
  function onLogin(command: string): string {
    const r = spawnSync('ssh', ['-F', lab.sshConfigPath, '-o', 'BatchMode=yes', 'login', command], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${command}: ${r.stderr}`);
    return `${r.stdout}${r.stderr}`;
  }

  const cli = (args: string[]) => runCli(['diagnose', '-F', lab.sshConfigPath, '--batch', '--via', 'login', ...args]);
  const ids = (h: HostJson) => (h.report?.findings ?? []).map((f) => f.id);

  /** Every node reached by `tool`, each with its own profile's verdicts. */
  function assertNodes(hosts: HostJson[], tool: string, down: string[] = []): void {
    assert.deepEqual(
      hosts.map((h) => h.host),
      NODES,
    );
    const byName = new Map(hosts.map((h) => [h.host, h]));
    for (const h of hosts.filter((x) => !down.includes(x.host))) {
      assert.equal(h.path, tool, h.host);
      assert.equal(h.report?.finished, true, `${h.host}: ${JSON.stringify(h.error)}`);
    }
    assert.ok(ids(byName.get('gpu03')!).includes('peermem.not-loaded'), ids(byName.get('gpu03')!).join(' '));
    assert.ok(ids(byName.get('gpu04')!).includes('rdma.none'), ids(byName.get('gpu04')!).join(' '));
    for (const name of ['gpu01', 'gpu02'].filter((n) => !down.includes(n))) {
      assert.ok(
        !ids(byName.get(name)!).some((id) => id === 'peermem.not-loaded' || id === 'rdma.none'),
        `${name}: ${ids(byName.get(name)!)}`,
      );
    }
  }

  it('--with slurm: srun runs the probe on every node; JSON has one report per node and the grouping', async () => {
    const r = await cli(['--with', 'slurm', '-w', 'gpu[01-04]', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const fleet = JSON.parse(r.stdout);
    assertNodes(fleet.hosts, 'slurm');
    const groupOf = (host: string) => fleet.groups.find((g: { hosts: string[] }) => g.hosts.includes(host));
    assert.equal(groupOf('gpu01'), groupOf('gpu02'));
    assert.notEqual(groupOf('gpu01'), groupOf('gpu03'));
  });

  it('--with pdsh: a node whose sshd never answers is unreachable, the others are diagnosed', async () => {
    const stopped = lab.host('gpu02').listenerPid();
    process.kill(stopped, 'SIGSTOP');
    try {
      const r = await cli(['--with', 'pdsh', '-w', 'gpu[01-04]', '-f', '2', '--json']);
      assert.equal(r.status, 3, r.stderr);
      const hosts: HostJson[] = JSON.parse(r.stdout).hosts;
      assertNodes(hosts, 'pdsh', ['gpu02']);
      const down = hosts.find((h) => h.host === 'gpu02')!;
      assert.deepEqual([down.status, down.error?.step], ['unreachable', 'relay']);
      assert.match(r.stderr, /gpu02/);
    } finally {
      process.kill(stopped, 'SIGCONT');
    }
  });

  it('--with clush: the grouped summary, outliers first', async () => {
    const r = await cli(['--with', 'clush', 'gpu[01-04]', '-f', '2']);
    assert.equal(r.status, 0, r.stderr);
    const healthy = r.stdout.indexOf('gpu[01-02] (2)');
    assert.ok(healthy > 0, r.stdout);
    for (const outlier of ['gpu03 (1)', 'gpu04 (1)']) {
      const at = r.stdout.indexOf(outlier);
      assert.ok(at > 0 && at < healthy, `${outlier} before the healthy pair:\n${r.stdout}`);
    }
  });

  it("without --with: the login node's tools are detected and Slurm is chosen", async () => {
    const r = await cli(['-w', 'gpu[01-02]', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /through login with slurm \(found: slurm, pdsh, clush\)/);
    assert.deepEqual(
      JSON.parse(r.stdout).hosts.map((h: HostJson) => [h.host, h.path]),
      [
        ['gpu01', 'slurm'],
        ['gpu02', 'slurm'],
      ],
    );
  });

  describe('--jobid: the nodes of an allocation the user already holds', () => {
    let job = '';
    afterEach(() => {
      if (job !== '') onLogin(`scancel ${job}; while squeue -h -j ${job} | grep -q .; do sleep 0.2; done`);
      job = '';
    });

    it('salloc --no-shell: every node of the allocation and no other', async () => {
      job = /Granted job allocation (\d+)/.exec(onLogin('salloc --no-shell -N 2 -w gpu[02-03] --job-name=held'))?.[1] ?? '';
      assert.notEqual(job, '');
      const r = await cli(['--with', 'slurm', '--jobid', job, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const hosts: HostJson[] = JSON.parse(r.stdout).hosts;
      assert.deepEqual(
        hosts.map((h) => [h.host, h.path, h.report?.finished]),
        [
          ['gpu02', 'slurm', true],
          ['gpu03', 'slurm', true],
        ],
      );
      assert.ok(ids(hosts[1]).includes('peermem.not-loaded'), ids(hosts[1]).join(' '));
      assert.ok(!ids(hosts[0]).includes('peermem.not-loaded'), ids(hosts[0]).join(' '));
    });

    it("a running batch job: its nodes, beside the job's own step", async () => {
      job =
        /Submitted batch job (\d+)/.exec(
          onLogin("sbatch -N 2 -w gpu[01,04] --wrap 'sleep 300'; while ! squeue -h -t R -o %i | grep -q .; do sleep 0.2; done"),
        )?.[1] ?? '';
      const r = await cli(['--with', 'slurm', '--jobid', job, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const hosts: HostJson[] = JSON.parse(r.stdout).hosts;
      assert.deepEqual(
        hosts.map((h) => [h.host, h.report?.finished]),
        [
          ['gpu01', true],
          ['gpu04', true],
        ],
      );
      assert.ok(ids(hosts[1]).includes('rdma.none'), ids(hosts[1]).join(' '));
    });

    it("a job that is over: srun's reason, once, and exit status 3", async () => {
      job = /Granted job allocation (\d+)/.exec(onLogin('salloc --no-shell -N 1 -w gpu01'))?.[1] ?? '';
      onLogin(`scancel ${job}; while squeue -h -j ${job} | grep -q .; do sleep 0.2; done`);
      const ended = job;
      job = '';
      const r = await cli(['--with', 'slurm', '--jobid', ended]);
      assert.equal(r.status, 3, r.stdout);
      assert.match(r.stderr, new RegExp(`login: srun: error: .*job ${ended}`, 'i'));
      assert.doesNotMatch(r.stderr, /srun: srun:/);
    });
  });

  it('on a terminal: the progress line counts the nodes as they end; Ctrl-C cancels the one still probing', async () => {
    const terminal = new TmuxServer(`gdrdoc-fleetvia-${process.pid}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-fleetvia-'));
    lab.host('gpu02').setFault('nvidia-smi', 'hang', 600);
    try {
      const run = new Run(
        terminal,
        dir,
        'progress',
        ['diagnose', '-F', lab.sshConfigPath, '--batch', '--via', 'login', '--with', 'pdsh', 'gpu[01-04]'],
        { output: 'terminal' },
      );
      await run.waitFor(/3\/4 hosts done/, 1, 120_000);
      assert.ok(
        lab
          .host('gpu02')
          .processes()
          .some((p) => p.args === 'sleep 600'),
        'gpu02 is still probing',
      );
      run.key('C-c');
      assert.equal(await run.exitCode(60_000), 130, 'interrupted, as documented');
      const screen = run.screen();
      assert.match(screen, /^cancelled: gpu02: cancelled while running$/m, screen);
      assert.match(screen, /^gpu04 \(1\)\n-+\n[^]*?rdma\.none/m, screen);
      assert.doesNotMatch(screen, /\d\/4 hosts done\s*\n[^\n]*\[exit/, 'the progress line is cleared before the summary');
    } finally {
      lab.host('gpu02').clearFaults();
      terminal.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
