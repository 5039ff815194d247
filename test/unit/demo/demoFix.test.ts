// The demo host's findings are exactly the intended ones (nothing from a seam between recordings), and
// its quick fixes run the real plan, apply and verify code over the demo's simulated shell: the plan is
// marked simulated, applying changes the demo's state, the re-diagnosis shows it fixed, reset restores it.
import * as assert from 'node:assert/strict';
import { Diagnosis, diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost, INITIAL_DEMO_STATE } from '../../../src/core/transport/demo';
import { demoFixSession, prepareDemoFix } from '../../../src/core/fixes/demo/demoFix';
import { FixId, FixSession, formatPlan, formatResult, newSudoMarker, runPlan } from '../../../src/core/fixes';
import { CONF_HEADER, loadScript, persistScript, privilegedCommand } from '../../../src/core/fixes/scripts';
import { runProbe } from '../../../src/core/probe/runProbe';
import { DEMO_DIR } from '../../support/paths';

async function diagnosed(demo: DemoHost): Promise<Diagnosis> {
  return diagnose(await runProbe(demo.runner(), { host: DEMO_HOST_NAME }));
}

const ids = (d: Diagnosis) => d.findings.map((f) => f.id);
const verdicts = (d: Diagnosis) => d.pairs.map((p) => `${p.gpu} ${p.gdr ? 'yes' : 'no'}${p.proxyGpu ? ` via ${p.proxyGpu}` : ''}`);

async function apply(session: FixSession, fixId: FixId) {
  const sudoMarker = newSudoMarker();
  const plan = await prepareDemoFix(session, fixId, sudoMarker);
  const result = await runPlan(plan, session, {
    sudoMarker,
    sudoPassword: async () => assert.fail('the demo user needs no sudo password'),
  });
  return { plan, result };
}

