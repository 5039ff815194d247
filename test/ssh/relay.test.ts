// Diagnosing compute nodes through a login node with the real srun (Slurm in the lab hosts), pdsh
// and clush: one SSH connection to the login node, nothing installed on the nodes. Every node's
// findings must equal a direct probe of a host with the same profile; a node that is down (its sshd
// stopped, or drained in Slurm) is reported for that node alone.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../src/core/diagnosis';
import { detectRelayTools, diagnoseViaLoginNode, RelayOptions } from '../../src/core/fleet/relay';
import { openSsh } from '../../src/core/ssh/openSsh';
import { PROBE_COMMANDS } from '../../src/core/probe/commands';
import { ProbeReport, runProbe } from '../../src/core/probe/runProbe';
import { sshRunner } from '../../src/core/transport/sshRunner';
import type { FleetHostResult } from '../../src/core/fleet/types';
import type { SshConnection } from '../../src/core/ssh/connect';
import { noPrompts } from '../../src/core/ssh/prompts';
import { Lab, LabHost } from '../lab/lab';
import { startLoginNodeLab } from '../lab/loginNodeLab';
import { inHost } from '../lab/slurm';
import { until } from '../support/until';

const RECORDS = '/tmp/gdrlab-records-relay.json';
const NETWORK = { bridge: 'gdrbr8', subnet: 8 };
const PROFILE: Record<string, string> = {
  gpu01: 'healthy',
  gpu02: 'healthy',
  gpu03: 'healthy',
  gpu04: 'healthy',
  gpu05: 'healthy',
  gpu06: 'no-peermem',
  gpu07: 'no-peermem',
  gpu08: 'no-nic',
};
const NODES = Object.keys(PROFILE);
// Generous limits on both sides: a loaded CI machine must not time a command out in one run only.
const COMMANDS = PROBE_COMMANDS.map((c) => ({ ...c, timeoutS: 120 }));

// A hostile node (reached only by the test that asks for it): its login shell reads the run's tag and its
// own key from the command it was given and prints gpu01's whole stream, fake probe output included, on
// lines glued after a cut base64 one as pdsh prints a dying node's last line (once with the tag alone,
// once with its own key); then the relay's command runs on as usual.
const HOSTILE_BASHRC = [
  'case $BASH_EXECUTION_STRING in "echo "*"| base64 -d | /bin/sh -s")',
  `  IDS=$(printf '%s' "$BASH_EXECUTION_STRING" | sed 's/^echo //; s/ |.*//' | tr -d ' ' | base64 -d)`,
  `  T=$(printf '%s\\n' "$IDS" | sed -n "s/^T='\\(.*\\)'$/\\1/p"); G=$(printf '%s\\n' "$IDS" | sed -n 's/^G=//p')`,
  `  F=$(printf 'forged probe output' | base64)`,
  `  printf 'QUJDgpu01: %s B gpu01 \\nQUJDgpu01: %s\\nQUJDgpu01: %s E 0\\n' "$T" "$F" "$T"`,
  `  printf 'QUJDgpu01: %s.%s B gpu01 \\nQUJDgpu01: %s %s\\nQUJDgpu01: %s.%s E 0\\n' "$T" "$G" "$G" "$F" "$T" "$G" ;;`,
  'esac',
].join('\n');

