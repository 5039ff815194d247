// The first minutes of a new user, in a real VS Code (code-server + chromium) with the packaged .vsix
// and no network: the welcome view and the Getting Started walkthrough (steps completing as the user
// does them), the demo host's verdict at a glance (description, icon, GPU rows, status bar), commands
// only where they work, raw outputs titled by command and host in aligned columns, Analyze Topology
// opening beside its editor, Add Host checked as it is typed, hosts and a fleet that cannot be reached
// (the same notification, the badge), and the settings under User in this remote window.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { DEMO_HOST_NAME, DEMO_HOST_SHORT_NAME } from '../../src/core/transport/demo';
import { REPO_ROOT, RUN_DIR } from './environment';
import { hostsTree, visibleText } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';
import { openWalkthrough, walkthroughStep } from './walkthrough';
import { rawManifest } from '../support/manifest';

/** How many of the extension's settings a remote window's User tab lists (the scopes it shows there). */
function userScopedSettings(): number {
  const props: Record<string, { scope?: string }> = rawManifest().contributes.configuration.properties;
  return Object.values(props).filter((p) => ['application', 'window', 'resource', 'language-overridable'].includes(p.scope ?? 'window'))
    .length;
}

const CONTAINER_TITLE = 'GPUDirect RDMA';
/** The demo's label where a host is named, and its row (the name; "replayed" follows the verdict). */
const DEMO = DEMO_HOST_NAME;
const DEMO_ROW = DEMO_HOST_SHORT_NAME;
const TOPO_FILE = 'h200.topo.txt';
const ADDED = 'root@gpu-new.invalid:2222';
const FLEET = 'nowhere';

