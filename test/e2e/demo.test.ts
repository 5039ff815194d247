// The demo host as a new user meets it, in a real VS Code (code-server + chromium) with the packaged
// .vsix: opened, it is diagnosed at once and shows the peer-memory error; its inline quick fix shows
// the plan marked simulated, Apply changes the demo's state and the re-diagnosis shows it fixed;
// persist-peermem from the palette; Reset Demo Host brings the failure back. Then this machine (no
// GPU here) shows its one real error with the diagnostics it makes moot listed under it.
import * as assert from 'assert';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

/** The demo's row (its name; "replayed" follows the verdict) and its label where a host is named. */
const DEMO_ROW = 'demo-hgx-h100';
const DEMO = 'demo-hgx-h100 (replayed)';
const LOAD_FIX = 'Fix: Load Peer Memory Module (load-peermem)';

describe('the demo host in a real VS Code: failure, simulated quick fix, fixed, reset', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  const { sidebar, row, findingRow, setExpanded, inline, tooltip } = hostsTree(workbench);
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');
  const toast = (text: string) => workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();

  /** Clears the notifications, so the next toast looked for is a new one. */
  async function clearToasts(): Promise<void> {
    await workbench.runCommand('Notifications: Clear All Notifications');
  }

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
  });

  afterEach(screenshotFailures(workbench, 'demo-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
  });

  it('opens the demo and diagnoses it at once: the peer-memory error with its quick fix', async function () {
    await workbench.activityBarItem('GPUDirect RDMA').click();
    await sidebar().locator('.welcome-view-content .monaco-button', { hasText: 'Open Demo Host' }).first().click();
    await setExpanded(row(DEMO_ROW), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor();
    await setExpanded(row('Findings'), true);
    for (const id of ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent']) await findingRow(id).waitFor();
    const error = findingRow('peermem.not-loaded');
    assert.match(await error.innerText(), /peermem not loaded/);
    assert.ok((await error.locator('.codicon-error').count()) > 0, 'the finding shows as an error');
    await error.hover();
    await error.locator(`.actions .action-label[aria-label="${LOAD_FIX}"]`).waitFor();
    await workbench.screenshot('demo-01-peermem-error');
  });

  it('a click on a finding opens its details: the state first, a lens per evidence line opens the raw output at that line', async function () {
    await findingRow('peermem.not-loaded').click();
    const tab = workbench.tab.locator('.part.editor .tab.active', { hasText: `peermem not loaded — ${DEMO}` });
    await tab.waitFor();
    const editor = workbench.tab
      .locator('.part.editor .editor-instance')
      .filter({ has: workbench.tab.locator('.monaco-editor') })
      .first();
    const text = (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /^peermem not loaded — demo-hgx-h100 \(replayed\)/);
    for (const heading of ['What it means and what to do', 'Quick fix', 'Evidence', 'Source']) assert.ok(text.includes(heading), heading);
    assert.ok(text.indexOf('Evidence') < text.indexOf('Source'), 'the source comes last');
    await editor.locator('.codelens-decoration a', { hasText: 'Apply fix: load-peermem' }).waitFor();
    await workbench.screenshot('demo-01b-finding-details');
    await editor
      .locator('.codelens-decoration a', { hasText: /Open in lsmod, line \d+/ })
      .first()
      .click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: `lsmod — ${DEMO}` }).waitFor();
    // The quoted line is selected where the host printed it.
    await workbench.tab.locator('.part.editor .monaco-editor .selected-text').first().waitFor();
    await workbench.screenshot('demo-01c-evidence-in-raw-output');
    await workbench.runCommand('View: Close All Editors');
  });

  it("a finding's hover has command links: its quick fix opens the confirmation", async function () {
    await tooltip(findingRow('peermem.not-loaded'), 'Evidence:');
    const hover = workbench.tab.locator('.monaco-hover, .workbench-hover', { hasText: 'Evidence:' }).first();
    for (const link of ['Show details', 'Apply fix: load-peermem', 'Raw output: lsmod'])
      await hover.locator('a', { hasText: link }).first().waitFor();
    await workbench.screenshot('demo-01d-finding-hover-links');
    await hover.locator('a', { hasText: 'Apply fix: load-peermem' }).click();
    await dialog().waitFor();
    await workbench.tab.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await findingRow('peermem.not-loaded').waitFor();
  });

  it('load-peermem: one line says what runs, "simulated" once; Show Plan opens the exact plan; Apply fixes the demo', async function () {
    await inline(findingRow('peermem.not-loaded'), LOAD_FIX);
    await dialog().waitFor();
    // A dialog without detail text shows its message as the detail (.dialog-message-detail): read the container.
    const question = (await dialog().locator('.dialog-message-container').innerText()).trim();
    assert.strictEqual(question, `Run \`sudo modprobe nvidia_peermem\` on ${DEMO}? Simulated: nothing runs on any machine.`);
    const shown = await dialog().innerText();
    assert.strictEqual(shown.match(/simulated/gi)?.length, 1, `"simulated" once: ${shown}`);
    assert.doesNotMatch(shown, /PATH=|\/bin\/sh/, 'the wrapper is in the plan, not in the question');
    await workbench.screenshot('demo-02-simulated-plan');
    // The full plan, one click away, exact: the command as sent, wrapper and all.
    await dialog()
      .locator('.monaco-button', { hasText: /^Show Plan$/ })
      .click();
    await workbench.tab.locator('.part.editor .tab', { hasText: 'load-peermem.txt' }).first().waitFor();
    const planText = (await workbench.tab.locator('.part.editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(planText, /sudo -n \/bin\/sh -c 'PATH=/);
    assert.match(planText, /"\$M" nvidia_peermem \|\| exit \$\?/);
    assert.match(planText, /echo "gdr-doctor: nvidia_peermem is loaded"'/);
    await dialog().waitFor();
    await workbench.screenshot('demo-02b-full-plan');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await toast('load-peermem applied (simulated)').waitFor();
    await findingRow('peermem.not-loaded').waitFor({ state: 'detached' });
    await findingRow('peermem.not-persistent').waitFor();
    // Every GPU now uses GPUDirect RDMA; GPU1, whose own NIC is down, through GPU0 (PXN).
    await setExpanded(row('Findings'), false);
    await setExpanded(row('GPUs'), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /GDR yes via GPU0 \(PXN\)/ })
      .first()
      .waitFor();
    assert.strictEqual(
      await sidebar()
        .locator('.monaco-list-row', { hasText: /GDR no\b/ })
        .count(),
      0,
    );
    await workbench.screenshot('demo-03-fixed');
    await setExpanded(row('GPUs'), false);
    await setExpanded(row('Findings'), true);
  });

  it('the ACS finding, grown by a PXN path after the fix, says why in its details: the paths NCCL now uses, PXN among them', async function () {
    await findingRow('pcie.acs-unread').click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: `— ${DEMO}` }).waitFor();
    const editor = workbench.tab
      .locator('.part.editor .editor-instance')
      .filter({ has: workbench.tab.locator('.monaco-editor') })
      .first();
    // The editor wraps the paragraph: its visual lines are joined back with single spaces.
    const text = (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ').replace(/\s+/g, ' ');
    assert.match(text, /ACS of 14 bridges between GPUs and NICs could not be read/);
    assert.match(text, /below a PCIe switch \(8 paths; PXN: GPU1 through GPU0\):/);
    assert.match(text, /turning it on can add PXN paths to this list/);
    await workbench.screenshot('demo-03b-acs-grown-why');
    await workbench.runCommand('View: Close All Editors');
  });

  it('persist-peermem from the palette: the new modules-load.d file in the plan, then only the port finding left', async function () {
    await clearToasts();
    await workbench.runCommand('GPUDirect RDMA: Apply Quick Fix…');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Apply a quick fix on which host?' }).waitFor();
    await workbench.pick(DEMO);
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: `Which quick fix on ${DEMO}?` }).waitFor();
    await workbench.pick('persist-peermem');
    await dialog().waitFor();
    // The module is loaded by now (load-peermem above), so the plan only adds the line: no "load …, then".
    assert.match(await dialog().innerText(), /\): add the line "nvidia-peermem" to \/etc\/modules-load\.d\/nvidia-peermem\.conf\?/);
    await dialog()
      .locator('.monaco-button', { hasText: /^Show Plan$/ })
      .click();
    await workbench.tab.locator('.part.editor .tab', { hasText: 'persist-peermem.txt' }).first().waitFor();
    const plan = (await workbench.tab.locator('.part.editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(plan, /\/etc\/modules-load\.d\/nvidia-peermem\.conf \(new\)/);
    assert.match(plan, /\+nvidia-peermem/);
    await dialog().waitFor();
    await workbench.screenshot('demo-04-persist-plan');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await toast('persist-peermem applied (simulated)').waitFor();
    await findingRow('peermem.not-persistent').waitFor({ state: 'detached' });
    await findingRow('rdma.port-down').waitFor();
    await workbench.screenshot('demo-05-persisted');
  });

  it('Reset Demo Host restores the recordings: the peer-memory error is back', async function () {
    await clearToasts();
    await row(DEMO_ROW).click({ button: 'right' });
    const item = workbench.tab.locator('.context-view .action-item', { hasText: 'Reset Demo Host' }).first();
    await item.hover();
    // A menu ignores a click that comes right after it opened (the right-button release).
    await workbench.tab.waitForTimeout(500);
    await item.click();
    await toast('is reset').waitFor();
    await findingRow('peermem.not-loaded').waitFor();
    await findingRow('peermem.not-persistent').waitFor();
    await workbench.screenshot('demo-06-reset');
    await setExpanded(row('Findings'), false);
    await setExpanded(row(DEMO_ROW), false);
  });

  it('this machine (no GPU): one error at the top, the diagnostics it makes moot under it', async function () {
    await workbench.runCommand('GPUDirect RDMA: Diagnose This Machine');
    await setExpanded(row('This machine'), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor({ timeout: 60_000 });
    const findings = sidebar()
      .locator('.monaco-list-row', { has: workbench.tab.locator('.label-name', { hasText: /^Findings$/ }) })
      .first();
    await setExpanded(findings, true);
    const cause = findingRow('gpu.none');
    assert.match(await cause.innerText(), /following/);
    await setExpanded(cause, true);
    // Without the NVIDIA driver /proc/driver/nvidia/version does not exist: a knock-on of gpu.none.
    await sidebar().locator('.monaco-list-row', { hasText: 'Could not read `cat /proc/driver/nvidia/version`' }).first().waitFor();
    await workbench.screenshot('demo-07-knock-on-findings');
  });
});
