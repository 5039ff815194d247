// Fleets reached through a login node, as a user drives them in a real VS Code (code-server +
// chromium, the packaged .vsix): Add Fleet… with a login node and the tool it runs (Slurm, then
// pdsh), Diagnose Fleet over ONE SSH connection to that login node, and the same grouping as a direct
// fleet. The lab is a real cluster: a login node running slurmctld, pdsh and clush, and compute nodes
// with their own addresses, each running slurmd inside the simulated host. What ran where is read from
// the lab (the hosts' call logs, slurmctld's log, the login node's sessions), not only from the UI.
import * as assert from 'assert';
import * as fs from 'fs';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';
import { until } from '../support/until';
import { escapeRegExp, hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

// Our own lab records and network: other suites and helpers run labs of their own.
const RECORDS_PATH = '/tmp/gdrlab-records-e2e-fleet-via.json';
const NETWORK = { bridge: 'gdrbr12', subnet: 12 };
const LOGIN = 'login';
const PROFILE: Record<string, string> = { gpu01: 'healthy', gpu02: 'healthy', gpu03: 'needs-peermem', gpu04: 'no-nic' };
const NODES = Object.keys(PROFILE);
const SLURM_FLEET = 'lab-slurm';
const PDSH_FLEET = 'lab-pdsh';
const LOAD_FIX = 'Fix: Load Peer Memory Module (load-peermem)';

describe('Fleets through a login node in a real VS Code (Slurm and pdsh on a lab cluster)', function () {
  this.timeout(180_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;

  const { sidebar, row, setExpanded, inline, tooltip, contextMenu } = hostsTree(workbench);
  const quickInput = () => workbench.tab.locator('.quick-input-widget .quick-input-box input');
  const quickTitle = (text: string) => workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: text });
  const description = (fleet: string) => row(fleet).locator('.label-description').innerText();
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');
  const modprobes = (host: string) =>
    lab!
      .host(host)
      .calls()
      .filter((c) => c.cmd === 'modprobe')
      .map((c) => [c.uid, c.args]);
  const probedOn = (host: string) =>
    lab!
      .host(host)
      .calls()
      .filter((c) => c.cmd === 'nvidia-smi').length;

  /** Add Fleet… answered as a user answers it, through the login node with `tool` (detect: what it offers). */
  async function addFleet(name: string, tool: 'detect' | 'pdsh'): Promise<void> {
    await workbench.runCommand('GPUDirect RDMA: Add Fleet…');
    await quickTitle('Add Fleet: name').waitFor();
    await quickInput().fill(name);
    await quickInput().press('Enter');
    await quickTitle('Add Fleet: hosts').waitFor();
    await quickInput().fill('gpu[01-04]');
    await quickInput().press('Enter');
    await quickTitle('Add Fleet: login node').waitFor();
    await quickInput().fill(LOGIN);
    await quickInput().press('Enter');
    await quickTitle(`how does ${LOGIN} reach the hosts?`).waitFor();
    await quickInput().fill(tool); // the quick pick filters on its labels: detect, slurm, pdsh, clush
    await quickInput().press('Enter');
    await row(name).waitFor();
    assert.strictEqual((await description(name)).trim(), 'not diagnosed');
  }

  /**
   * Diagnose Fleet from the fleet's inline action. Clicked again when nothing started: right after
   * Add Fleet the settings change re-renders the tree, and a click can land on the row being replaced.
   */
  async function diagnose(fleet: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      await inline(row(fleet), 'Diagnose Fleet');
      const started = await row(fleet)
        .locator('.label-description', { hasText: /^(?!not diagnosed)/ })
        .waitFor({ timeout: 5_000 })
        .then(
          () => true,
          () => false,
        );
      if (started) return;
    }
    assert.fail(`Diagnose Fleet did not start on ${fleet}`);
  }

  /** The groups of `fleet`: the rows one level under it while it is expanded. */
  async function groupsOf(fleet: string): Promise<string[]> {
    await setExpanded(row(fleet), true);
    const rows = sidebar().locator('.monaco-list-row[aria-level="2"]');
    const labels = (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim());
    await setExpanded(row(fleet), false);
    return labels;
  }

  /** The grouping every reachable node must show: its own profile's verdict. */
  function assertGrouping(text: string, reachable: number): void {
    assert.match(text, new RegExp(`${reachable - 2} hosts? `), text);
    assert.match(text, /1 host [^·]*peermem\.not-loaded/, text);
    assert.match(text, /1 host [^·]*rdma\.none/, text);
  }

  before(async function () {
    this.timeout(300_000);
    assertLabCanRun();
    await cleanupStale(RECORDS_PATH);
    await workbench.start();
    lab = await startLab({
      hosts: [
        { name: LOGIN, profile: 'no-gpu', netns: true, login: true },
        ...NODES.map((name) => ({ name, profile: PROFILE[name], netns: true })),
      ],
      recordsPath: RECORDS_PATH,
      network: NETWORK,
      slurm: { controller: LOGIN, nodes: NODES },
      readyTimeoutMs: 60_000,
    });
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab.sshConfigPath, 'gdrDoctor.connectTimeoutSeconds': 8 }, 'machine');
    await row(LOGIN).waitFor();
  });

  afterEach(screenshotFailures(workbench, 'fleet-via-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
    await lab?.stop();
  });

  it('adds a fleet reached through the login node with whatever tool it offers; adding connects nowhere', async function () {
    await addFleet(SLURM_FLEET, 'detect');
    await tooltip(row(SLURM_FLEET), `Reached through ${LOGIN} with the tool it offers`);
    assert.deepStrictEqual(
      lab!.hosts.flatMap((h) => h.calls()),
      [],
    );
    await workbench.screenshot('fleet-via-01-added');
  });

  it('diagnoses it through srun, detected on the login node: one job on every node, the grouping as for a direct fleet', async function () {
    const ctldBefore = fs.readFileSync(lab!.slurm!.ctldLogPath, 'utf8').length;
    await diagnose(SLURM_FLEET);
    await row(SLURM_FLEET)
      .locator('.label-description', { hasText: /peermem\.not-loaded/ })
      .waitFor({ timeout: 120_000 });
    const text = await description(SLURM_FLEET);
    assertGrouping(text, 4);
    assert.doesNotMatch(text, /unreachable|timed out/, text);
    const groups = await groupsOf(SLURM_FLEET);
    assert.strictEqual(groups.length, 3, groups.join(' | '));
    assert.match(groups[groups.length - 1], /^2 hosts/, 'the largest group (the norm) comes last');
    await workbench.screenshot('fleet-via-02-slurm-grouping');
    // The probe ran on every compute node and not on the login node, as one Slurm job over all four.
    for (const n of NODES) assert.ok(probedOn(n) > 0, `${n} was probed`);
    assert.strictEqual(probedOn(LOGIN), 0, 'the login node only relays');
    const ctld = fs.readFileSync(lab!.slurm!.ctldLogPath, 'utf8').slice(ctldBefore);
    assert.match(ctld, /JobId=\d+ NodeList=gpu\[01-04\]/, ctld);
  });

  it('expands a relayed node into its findings; its group offers the quick fix', async function () {
    await setExpanded(row(SLURM_FLEET), true);
    const group = row(/^1 host .*peermem\.not-loaded/);
    await setExpanded(group, true);
    // gpu03 is also a host of the SSH config (a root row); this is the fleet's, under its group.
    const node = sidebar().locator('.monaco-list-row[aria-level="3"]', {
      has: workbench.tab.locator('.label-name', { hasText: /^gpu03$/ }),
    });
    await setExpanded(node, true);
    await setExpanded(row('Findings'), true);
    await sidebar().locator('.monaco-list-row[aria-label$=", peermem.not-loaded"]').first().waitFor();
    await group.hover();
    await group.locator(`.actions .action-label[aria-label="${LOAD_FIX}"]`).waitFor();
    await workbench.screenshot('fleet-via-03-relayed-node');
    await setExpanded(row('Findings'), false);
    await setExpanded(node, false);
    await setExpanded(row(SLURM_FLEET), false);
  });

  it('proves GPUDirect RDMA between two selected nodes through the login node: one srun step on both, nothing left running', async function () {
    // 11 measurements, each an srun step through the login node: on a busy 2-core machine, minutes.
    this.timeout(420_000);
    await setExpanded(row(SLURM_FLEET), true);
    await setExpanded(row(/^2 hosts/), true);
    const node = (name: string) =>
      sidebar().locator('.monaco-list-row[aria-level="3"]', {
        has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
      });
    await node('gpu01').click();
    await node('gpu02').click({ modifiers: ['Control'] });
    await contextMenu(node('gpu02'), 'Prove GPUDirect RDMA');
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', {
        hasText: `Proving GPUDirect RDMA between gpu01 and gpu02 through ${LOGIN}`,
      })
      .first()
      .waitFor({ timeout: 30_000 });
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: /gpu01 ↔ gpu02: GPUDirect RDMA works on 8 of 8 GPUs/ })
      .first()
      .waitFor({ timeout: 300_000 });
    await workbench.tab.mouse.move(0, 0);
    await setExpanded(node('gpu01'), true);
    await setExpanded(row('Proof'), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /GPU5.*peermem [\d.]+ Gb\/s/ })
      .first()
      .waitFor();
    await workbench.screenshot('fleet-via-03b-proof-through-slurm');
    const perftest = (h: string) =>
      lab!
        .host(h)
        .calls()
        .filter((c) => c.cmd === 'ib_write_bw' && c.args.includes('-p'));
    assert.ok(perftest('gpu01').length > 0 && perftest('gpu02').length > 0, 'perftest ran on both nodes');
    assert.strictEqual(perftest(LOGIN).length, 0, 'the login node only relays');
    for (const n of ['gpu01', 'gpu02'])
      assert.deepStrictEqual(
        lab!
          .host(n)
          .processes()
          .filter((p) => /ib_write_bw|fakeperftest/.test(p.args)),
        [],
        `nothing left on ${n}`,
      );
    await setExpanded(row('Proof'), false);
    await setExpanded(node('gpu01'), false);
    await setExpanded(row(SLURM_FLEET), false);
  });

  it('with pdsh: a node whose sshd never answers is unreachable, and only that node', async function () {
    // Only this fleet's groups are counted below: the Slurm fleet's stay collapsed.
    await setExpanded(row(SLURM_FLEET), false);
    await addFleet(PDSH_FLEET, 'pdsh');
    const stopped = lab!.host('gpu02').listenerPid();
    const before = Object.fromEntries(NODES.map((n) => [n, probedOn(n)]));
    process.kill(stopped, 'SIGSTOP');
    try {
      await diagnose(PDSH_FLEET);
      await row(PDSH_FLEET)
        .locator('.label-description', { hasText: /unreachable/ })
        .waitFor({ timeout: 120_000 });
    } finally {
      process.kill(stopped, 'SIGCONT');
    }
    const text = await description(PDSH_FLEET);
    assertGrouping(text, 3);
    assert.match(text, /1 unreachable/, text);
    const groups = await groupsOf(PDSH_FLEET);
    assert.strictEqual(groups.length, 4, groups.join(' | '));
    await workbench.screenshot('fleet-via-04-pdsh-one-down');
    for (const n of ['gpu01', 'gpu03', 'gpu04']) assert.ok(probedOn(n) > before[n], `${n} was probed again`);
    assert.strictEqual(probedOn('gpu02'), before.gpu02, 'nothing ran on the stopped node');
    // The Slurm fleet keeps its own results.
    assert.doesNotMatch(await description(SLURM_FLEET), /unreachable/);
  });

  it('cancels a fleet diagnose through pdsh: nothing of the probe is left on the nodes, the hung ones say cancelled', async function () {
    const hung = ['gpu01', 'gpu03'];
    const hanging = () =>
      hung.flatMap((n) =>
        lab!
          .host(n)
          .processes()
          .filter((p) => /nvidia-smi|^sleep 600$/.test(p.args)),
      );
    for (const n of hung) lab!.host(n).setFault('nvidia-smi', 'hang', 600);
    try {
      await diagnose(PDSH_FLEET);
      await until(
        'the probe hangs on the nodes',
        () =>
          hung.every((n) =>
            lab!
              .host(n)
              .processes()
              .some((p) => p.args === 'sleep 600'),
          ),
        60_000,
      );
      // The other two end meanwhile, counted as they end although the run through pdsh goes on.
      await row(PDSH_FLEET).locator('.label-description', { hasText: 'diagnosing 2/4 hosts' }).waitFor({ timeout: 60_000 });
      const progress = workbench.tab.locator('.notifications-toasts .notification-list-item', {
        hasText: `Diagnosing fleet ${PDSH_FLEET}`,
      });
      await progress.first().hover();
      await progress.first().getByText('2/4 hosts').waitFor();
      await workbench.screenshot('fleet-via-05-diagnosing');
      await progress.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
      await until('nothing of the probe is left on the nodes', () => hanging().length === 0);
      await row(PDSH_FLEET)
        .locator('.label-description', { hasText: /^(?!diagnosing)/ })
        .waitFor();
      await until(
        'the login node has no pdsh or ssh left',
        () =>
          !lab!
            .host(LOGIN)
            .processes()
            .some((p) => /^(pdsh|ssh) /.test(p.args)),
      );
    } finally {
      for (const n of hung) lab!.host(n).clearFaults();
    }
    // The nodes that answered before the cancel are diagnosed; the two hung ones end as cancelled.
    const text = await description(PDSH_FLEET);
    assert.match(text, /2 cancelled/, text);
    assert.match(text, /1 host [^·]*rdma\.none/, text);
  });

  it('loads the peer-memory module on a group through the login node (ssh -J): one plan, one confirmation', async function () {
    await setExpanded(row(SLURM_FLEET), true);
    const group = row(/^1 host .*peermem\.not-loaded/);
    const sshdLog = () => fs.readFileSync(lab!.host('gpu03').sshdLogPath, 'utf8');
    const logBefore = sshdLog().length;
    await inline(group, LOAD_FIX);
    await dialog().waitFor({ timeout: 60_000 });
    const plan = await dialog().innerText();
    assert.match(plan, new RegExp(`Apply load-peermem on 1 host of ${SLURM_FLEET}\\?`));
    assert.match(plan, /Each host over SSH through login \(as ssh -J login <host>\)/);
    assert.match(plan, /sudo -n [\s\S]*modprobe nvidia_peermem/);
    assert.match(plan, /on 1 host: gpu03/);
    assert.deepEqual(modprobes('gpu03'), [], 'nothing ran before Apply');
    await workbench.screenshot('fleet-via-06-group-plan');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: `load-peermem on fleet ${SLURM_FLEET}: 1 applied` })
      .first()
      .waitFor({ timeout: 60_000 });
    // The fixed host is diagnosed again through Slurm, and its group is gone.
    await group.waitFor({ state: 'detached', timeout: 90_000 });
    assert.doesNotMatch(await description(SLURM_FLEET), /peermem\.not-loaded/);
    await workbench.screenshot('fleet-via-07-group-fixed');
    assert.deepEqual(modprobes('gpu03'), [[0, ['nvidia_peermem']]], 'modprobe ran once on gpu03, as root');
    for (const n of ['gpu01', 'gpu02', 'gpu04']) assert.deepEqual(modprobes(n), [], `nothing was loaded on ${n}`);
    // The fix's SSH session to gpu03 came from the login node's address: through the login node.
    const logins = sshdLog()
      .slice(logBefore)
      .split('\n')
      .filter((l) => l.startsWith('Accepted publickey for gdr '));
    assert.ok(logins.length > 0, 'the fix connected to gpu03');
    for (const l of logins) assert.match(l, new RegExp(`from ${escapeRegExp(lab!.host(LOGIN).address)} `));
  });
});