describe('diagnose through a login node (srun, pdsh, clush)', function () {
  this.timeout(300_000);
  let lab: Lab;
  let login: SshConnection;
  /** Findings of a direct probe, by profile, the host's name taken out (fake outputs may name it). */
  const direct = new Map<string, string>();
  const withoutName = (findings: unknown, host: string) => JSON.stringify(findings).split(host).join('<host>');
  /** Every command's output and how it ended, by profile: a node's report must carry exactly this. */
  const directOutputs = new Map<string, string>();
  const outputsOf = (report: ProbeReport) =>
    report.commands.map((c) => [c.id, c.state, c.exitCode, c.timedOut, c.truncated, c.stdout, c.stderr]);
  const reach = () => ({ prompts: noPrompts, configFile: lab.sshConfigPath });

  before(async () => {
    lab = await startLoginNodeLab({
      recordsPath: RECORDS,
      network: NETWORK,
      nodes: PROFILE,
      others: [{ name: 'gpu09', profile: 'healthy', netns: true, bashrcFirst: HOSTILE_BASHRC }],
    });
    for (const [profile, host] of [
      ['healthy', 'gpu01'],
      ['no-peermem', 'gpu06'],
      ['no-nic', 'gpu08'],
    ]) {
      const conn = await openSsh(host, reach());
      const report = await runProbe(sshRunner(conn.client), { host, commands: COMMANDS }).finally(() => conn.close());
      direct.set(profile, withoutName(diagnose(report).findings, host));
      directOutputs.set(profile, withoutName(outputsOf(report), host));
    }
    login = await openSsh('login', reach());
  });
  after(async () => {
    login?.close();
    await lab?.stop();
  });

  /** What is left of a hung probe on a node: the fake nvidia-smi and the `sleep 600` it hangs in. */
  const hangingOn = (h: LabHost) => h.processes().filter((p) => /nvidia-smi|^sleep 600$/.test(p.args));
  /** Waits until no node of `hosts` runs any of the probe; else fails listing every process on them. */
  async function untilProbeGone(hosts: LabHost[]): Promise<void> {
    const left = () =>
      hosts
        .map(
          (h) =>
            `${h.name}:\n${h
              .processes()
              .map((p) => `  ${p.pid} ${p.ppid} ${p.state} ${p.args.slice(0, 200)}`)
              .join('\n')}`,
        )
        .join('\n');
    await until(
      () => `nothing of the probe is left on the nodes; pid ppid state args:\n${left()}`,
      () => hosts.every((h) => hangingOn(h).length === 0),
    );
  }

  const relay = (opts: Omit<RelayOptions, 'loginHost'>) =>
    diagnoseViaLoginNode(login.client, { loginHost: 'login', commands: COMMANDS, ...opts });

  function assertLikeDirect(results: FleetHostResult[], tool: string, nodes: readonly string[]): void {
    assert.deepEqual(
      results.map((r) => r.host),
      nodes,
    );
    for (const r of results) {
      assert.equal(r.path, tool);
      assert.ok(r.report && r.diagnosis, `${r.host}: ${JSON.stringify(r.error)}`);
      assert.equal(r.report.finished, true, `${r.host}: ${r.report.notes.join('\n')}`);
      assert.deepEqual(
        JSON.parse(withoutName(outputsOf(r.report), r.host)),
        JSON.parse(directOutputs.get(PROFILE[r.host]) ?? 'null'),
        r.host,
      );
      assert.deepEqual(JSON.parse(withoutName(r.diagnosis.findings, r.host)), JSON.parse(direct.get(PROFILE[r.host]) ?? 'null'), r.host);
      assert.equal(r.status, 'findings'); // every lab profile has at least a warning (the seed topology's far NICs)
    }
  }

  it('detects the tools the login node has', async () => {
    assert.deepEqual(await detectRelayTools(login.client), ['slurm', 'pdsh', 'clush']);
  });

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: every node like a direct probe`, async () => {
      // Two at a time: eight probes at once on a shared CI machine push its commands past their limits.
      assertLikeDirect(await relay({ tool, nodes: 'gpu[01-08]', concurrency: 2 }), tool, NODES);
    });
  }

  it('slurm: a nodelist, and a node count srun picks, every node like a direct probe', async () => {
    assertLikeDirect(await relay({ tool: 'slurm', nodes: 'gpu[01-08]', partition: 'gpu' }), 'slurm', NODES);
    assertLikeDirect(await relay({ tool: 'slurm', nodeCount: 8 }), 'slurm', NODES);
  });

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: a node whose sshd is stopped is unreachable, the others intact`, async () => {
      const pid = lab.host('gpu03').listenerPid();
      process.kill(pid, 'SIGSTOP');
      try {
        const results = await relay({ tool, nodes: 'gpu[01-08]', concurrency: 2 });
        const down = results.find((r) => r.host === 'gpu03');
        assert.equal(down?.status, 'unreachable');
        assert.equal(down.error?.step, 'relay');
        assert.match(down.error.message, /timed out|exit code 255/);
        assertLikeDirect(
          results.filter((r) => r.host !== 'gpu03'),
          tool,
          NODES.filter((n) => n !== 'gpu03'),
        );
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    });
  }

  it('slurm: a drained node is reported as such, the others intact', async () => {
    const ctl = lab.host('login').listenerPid();
    await inHost(ctl, ['scontrol', 'update', 'nodename=gpu04', 'state=drain', 'reason=gdr-doctor-test']);
    try {
      const results = await relay({ tool: 'slurm', nodes: 'gpu[01-08]' });
      const drained = results.find((r) => r.host === 'gpu04');
      assert.equal(drained?.status, 'unreachable');
      assert.match(drained.error?.message ?? '', /gpu04 as drain/);
      assertLikeDirect(
        results.filter((r) => r.host !== 'gpu04'),
        'slurm',
        NODES.filter((n) => n !== 'gpu04'),
      );
    } finally {
      await inHost(ctl, ['scontrol', 'update', 'nodename=gpu04', 'state=resume']);
    }
  });

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: a hostile node forging another node's stream is refused, both are flagged, the others intact`, async () => {
      const refused: string[] = [];
      const results = await relay({ tool, nodes: 'gpu[01-02],gpu09', concurrency: 3, onRefusedNode: (l) => refused.push(l) });
      const byHost = new Map(results.map((r) => [r.host, r]));
      for (const [host, why] of [
        ['gpu01', 'gpu09 printed relay lines claiming to be its stream'],
        ['gpu09', "it printed relay lines claiming to be gpu01's stream"],
      ]) {
        const r = byHost.get(host);
        assert.deepEqual([r?.status, r?.report, r?.error?.step], ['unreachable', undefined, 'relay'], host);
        assert.equal(r?.error?.message, `${host}: its stream through ${tool} was contested (${why}): nothing it printed is used`);
      }
      assert.equal(refused.length, 2, refused.join('\n'));
      assert.ok(!JSON.stringify(results).includes('forged probe output'));
      assertLikeDirect([byHost.get('gpu02')!], tool, ['gpu02']);
    });
  }

  it("slurm: srun refusing the whole run is every node's error, or thrown when no node is known", async () => {
    const results = await relay({ tool: 'slurm', nodes: 'gpu[01-02]', partition: 'nosuch' });
    assert.deepEqual(
      results.map((r) => [r.host, r.status]),
      [
        ['gpu01', 'unreachable'],
        ['gpu02', 'unreachable'],
      ],
    );
    await assert.rejects(relay({ tool: 'slurm', nodeCount: 2, partition: 'nosuch' }), /login: srun: .*[Ii]nvalid partition/);
  });

  for (const tool of ['slurm', 'pdsh', 'clush'] as const) {
    it(`${tool}: counts each node's end while the run goes on; a cancel keeps the ended nodes' results`, async () => {
      const hung = lab.host('gpu02');
      hung.setFault('nvidia-smi', 'hang', 600);
      const abort = new AbortController();
      const counts: number[] = [];
      try {
        const running = relay({ tool, nodes: 'gpu[01-03]', signal: abort.signal, onNodeEnded: (n) => counts.push(n) });
        // gpu02 may start its probe after the other two have ended (srun starts the tasks unevenly).
        await until('gpu02 hangs', () => hung.processes().some((p) => p.args === 'sleep 600'), 120_000);
        await until('two nodes have ended while the third hangs', () => counts.at(-1) === 2, 120_000);
        assert.ok(
          hung.processes().some((p) => p.args === 'sleep 600'),
          'gpu02 is still probing',
        );
        const endedBeforeCancel = [...counts];
        abort.abort();
        const results = await running;
        // The cancel must stop gpu02's probe here too, checked first: a `sleep 600` left behind would
        // otherwise fail every later test that hangs gpu02, and not this one, which left it.
        await untilProbeGone([hung]);
        assert.deepEqual(
          results.map((r) => [r.host, r.status]),
          [
            ['gpu01', 'findings'],
            ['gpu02', 'cancelled'],
            ['gpu03', 'findings'],
          ],
        );
        assertLikeDirect(
          results.filter((r) => r.host !== 'gpu02'),
          tool,
          ['gpu01', 'gpu03'],
        );
        assert.deepEqual(
          endedBeforeCancel,
          endedBeforeCancel.length === 1 ? [2] : [1, 2],
          `each count once, growing: ${JSON.stringify(counts)}`,
        );
        // gpu02's stream may still end after the cancel (Slurm SIGKILLs the step's processes one at a
        // time, so its wrapper can outlive the probe and print its end line): counted once more, as 3.
        assert.deepEqual(
          counts,
          [...endedBeforeCancel, ...(counts.length > endedBeforeCancel.length ? [3] : [])],
          `each count once, growing: ${JSON.stringify(counts)}`,
        );
      } finally {
        hung.clearFaults();
      }
    });
  }

  for (const tool of ['slurm', 'pdsh', 'clush'] as const) {
    it(`${tool}: cancelling stops the probe on every node${tool === 'slurm' ? ' and ends the job' : ''}`, async () => {
      const hung = ['gpu01', 'gpu02'].map((n) => lab.host(n));
      for (const h of hung) h.setFault('nvidia-smi', 'hang', 600);
      const abort = new AbortController();
      try {
        const running = relay({ tool, nodes: 'gpu[01-02]', signal: abort.signal });
        await until('the probe hangs on both nodes', () => hung.every((h) => h.processes().some((p) => p.args === 'sleep 600')), 60_000);
        abort.abort();
        const results = await running;
        await untilProbeGone(hung);
        assert.deepEqual(
          results.map((r) => [r.host, r.status]),
          [
            ['gpu01', 'cancelled'],
            ['gpu02', 'cancelled'],
          ],
        );
        if (tool === 'slurm') {
          const ctl = lab.host('login').listenerPid();
          let queue = '';
          for (let i = 0; i < 100; i++) {
            queue = (await inHost(ctl, ['squeue', '-h', '-o', '%i %j %T'])).trim();
            if (queue === '') break;
            await new Promise((r) => setTimeout(r, 200));
          }
          assert.equal(queue, '', 'no gdr-doctor job left in Slurm');
        }
      } finally {
        for (const h of hung) h.clearFaults();
      }
    });
  }
});
