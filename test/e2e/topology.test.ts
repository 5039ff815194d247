// The topology webview as a user meets it: Analyze Topology in Editor on a real H200 output opens
// the matrix (cells explained on hover, arrow keys move), the graph view, the per-GPU panel; a
// NIC name holding markup shows as characters; an unreadable file names its line; and the demo
// host, once diagnosed, opens the same panel from the tree.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { FrameLocator, Locator } from 'playwright-core';
import { REPO_ROOT, RUN_DIR } from './environment';
import { Workbench, screenshotFailures } from './workbench';

const H200 = 'h200-8gpu.txt';
const HOSTILE = 'hostile-nic.txt';
const NOT_TOPO = 'notes.txt';
/** No spaces: the NIC Legend reads one word per device, and this is still markup a browser would run. */
const MARKUP = '<img/src=x/onerror=alert(1)>';
const DEMO = 'demo-dgx-a100 (replayed)';

describe('topology webview in a real VS Code (code-server + chromium)', function () {
  this.timeout(60_000);
  const workbench = new Workbench();
  let dialogs = 0;

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    workbench.tab.on('dialog', (d) => { dialogs++; void d.dismiss(); });
    const workspace = path.join(RUN_DIR, 'workspace');
    const real = fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/topo/h200-hgx-8gpu-12nic-tabs.txt'), 'utf8');
    fs.writeFileSync(path.join(workspace, H200), real);
    // A test input derived from the real output: only NIC0's device name is replaced by markup.
    fs.writeFileSync(path.join(workspace, HOSTILE), real.replace('NIC0: mlx5_0', `NIC0: ${MARKUP}`));
    fs.writeFileSync(path.join(workspace, NOT_TOPO), 'shopping list\nmilk\n');
  });

  afterEach(screenshotFailures(workbench, 'topology-'));

  after(async function () {
    this.timeout(30_000);
    await workbench.dispose();
  });

  /** The webview's page: VS Code nests it in an iframe inside the webview's iframe. */
  const view = (): FrameLocator => workbench.tab.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const cell = (row: string, column: string): Locator => view().locator(`td.cell[data-row="${row}"][data-column="${column}"]`);

  it('Analyze Topology in Editor draws the matrix of the active editor, coloured by link class', async function () {
    await openFile(H200);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await cell('GPU3', 'NIC5').waitFor();
    assert.strictEqual((await cell('GPU3', 'NIC5').innerText()).trim(), 'PXB');
    assert.match(await cell('GPU3', 'NIC5').getAttribute('class') ?? '', /link-pxb/);
    assert.match(await cell('GPU0', 'GPU1').getAttribute('class') ?? '', /link-nvlink/);
    const colours = await Promise.all([cell('GPU3', 'NIC5'), cell('GPU3', 'NIC0'), cell('GPU3', 'NIC6'), cell('GPU0', 'GPU1')]
      .map((c) => c.evaluate((e) => getComputedStyle(e).backgroundColor)));
    assert.strictEqual(new Set(colours).size, 4, `link classes share a colour: ${colours.join(', ')}`);
    await view().locator('.legend .swatch', { hasText: /^SYS$/ }).waitFor();
    await workbench.screenshot('topology-01-matrix');
  });

  it('hovering a cell explains it with NCCL\'s verdict; arrow keys move between cells', async function () {
    await cell('GPU3', 'NIC5').hover();
    const explanation = view().locator('#explanation');
    await explanation.filter({ hasText: 'GPU3 ↔ NIC5: PXB' }).waitFor();
    assert.match(await explanation.innerText(), /GPUDirect RDMA: used by default/);
    assert.match(await cell('GPU3', 'NIC0').getAttribute('title') ?? '', /GPUDirect RDMA: not used by default/);
    await view().locator('.legend .swatch', { hasText: /^NODE$/ }).hover();
    await explanation.filter({ hasText: /^NODE: / }).waitFor();
    await cell('GPU3', 'NIC5').click();
    await workbench.tab.keyboard.press('ArrowRight');
    await workbench.tab.keyboard.press('ArrowDown');
    await explanation.filter({ hasText: 'GPU4 ↔ NIC6: PXB' }).waitFor();
    await view().locator('.details').filter({ hasText: 'NIC5 (mlx5_5)' }).waitFor();
    await workbench.screenshot('topology-02-cell-explained');
  });

  it('switches to the graph: NUMA nodes, PCIe groups, GPUs with their chosen NIC', async function () {
    await view().locator('#tab-graph').click();
    const graph = view().locator('svg.graph');
    await graph.waitFor();
    assert.strictEqual(await graph.locator('text', { hasText: /^NUMA node \d$/ }).count(), 2);
    assert.strictEqual(await graph.locator('.device.gpu').count(), 8);
    assert.strictEqual(await graph.locator('.nvlink-edge').count(), 28);
    assert.ok((await graph.locator('.device.nic.chosen').count()) >= 8);
    await workbench.screenshot('topology-03-graph');
    await view().locator('#tab-matrix').click();
    await cell('GPU0', 'NIC0').waitFor();
  });

  it('shows a NIC name holding markup as characters, never as an element', async function () {
    await openFile(HOSTILE);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await view().locator('h1', { hasText: HOSTILE }).waitFor();
    await view().locator('#gpu-picker').selectOption('GPU0');
    await view().locator('.details dd', { hasText: `NIC0 (${MARKUP})` }).waitFor();
    assert.strictEqual(await view().locator('img').count(), 0);
    assert.strictEqual(dialogs, 0);
    await workbench.screenshot('topology-04-markup-as-text');
  });

  it('an unreadable editor gives a ParseError with its line, and no panel change', async function () {
    await openFile(NOT_TOPO);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item-message', { hasText: 'Not readable as' });
    await toast.waitFor();
    assert.match(await toast.innerText(), /notes\.txt, line \d+/);
    await workbench.screenshot('topology-05-parse-error');
  });

  it('Show Topology on the diagnosed demo host opens its topology with the diagnosis verdicts', async function () {
    await workbench.runCommand('GPUDirect RDMA: Open Demo Host');
    const sidebar = workbench.tab.locator('.part.sidebar');
    const host = sidebar.locator('.monaco-list-row', { has: workbench.tab.locator('.label-name', { hasText: DEMO }) }).first();
    // The command reveals the view itself; click the container only if it did not (a second click would hide it).
    await host.waitFor({ timeout: 5_000 }).catch(async () => {
      await workbench.activityBarItem('GPUDirect RDMA').click();
      await host.waitFor();
    });
    await host.hover();
    await host.locator('.actions .action-label[aria-label="Diagnose"]').click();
    if ((await host.getAttribute('aria-expanded')) !== 'true') await host.click();
    await sidebar.locator('.monaco-list-row', { hasText: /^Diagnosed / }).first().waitFor();
    await workbench.screenshot('topology-06-demo-diagnosed');
    await host.hover();
    await host.locator('.actions .action-label[aria-label="Show Topology"]').click();
    await view().locator('h1', { hasText: DEMO }).waitFor();
    await view().locator('td.cell').first().waitFor();
    await view().locator('.source', { hasText: 'diagnosed' }).waitFor();
    await workbench.screenshot('topology-07-demo-host');
  });

  async function openFile(name: string): Promise<void> {
    await workbench.tab.keyboard.press('Control+P');
    const input = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill(name);
    const row = workbench.tab.locator('.quick-input-list .monaco-list-row', {
      has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) }),
    });
    await row.first().click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: name }).waitFor();
  }
});