describe('First steps in a real VS Code (code-server + chromium)', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  const { sidebar, row, findingRow, setExpanded, inline } = hostsTree(workbench);
  const description = (r: Locator) => r.locator('.label-description').innerText();
  /** The host's verdict: its row's description less the demo's " · replayed". */
  const verdictOf = async (r: Locator) => (await description(r)).replace(/ · replayed$/, '');
  const toast = (text: string | RegExp) =>
    workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();
  /** The codicon a row shows (`codicon-error`, …). */
  const iconOf = async (r: Locator) =>
    /codicon-([\w-]+)/.exec((await r.locator('.custom-view-tree-node-item-icon').getAttribute('class')) ?? '')?.[1];
  const statusBarItem = (text: string | RegExp) => workbench.tab.locator('.part.statusbar .statusbar-item', { hasText: text }).first();
  const badge = () => workbench.activityBarBadge(CONTAINER_TITLE);

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    const workspace = path.join(RUN_DIR, 'workspace');
    fs.copyFileSync(path.join(REPO_ROOT, 'test/fixtures/topo/h200-hgx-8gpu-12nic-tabs.txt'), path.join(workspace, TOPO_FILE));
    // An SSH config of our own (empty): "Open SSH Config" opens it, and no host of the machine's shows.
    const sshConfig = path.join(RUN_DIR, 'ssh_config');
    fs.writeFileSync(sshConfig, '# gdr-doctor e2e: no hosts\n');
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': sshConfig }, 'machine');
  });

  afterEach(screenshotFailures(workbench, 'first-steps-'));

  after(async function () {
    this.timeout(30_000);
    await workbench.dispose();
  });

  it('the welcome view leads with one button, Open Demo Host, the rest as links, and links the walkthrough', async function () {
    await workbench.activityBarItem(CONTAINER_TITLE).click();
    const welcome = sidebar().locator('.welcome-view-content');
    await welcome.filter({ hasText: 'No hosts yet.' }).waitFor();
    // One button, the demo: VS Code draws every button of an extension's welcome view as primary.
    const labels = (await welcome.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
    assert.deepStrictEqual(labels, ['Open Demo Host']);
    for (const link of ['Add Host…', 'Add Fleet…', 'Diagnose This Machine']) await welcome.locator('a', { hasText: link }).waitFor();
    await welcome.locator('a', { hasText: 'Getting Started walkthrough' }).waitFor();
    await workbench.screenshot('first-steps-01-welcome');
  });

  it('the palette offers only what works: no Prove without a host, no log or topology command for a Python file', async function () {
    assert.ok(await paletteOffers('GPUDirect RDMA: Open Demo Host'));
    for (const absent of ['Prove GPUDirect RDMA', 'Analyze NCCL Log'])
      assert.ok(!(await paletteOffers(`GPUDirect RDMA: ${absent}`)), `${absent} offered with no host and no editor`);
    fs.writeFileSync(path.join(RUN_DIR, 'workspace', 'train.py'), 'import torch\nprint(torch.cuda.device_count())\n');
    await workbench.openFile('train.py');
    for (const absent of ['Analyze NCCL Log', 'Compare NCCL Log with Host…', 'Analyze Topology in Editor'])
      assert.ok(!(await paletteOffers(`GPUDirect RDMA: ${absent}`)), `${absent} offered with a Python file open`);
    await workbench.screenshot('first-steps-01b-palette-python');
    await workbench.runCommand('View: Close All Editors');
  });

  it("the walkthrough's Diagnose Fleet with no fleet offers Add Fleet…", async function () {
    // Not in the palette without a fleet: the walkthrough's step still links it.
    assert.ok(!(await paletteOffers('GPUDirect RDMA: Diagnose Fleet')));
    await openWalkthrough(workbench);
    await walkthroughStep(workbench, 'diagnoseFleet').click();
    await workbench.tab
      .locator('.step-description-container .monaco-button', { hasText: /^Diagnose Fleet$/ })
      .first()
      .click();
    const offer = toast('No fleet yet');
    await offer.waitFor();
    await offer.hover();
    await offer.locator('.monaco-button', { hasText: 'Add Fleet…' }).click();
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Add Fleet' }).first().waitFor();
    await workbench.screenshot('first-steps-01c-diagnose-fleet-offers-add');
    await workbench.tab.keyboard.press('Escape');
    await workbench.runCommand('View: Close All Editors');
  });

  it('the walkthrough opens from the welcome view, and opening the demo completes its first step', async function () {
    await sidebar().locator('.welcome-view-content a', { hasText: 'Getting Started walkthrough' }).click();
    await workbench.tab.locator('.gettingStartedContainer', { hasText: 'Get Started with GPUDirect RDMA Doctor' }).waitFor();
    assert.strictEqual(await walkthroughStep(workbench, 'openDemo').getAttribute('aria-checked'), 'false');
    await workbench.screenshot('first-steps-02-walkthrough');
    await walkthroughStep(workbench, 'openDemo').click();
    await workbench.tab.locator('.step-description-container .monaco-button', { hasText: 'Open Demo Host' }).first().click();
    await row(DEMO_ROW).waitFor();
    await walkthroughStep(workbench, 'openDemo').and(workbench.tab.locator('[aria-checked="true"]')).waitFor();
    await workbench.screenshot('first-steps-03-walkthrough-demo-opened');
  });

  it('the demo host says its verdict: description and icon by verdict, neutral status row, GPU verdicts first', async function () {
    const demo = row(DEMO_ROW);
    await setExpanded(demo, true);
    const status = sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first();
    // Opening the demo diagnoses it (the step before): its row may still say "Not diagnosed yet" for a
    // moment. Diagnose is clicked only when that diagnosis never came, not beside it.
    try {
      await status.waitFor({ timeout: 30_000 });
    } catch {
      await inline(demo, 'Diagnose');
      await status.waitFor({ timeout: 60_000 });
    }
    // Reaching a host says nothing about GPUDirect RDMA: the status row is neutral.
    assert.strictEqual(await iconOf(status), 'history');
    const verdict = await verdictOf(demo);
    assert.notStrictEqual(verdict, 'demo, replayed');
    const icon = await iconOf(demo);
    assert.ok(icon === 'pass' || icon === 'warning' || icon === 'error', `host icon ${icon}`);
    if (/^GDR \d+\/\d+ GPUs?( · \d+ warnings?)?$/.test(verdict)) assert.notStrictEqual(icon, 'error', verdict);
    else assert.strictEqual(icon, 'error', `"${verdict}" names an error`);
    // At the default sidebar width every row shows its state whole, within its first 25 characters (a
    // selected or hovered row gives room to its inline actions: another row is selected, the mouse away).
    await status.click();
    await workbench.tab.mouse.move(0, 0);
    const hostShown = await visibleText(demo);
    const first25 = `${DEMO_ROW} ${verdict}`.slice(0, 25);
    assert.ok(hostShown.startsWith(first25), `the host row shows "${hostShown}", not "${first25}"`);
    await setExpanded(row('Findings'), true);
    await workbench.tab.mouse.move(0, 0);
    for (const id of ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent', 'pcie.acs-unread']) {
      const label = await findingRow(id).locator('.label-name').innerText();
      assert.ok(label.length <= 25, `${id}: "${label}" is longer than 25 characters`);
      assert.ok((await visibleText(findingRow(id))).startsWith(label), `${id}: "${label}" is cut off`);
    }
    assert.strictEqual(await findingRow('peermem.not-loaded').locator('.label-name').innerText(), 'peermem not loaded');
    await setExpanded(row('Findings'), false);
    await setExpanded(row('GPUs'), true);
    await workbench.tab.mouse.move(0, 0);
    for (let i = 0; i < 8; i++) {
      const shown = await visibleText(row(`GPU${i}`));
      assert.match(shown, /^GPU\d GDR (yes|no)/, `GPU${i} shows "${shown}"`);
      assert.ok(shown.slice(0, 25).includes('GDR'), `GPU${i}: the verdict within 25 characters`);
    }
    assert.match(await description(row('GPU0')), /^GDR (yes|no)/);
    await workbench.screenshot('first-steps-04-demo-verdict');
    await setExpanded(row('GPUs'), false);
  });

  it('the status bar names the selected host and its verdict', async function () {
    await row(DEMO_ROW).click();
    const verdict = await verdictOf(row(DEMO_ROW));
    await statusBarItem(`${DEMO}: ${verdict}`).waitFor();
    await workbench.screenshot('first-steps-05-status-bar');
  });

  it('selecting a finding and showing the topology complete their walkthrough steps', async function () {
    await setExpanded(row(DEMO_ROW), true);
    await setExpanded(row('Findings'), true);
    await sidebar().locator('.monaco-list-row[aria-level="3"]').first().click();
    await inline(row(DEMO_ROW), 'Show Topology');
    await workbench.tab.locator('.part.editor .tab', { hasText: `Topology: ${DEMO}` }).waitFor();
    await setExpanded(row('Findings'), false);
    await openWalkthrough(workbench);
    for (const step of ['openDemo', 'readFinding', 'showTopology'])
      await walkthroughStep(workbench, step).and(workbench.tab.locator('[aria-checked="true"]')).waitFor();
    await workbench.screenshot('first-steps-06-walkthrough-three-done');
    await workbench.runCommand('View: Close All Editors');
  });

  it('the demo offers no Disconnect: not in its menu, not in the palette', async function () {
    await row(DEMO_ROW).click({ button: 'right' });
    const menu = workbench.tab.locator('.context-view .monaco-menu');
    await menu.locator('.action-label', { hasText: 'Remove Host' }).first().waitFor();
    const items = (await menu.locator('.action-label').allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
    await workbench.screenshot('first-steps-07-demo-menu');
    assert.ok(!items.includes('Disconnect'), items.join(', '));
    // perftest cannot run on recordings: no Prove on the demo, in its menu or the palette.
    assert.ok(!items.includes('Prove GPUDirect RDMA'), items.join(', '));
    assert.ok(!items.includes('Reload Host List') && !items.includes('Refresh'), items.join(', '));
    assert.ok(items.includes('Show Topology') && items.includes('Copy Report (Markdown)'), items.join(', '));
    // Its quick fixes are simulated on its own state, and it can be put back as recorded.
    assert.ok(items.includes('Reset Demo Host'), items.join(', '));
    await workbench.tab.keyboard.press('Escape');
    assert.deepStrictEqual(await paletteOffers('GPUDirect RDMA: Disconnect'), false);
    assert.deepStrictEqual(await paletteOffers('GPUDirect RDMA: Prove GPUDirect RDMA'), false);
    assert.deepStrictEqual(await paletteOffers('GPUDirect RDMA: Show Topology'), true);
  });

  it('a raw output is titled with its command and host, its columns on terminal tab stops', async function () {
    await setExpanded(row(DEMO_ROW), true);
    await setExpanded(row('Raw outputs'), true);
    await row('nvidia-smi topo -m').click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: `nvidia-smi topo -m — ${DEMO}` }).waitFor();
    await workbench.tab.locator('.part.statusbar [id="status.editor.indentation"]', { hasText: 'Tab Size: 8' }).waitFor();
    // Each GPU/NIC column name of the header stands above the first row's value of that column. Monaco
    // draws a tab as spaces up to the next stop, so a line's text gives each token's column on screen.
    const lines = workbench.tab.locator('.part.editor .editor-group-container.active .monaco-editor .view-lines .view-line');
    const columns = (line: Locator) =>
      line.evaluate((el) =>
        [...(el.textContent ?? '').replace(/\u00a0/g, ' ').matchAll(/\S+/g)].map((m) => ({ text: m[0], column: m.index ?? 0 })),
      );
    const header = (await columns(lines.filter({ hasText: /^\s+GPU0\s+GPU1/ }).first())).filter((t) => /^(GPU|NIC)\d+$/.test(t.text));
    const gpu0 = await columns(lines.filter({ hasText: /^GPU0\s/ }).first());
    assert.ok(header.length >= 8, JSON.stringify(header));
    // The row's own name comes first; " X " (the GPU itself) starts one space into its cell.
    header.forEach((h, i) =>
      assert.ok(
        Math.abs(h.column - gpu0[i + 1].column) <= 1,
        `${h.text} at column ${h.column}, the row's "${gpu0[i + 1].text}" at ${gpu0[i + 1].column}`,
      ),
    );
    await workbench.screenshot('first-steps-08-raw-output');
    await setExpanded(row('Raw outputs'), false);
    await setExpanded(row(DEMO_ROW), false);
    await workbench.runCommand('View: Close All Editors');
  });

  it('Analyze Topology in Editor opens beside the file, from its title bar; the context menu offers it too', async function () {
    await workbench.openFile(TOPO_FILE);
    const source = workbench.tab.locator('.part.editor .tab', { hasText: TOPO_FILE });
    await workbench.tab
      .locator('.part.editor .monaco-editor .view-line', { hasText: /^GPU3\s/ })
      .first()
      .click({ button: 'right' });
    await workbench.tab.locator('.context-view .action-label', { hasText: 'Analyze Topology in Editor' }).first().waitFor();
    await workbench.tab.keyboard.press('Escape');
    await workbench.tab.locator('.part.editor .editor-actions .action-label[aria-label^="Analyze Topology in Editor"]').first().click();
    await workbench.tab.locator('.part.editor .tab', { hasText: `Topology: ${TOPO_FILE}` }).waitFor();
    assert.strictEqual(
      await workbench.tab.locator('.part.editor .editor-group-container').count(),
      2,
      'the panel opened in a second group',
    );
    assert.ok(await source.first().isVisible(), 'the source tab stays open');
    const sourceGroupActive = await workbench.tab
      .locator('.part.editor .editor-group-container')
      .first()
      .locator('.tab.active', { hasText: TOPO_FILE })
      .count();
    assert.strictEqual(sourceGroupActive, 1, 'the file is still the shown tab of its group');
    await workbench.screenshot('first-steps-09-analyze-beside');
    await workbench.runCommand('View: Close All Editor Groups');
  });

  it('Add Host checks what is typed, then shows the host and offers Diagnose Now; a failure offers Retry and Open SSH Config', async function () {
    await workbench.runCommand('GPUDirect RDMA: Add Host…');
    const input = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    const message = workbench.tab.locator('.quick-input-widget .quick-input-message');
    await input.fill('gpu01:99999');
    await message.filter({ hasText: 'port out of range' }).waitFor();
    await workbench.screenshot('first-steps-10-add-host-port-out-of-range');
    // A leading "-" is an option to ssh (`-oProxyCommand=…`): refused as ssh refuses it, and Enter adds nothing.
    await input.fill('-oProxyCommand=x');
    await message.filter({ hasText: 'A host or user name cannot start with "-"' }).waitFor();
    await input.press('Enter');
    assert.ok(await input.isVisible(), 'Enter on a refused name keeps the box open');
    await workbench.screenshot('first-steps-10b-add-host-option-refused');
    await input.fill('user@:22');
    await message.filter({ hasText: '"user@:22" names no host' }).waitFor();
    await input.fill(ADDED);
    await message.filter({ hasText: 'Reads as host gpu-new.invalid, port 2222, user root' }).waitFor();
    await workbench.screenshot('first-steps-11-add-host-reads-as');
    await input.press('Enter');
    const added = row(ADDED);
    // Revealed and selected in the view.
    await added.and(workbench.tab.locator('[aria-selected="true"]')).waitFor();
    const offer = toast(`Added ${ADDED}.`);
    await offer.locator('.monaco-button', { hasText: 'Diagnose Now' }).click();
    const failed = toast(/Diagnose failed: .*gpu-new\.invalid/);
    await failed.waitFor();
    for (const action of ['Retry', 'Open SSH Config', 'Show Log']) await failed.locator('.monaco-button', { hasText: action }).waitFor();
    await added.locator('.label-description', { hasText: /^unreachable/ }).waitFor();
    assert.strictEqual(await iconOf(added), 'debug-disconnect');
    await badge().waitFor();
    await workbench.screenshot('first-steps-12-add-host-failed');
    await failed.locator('.monaco-button', { hasText: 'Open SSH Config' }).click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: 'ssh_config' }).waitFor();
    await workbench.runCommand('View: Close All Editors');
  });

  it('a fleet where every host fails says so, as one host does; its icon and the badge say error', async function () {
    const before = Number(await badge().innerText());
    // Written where a user of this remote window edits it: the remote's settings (code-server's Machine).
    workbench.updateSettings({ 'gdrDoctor.fleets': [{ name: FLEET, hosts: 'gpu-none[1-2].invalid' }] }, 'machine');
    await inline(row(FLEET), 'Diagnose Fleet');
    const failed = toast(`Diagnose failed for all 2 hosts of fleet ${FLEET}.`);
    await failed.waitFor({ timeout: 60_000 });
    for (const action of ['Retry', 'Open SSH Config', 'Show Log']) await failed.locator('.monaco-button', { hasText: action }).waitFor();
    // The notification may come before the tree redraws the fleet's row.
    for (const deadline = Date.now() + 30_000; (await iconOf(row(FLEET))) !== 'error';) {
      assert.ok(Date.now() < deadline, `the fleet row's icon stayed ${await iconOf(row(FLEET))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await badge()
      .filter({ hasText: new RegExp(`^${before + 2}$`) })
      .waitFor();
    await workbench.screenshot('first-steps-13-fleet-all-failed');
  });

  it('the settings show under User in this remote window, the SSH config path under Remote, titled GPUDirect RDMA', async function () {
    await workbench.runCommand('Preferences: Open User Settings');
    const editor = workbench.tab.locator('.settings-editor');
    await editor.waitFor();
    const search = async (text: string) => {
      await editor.locator('.settings-header .suggest-input-container').click();
      await workbench.tab.keyboard.press('Control+A');
      await workbench.tab.keyboard.press('Backspace');
      if (text !== '') await workbench.tab.keyboard.type(text);
    };
    const labels = () => editor.locator('.setting-item-contents .setting-item-label').allInnerTexts();
    await search('@ext:gdr-doctor.gdr-doctor');
    // Every setting but the machine-scoped ones (the SSH config path, Kubernetes' paths): the table of
    // contents counts what the User tab lists.
    await editor.locator('.settings-toc-container .monaco-list-row', { hasText: `GPUDirect RDMA (${userScopedSettings()})` }).waitFor();
    const user = await labels();
    assert.ok(user.length > 0 && !user.some((l) => /Ssh Config File/.test(l)), user.join(' | '));
    await workbench.screenshot('first-steps-14-settings-user');
    // The SSH config path is a path on the machine the extension runs on: under Remote.
    await editor.locator('.settings-tabs-widget .action-label', { hasText: /^Remote/ }).click();
    await editor.locator('.setting-item-contents .setting-item-label', { hasText: 'Ssh Config File' }).first().waitFor();
    // Browsed rather than searched, the group is titled GPUDirect RDMA and its settings by their own names.
    await editor.locator('.settings-tabs-widget .action-label', { hasText: /^User/ }).click();
    await search('');
    // The editor leaves search mode a moment after the box is cleared, and redraws its table of contents.
    await workbench.tab.locator('.settings-editor:not(.search-mode)').waitFor();
    await workbench.tab.waitForTimeout(1_000);
    const group = editor.locator('.settings-toc-container .monaco-list-row', { hasText: /^GPUDirect RDMA/ }).first();
    const extensions = editor.locator('.settings-toc-container .monaco-list-row', { hasText: /^Extensions/ }).first();
    for (let i = 0; i < 5 && !(await group.isVisible()); i++) {
      if ((await extensions.getAttribute('aria-expanded')) !== 'true') await extensions.click();
      await workbench.tab.waitForTimeout(500);
    }
    await group.click();
    // Browsing shows each setting by its own name: no "Gdr Doctor:" before it (a search adds it).
    const hosts = editor
      .locator('.setting-item-contents', { has: workbench.tab.locator('.setting-item-label', { hasText: /^Hosts$/ }) })
      .first();
    await hosts.locator('.setting-item-category', { hasText: /^\s*$/ }).waitFor({ state: 'attached' });
    await workbench.screenshot('first-steps-15-settings-group');
    await workbench.tab.keyboard.press('Escape');
    await workbench.runCommand('View: Close All Editors');
  });

  it("the walkthrough completes: every step done once the demo's quick fix is applied", async function () {
    await workbench.tab.keyboard.press('Escape');
    await openWalkthrough(workbench);
    for (const step of ['openDemo', 'readFinding', 'showTopology', 'addHost', 'diagnoseFleet']) {
      await walkthroughStep(workbench, step).and(workbench.tab.locator('[aria-checked="true"]')).waitFor();
    }
    assert.strictEqual(await walkthroughStep(workbench, 'applyFix').getAttribute('aria-checked'), 'false');
    await setExpanded(row(DEMO_ROW), true);
    await setExpanded(row('Findings'), true);
    const finding = findingRow('peermem.not-loaded');
    await inline(finding, 'Fix: Load Peer Memory Module (load-peermem)');
    const dialog = workbench.tab.locator('.monaco-dialog-box');
    await dialog.locator('.monaco-button', { hasText: /^Apply$/ }).click();
    await finding.waitFor({ state: 'detached' });
    await walkthroughStep(workbench, 'applyFix').and(workbench.tab.locator('[aria-checked="true"]')).waitFor();
    await workbench.screenshot('first-steps-16-walkthrough-done');
  });

  /** Whether the command palette offers a command with exactly this title. */
  async function paletteOffers(title: string): Promise<boolean> {
    await workbench.tab.keyboard.press('F1');
    const input = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const label = workbench.tab.locator('.quick-input-list .monaco-list-row .label-name', {
      hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    });
    // The list filters as typed: give it time to settle before reading that a command is absent.
    const shown = await label
      .first()
      .waitFor({ timeout: 3_000 })
      .then(
        () => true,
        () => false,
      );
    await workbench.tab.keyboard.press('Escape');
    return shown;
  }
});