describe('the demo host: its findings and its simulated quick fixes', () => {
  let demo: DemoHost;
  let session: FixSession;
  beforeEach(() => {
    demo = new DemoHost(DEMO_DIR);
    session = demoFixSession(demo);
  });

  it("shows exactly the intended findings: peer memory not loaded nor persisted, GPU1's NIC port down; ACS unread (no lspci)", async () => {
    const d = await diagnosed(demo);
    assert.deepEqual(ids(d), ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent', 'pcie.acs-unread']);
    assert.deepEqual(
      d.findings.map((f) => [f.severity, f.fixes]),
      [
        ['error', ['load-peermem']],
        ['warning', []],
        ['warning', ['persist-peermem']],
        ['info', []],
      ],
    );
    assert.equal(d.findings[1].title, 'No active port on mlx5_1');
    assert.ok(d.findings.every((f) => f.children === undefined));
    // Without peer memory (proprietary modules: no dma-buf) no GPU gets GPUDirect RDMA.
    assert.deepEqual(verdicts(d), ['GPU0 no', 'GPU1 no', 'GPU2 no', 'GPU3 no', 'GPU4 no', 'GPU5 no', 'GPU6 no', 'GPU7 no']);
  });

  it('load-peermem: the real plan, marked simulated; applied, verified, and the re-diagnosis shows it fixed', async () => {
    const acs = (d: Diagnosis) => d.findings.find((f) => f.id === 'pcie.acs-unread');
    const before = acs(await diagnosed(demo));
    assert.equal(before?.title, 'ACS of 14 bridges between GPUs and NICs could not be read');
    assert.match(before?.detail ?? '', /paths NCCL uses now that stay below a PCIe switch \(7 paths\): /);
    const { plan, result } = await apply(session, 'load-peermem');
    assert.equal(plan.status, 'ready');
    assert.equal(plan.simulated, true);
    assert.equal(plan.privilege, 'sudo');
    assert.deepEqual(
      plan.steps.map((s) => s.command),
      [privilegedCommand(loadScript('nvidia_peermem'), 'sudo', 'unused-marker')],
    );
    assert.match(plan.notes.at(-1) ?? '', /^Simulated: the demo host is replayed from recordings/);
    assert.match(
      formatPlan(plan),
      /^demo-hgx-h100 \(replayed\): load-peermem \(nvidia_peermem\): plan \(SIMULATED on the demo host: nothing runs on any machine\)\n/,
    );
    assert.equal(result.status, 'applied', result.message);
    assert.deepEqual(result.verification, [
      'lsmod / /sys/module: nvidia_peermem is loaded',
      '/sys/kernel/mm/memory_peers: registered nv_mem',
    ]);
    assert.match(formatResult(result), /^demo-hgx-h100 \(replayed\): load-peermem applied \(SIMULATED/);
    assert.deepEqual(demo.current, { peermemLoaded: true, written: {} });
    const after = await diagnosed(demo);
    assert.deepEqual(ids(after), ['rdma.port-down', 'peermem.not-persistent', 'pcie.acs-unread']);
    // Every GPU now uses GPUDirect RDMA; GPU1, whose own NIC is down, through GPU0's (PXN).
    assert.deepEqual(verdicts(after), [
      'GPU0 yes',
      'GPU1 yes via GPU0',
      'GPU2 yes',
      'GPU3 yes',
      'GPU4 yes',
      'GPU5 yes',
      'GPU6 yes',
      'GPU7 yes',
    ]);
    // The ACS finding gains GPU1's PXN path through GPU0 (7 → 8 paths, over the same 14 bridges) and says why.
    assert.equal(acs(after)?.title, 'ACS of 14 bridges between GPUs and NICs could not be read');
    assert.match(acs(after)?.detail ?? '', /below a PCIe switch \(8 paths; PXN: GPU1 through GPU0\): /);
    assert.match(acs(after)?.detail ?? '', /turning it on can add PXN paths to this list \(src\/graph\/paths\.cc/);
    // Loaded once, there is nothing more to load.
    assert.equal((await prepareDemoFix(session, 'load-peermem', newSudoMarker())).status, 'nothing-to-do');
  });

  it('persist-peermem: loads it first, writes modules-load.d (diff shown), the probe then reads the file', async () => {
    const { plan, result } = await apply(session, 'persist-peermem');
    assert.deepEqual(
      plan.steps.map((s) => s.kind),
      ['load', 'persist'],
    );
    assert.equal(plan.steps[1].command, privilegedCommand(persistScript('nvidia_peermem', 'modules-load.d'), 'sudo', 'unused-marker'));
    assert.deepEqual([plan.fileChange?.path, plan.fileChange?.before], ['/etc/modules-load.d/nvidia-peermem.conf', null]);
    assert.equal(plan.fileChange?.after, `${CONF_HEADER}\nnvidia-peermem\n`);
    assert.equal(result.status, 'applied', result.message);
    assert.equal(result.steps[1].stdout, 'gdr-doctor: wrote /etc/modules-load.d/nvidia-peermem.conf\n');
    assert.deepEqual(demo.current.written, { '/etc/modules-load.d/nvidia-peermem.conf': `${CONF_HEADER}\nnvidia-peermem\n` });
    const report = await runProbe(demo.runner(), { host: DEMO_HOST_NAME });
    assert.match(
      report.commands.find((c) => c.id === 'modules-load')?.stdout ?? '',
      /\n==> \/etc\/modules-load\.d\/nvidia-peermem\.conf <==\n# GPUDirect RDMA[^\n]*\nnvidia-peermem\n\n$/,
    );
    assert.deepEqual(ids(diagnose(report)), ['rdma.port-down', 'pcie.acs-unread']);
    assert.equal((await prepareDemoFix(session, 'persist-peermem', newSudoMarker())).status, 'nothing-to-do');
  });

  it('reset restores the recordings: the failure is back', async () => {
    await apply(session, 'persist-peermem');
    demo.reset();
    assert.deepEqual(demo.current, INITIAL_DEMO_STATE);
    assert.deepEqual(ids(await diagnosed(demo)), ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent', 'pcie.acs-unread']);
  });

  it('runs nothing else: any other command line is refused and changes nothing', async () => {
    for (const command of ['rm -rf /', 'modprobe nvidia_peermem', privilegedCommand(loadScript('nv_peer_mem'), 'sudo', 'unused-marker')]) {
      const r = await session.shell.run(command, { timeoutMs: 1000 });
      assert.equal(r.exitCode, 1, command);
      assert.match(r.stderr.toString(), /answers only the quick fixes' own commands; nothing ran/);
    }
    assert.deepEqual(demo.current, INITIAL_DEMO_STATE);
  });

  it("each DemoHost has its own state: one demo's fix leaves another as recorded", async () => {
    await apply(session, 'load-peermem');
    assert.deepEqual(ids(await diagnosed(new DemoHost(DEMO_DIR))), [
      'peermem.not-loaded',
      'rdma.port-down',
      'peermem.not-persistent',
      'pcie.acs-unread',
    ]);
  });
});
