// A fleet as a user drives it, in a real VS Code (code-server + chromium) with the packaged .vsix,
// against lab hosts with their own addresses (network namespaces): Add Fleet… with the host list
// checked as it is typed, Diagnose Fleet (progress, status bar), the fleet's grouping in its
// description and as group rows (outliers first), a group's hosts expanding like any host, and one
// quick fix applied to a whole group through one plan and one confirmation. What ran is read from the
// lab hosts' call logs, not only from the UI.
import * as assert from 'assert';
import * as fs from 'fs';
import { assertLabCanRun, cleanupStale, Lab, LabHost, startLab } from '../lab/lab';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

// Our own lab records and network: other suites and helpers run labs of their own.
const RECORDS_PATH = '/tmp/gdrlab-records-e2e-fleet.json';
const NETWORK = { bridge: 'gdrbr9', subnet: 9 };
const FLEET = 'lab-fleet';
const LOAD_FIX = 'Fix: Load Peer Memory Module (load-peermem)';
const HEALTHY = ['fleet-01', 'fleet-02', 'fleet-03', 'fleet-04', 'fleet-05'];
const NEEDS_PEERMEM = ['fleet-06', 'fleet-07'];
const NO_NIC = 'fleet-08';
/** Its sshd is stopped (SIGSTOP): TCP accepts, no banner ever comes. */
const STOPPED = 'fleet-09';
const AUDIT_LOG = '/tmp/gdr-doctor-e2e-fleet.audit.log';

describe('Fleets in a real VS Code (code-server + chromium + SSH lab with own-address hosts)', function () {
  this.timeout(180_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;

  const { sidebar, row, setExpanded, inline } = hostsTree(workbench);
  const quickInput = () => workbench.tab.locator('.quick-input-widget .quick-input-box input');
  const quickMessage = () => workbench.tab.locator('.quick-input-widget .quick-input-message');
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');
  const fleetDescription = () => row(FLEET).locator('.label-description').innerText();
  const modprobes = (h: LabHost) =>
    h
      .calls()
      .filter((c) => c.cmd === 'modprobe')
      .map((c) => [c.uid, c.args]);

  /** The labels of the fleet's group rows, top to bottom (rows between the fleet and the next root). */
  async function groupLabels(): Promise<string[]> {
    const rows = sidebar().locator('.monaco-list-row[aria-level="2"]');
    return (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim());
  }

  before(async function () {
    this.timeout(300_000);
    assertLabCanRun();
    await cleanupStale(RECORDS_PATH);
    // code-server passes its environment to the extension host: the audit log lands in /tmp.
    fs.rmSync(AUDIT_LOG, { force: true });
    process.env.GDR_DOCTOR_AUDIT_LOG = AUDIT_LOG;
    await workbench.start();
    const spec = (name: string, profile: string) => ({ name, profile, netns: true });
    lab = await startLab({
      hosts: [
        ...HEALTHY.map((h) => spec(h, 'healthy')),
        ...NEEDS_PEERMEM.map((h) => spec(h, 'needs-peermem')),
        spec(NO_NIC, 'no-nic'),
        spec(STOPPED, 'healthy'),
      ],
      recordsPath: RECORDS_PATH,
      network: NETWORK,
    });
    process.kill(lab.host(STOPPED).listenerPid(), 'SIGSTOP');
    await workbench.activityBarItem('GPUDirect RDMA').click();
    // Machine-scoped settings live in code-server's Machine settings. A short connect timeout: the
    // stopped host is given up on after it, whatever else runs. Three hosts at a time: this runs on
    // 2 CPUs beside code-server and Chromium, and nine probes at once (25 commands each) push the
    // hosts' commands past their own 10 s limits, which would change the findings being grouped.
    workbench.updateSettings(
      { 'gdrDoctor.sshConfigFile': lab.sshConfigPath, 'gdrDoctor.connectTimeoutSeconds': 8, 'gdrDoctor.maxConcurrentHosts': 3 },
      'machine',
    );
    await row(HEALTHY[0]).waitFor();
  });

  afterEach(screenshotFailures(workbench, 'fleet-'));

  after(async function () {
    this.timeout(60_000);
    delete process.env.GDR_DOCTOR_AUDIT_LOG;
    await workbench.dispose();
    if (lab) {
      try {
        process.kill(lab.host(STOPPED).listenerPid(), 'SIGCONT');
      } catch {
        // Already gone.
      }
      await lab.stop();
    }
  });

  it('adds a fleet with Add Fleet…: the host list is checked as it is typed, with the column of a mistake', async function () {
    await workbench.runCommand('GPUDirect RDMA: Add Fleet…');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Add Fleet: name' }).waitFor();
    await quickInput().fill(FLEET);
    await quickInput().press('Enter');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Add Fleet: hosts' }).waitFor();
    await quickInput().fill('fleet-[01-09');
    await quickMessage()
      .filter({ hasText: /Column \d+/ })
      .waitFor();
    await workbench.screenshot('fleet-01-host-list-error');
    await quickInput().fill('fleet-[01-09]');
    await quickMessage().filter({ hasText: '9 hosts: fleet-[01-09]' }).waitFor();
    await workbench.screenshot('fleet-02-host-list-ok');
    await quickInput().press('Enter');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Add Fleet: login node' }).waitFor();
    await quickInput().press('Enter');
    await row(FLEET).waitFor();
    assert.strictEqual((await fleetDescription()).trim(), 'not diagnosed');
    assert.deepStrictEqual(
      lab!.hosts.flatMap((h) => h.calls()),
      [],
      'adding a fleet connects nowhere',
    );
    await workbench.screenshot('fleet-03-fleet-added');
  });

  it('diagnoses the fleet in one action and shows the grouping, outliers first', async function () {
    await inline(row(FLEET), 'Diagnose Fleet');
    await workbench.tab.locator('.part.statusbar', { hasText: `GPUDirect RDMA: diagnosing fleet ${FLEET}` }).waitFor();
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: /\d+\/9 hosts/ })
      .first()
      .waitFor();
    await workbench.screenshot('fleet-04-diagnosing');
    await row(FLEET).locator('.label-description', { hasText: 'unreachable' }).waitFor({ timeout: 90_000 });
    const description = await fleetDescription();
    assert.match(description, /5 hosts /, description);
    assert.match(description, /2 hosts [^·]*peermem\.not-loaded/, description);
    assert.match(description, /1 host [^·]*rdma\.none/, description);
    assert.match(description, /1 unreachable/, description);
    await setExpanded(row(FLEET), true);
    const groups = await groupLabels();
    assert.strictEqual(groups.length, 4, groups.join(' | '));
    assert.match(groups[groups.length - 1], /^5 hosts/, 'the largest group (the norm) comes last');
    assert.ok(
      groups.some((g) => /^2 hosts .*peermem\.not-loaded/.test(g)),
      groups.join(' | '),
    );
    await workbench.screenshot('fleet-05-grouping');
    // Every reachable host was probed; the stopped one never got a banner, so nothing ran there.
    for (const h of [...HEALTHY, ...NEEDS_PEERMEM, NO_NIC])
      assert.ok(
        lab!
          .host(h)
          .calls()
          .some((c) => c.cmd === 'nvidia-smi'),
        `${h} was probed`,
      );
    assert.deepStrictEqual(lab!.host(STOPPED).calls(), []);
  });

  it('expands a group into its hosts, and a host into the same rows as any host', async function () {
    const group = row(/^2 hosts .*peermem\.not-loaded/);
    await setExpanded(group, true);
    for (const h of NEEDS_PEERMEM) await row(h).waitFor();
    await setExpanded(row(NEEDS_PEERMEM[0]), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor();
    await setExpanded(row('Findings'), true);
    await sidebar().locator('.monaco-list-row[aria-label$=", peermem.not-loaded"]').first().waitFor();
    await workbench.screenshot('fleet-06-group-expanded');
    await setExpanded(row('Findings'), false);
    await setExpanded(row(NEEDS_PEERMEM[0]), false);
  });

  it('loads the peer-memory module on the whole group: one plan, one confirmation, the group gone', async function () {
    const group = row(/^2 hosts .*peermem\.not-loaded/);
    await inline(group, LOAD_FIX);
    await dialog().waitFor({ timeout: 60_000 });
    const plan = await dialog().innerText();
    assert.match(plan, new RegExp(`Apply load-peermem on 2 hosts of ${FLEET}\\?`));
    assert.match(plan, /on 2 hosts: fleet-\[06-07\]/);
    assert.match(plan, /sudo -n [\s\S]*modprobe nvidia_peermem/);
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply, stop on first failure$/ })
      .waitFor();
    for (const h of NEEDS_PEERMEM) assert.deepStrictEqual(modprobes(lab!.host(h)), [], `nothing ran on ${h} before Apply`);
    await workbench.screenshot('fleet-07-group-plan');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: `load-peermem on fleet ${FLEET}: 2 applied` })
      .first()
      .waitFor({ timeout: 60_000 });
    await row(/^2 hosts .*peermem\.not-loaded/).waitFor({ state: 'detached', timeout: 60_000 });
    assert.doesNotMatch(await fleetDescription(), /peermem\.not-loaded/);
    await workbench.screenshot('fleet-08-group-fixed');
    for (const h of NEEDS_PEERMEM)
      assert.deepStrictEqual(modprobes(lab!.host(h)), [[0, ['nvidia_peermem']]], `modprobe ran once on ${h}, as root`);
    for (const h of [...HEALTHY, NO_NIC]) assert.deepStrictEqual(modprobes(lab!.host(h)), [], `nothing was loaded on ${h}`);
    const audit = fs
      .readFileSync(AUDIT_LOG, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepStrictEqual(
      audit.map((a) => [a.host, a.fix, a.status]).sort(),
      NEEDS_PEERMEM.map((h) => [h, 'load-peermem', 'applied']),
    );
  });
});
