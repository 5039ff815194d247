// The topology panel's graph of a lab host's real PCIe tree, in a real VS Code (code-server + chromium)
// at 1000×700 and 1400×900: every NUMA node, host bridge and switch, the GPUs and NICs with their links,
// the NVSwitch mesh as one hub, the route NCCL uses (PXN through the relaying GPU; C2C on a GB200 tray),
// the legend, explanations on hover and focus, arrow keys; the matrix's last column reachable and its
// values unbroken; a host whose nvidia-smi topo -m fails shows distances derived from the tree, marked;
// a host with ACS redirecting on its switch ports shows those switches marked ACS.
import * as assert from 'assert';
import * as path from 'path';
import { FrameLocator } from 'playwright-core';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';
import { derivedProfile } from '../lab/profile';
import { CACHE_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

const PXN = 'gpu-hgx';
const GRACE = 'gpu-gb200';
const NO_TOPO = 'gpu-no-topo';
const ACS = 'gpu-acs';
const RECORDS_PATH = path.join(CACHE_DIR, 'lab-pcie.records.json');
const SMALL = { width: 1000, height: 700 };
const LARGE = { width: 1400, height: 900 };

/** Runs in the webview: does the graph fit its box and the window, and is the page free of a sideways scroll? */
function graphFit(): {
  svgWidth: number;
  hostWidth: number;
  bottom: number;
  windowHeight: number;
  pageWidth: number;
  viewportWidth: number;
} {
  const svg = document.querySelector('svg.graph');
  const host = document.querySelector('.graph-scroll');
  if (!svg || !host) throw new Error('no graph');
  return {
    svgWidth: svg.getBoundingClientRect().width,
    hostWidth: host.clientWidth,
    bottom: svg.getBoundingClientRect().bottom,
    windowHeight: window.innerHeight,
    pageWidth: document.documentElement.scrollWidth,
    viewportWidth: document.documentElement.clientWidth,
  };
}

describe('the real PCIe tree in the topology panel (code-server + chromium + SSH lab with sysfs PCI trees)', function () {
  this.timeout(90_000);
  // Scrollbars drawn, as in a user's browser: the matrix's must be visible where it clips columns.
  const workbench = new Workbench({}, { scrollbars: true });
  let lab: Lab | undefined;
  const { row, setExpanded, inline, showHosts, diagnose } = hostsTree(workbench);
  const view = (): FrameLocator => workbench.tab.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const graph = () => view().locator('svg.graph');

  before(async function () {
    this.timeout(300_000);
    assertLabCanRun();
    await cleanupStale(RECORDS_PATH);
    const noTopo = derivedProfile('nvidia-smi topo -m fails (no recording: rc 99)', 'pxn-port-down', {
      withoutRecordings: [['nvidia-smi', 'topo', '-m']],
    });
    lab = await startLab({
      hosts: [
        { name: PXN, profile: 'pxn-port-down' },
        { name: GRACE, profile: 'grace-c2c' },
        { name: NO_TOPO, profile: noTopo },
        { name: ACS, profile: 'hgx-acs' },
      ],
      recordsPath: RECORDS_PATH,
    });
    await workbench.start();
    await workbench.tab.setViewportSize(SMALL);
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab.sshConfigPath }, 'machine');
  });

  afterEach(screenshotFailures(workbench, 'pcie-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
    await lab?.stop();
  });

  /** Diagnoses a host, opens its topology, then closes the sidebar so the panel has the window's width. */
  async function openTopology(host: string): Promise<void> {
    await workbench.runCommand('View: Close All Editors');
    await diagnose(host);
    await inline(row(host), 'Show Topology');
    await view().locator('h1', { hasText: host }).waitFor();
    await setExpanded(row(host), false);
    await workbench.runCommand('View: Close Primary Side Bar');
  }

  async function openGraph(host: string): Promise<void> {
    await openTopology(host);
    await view().locator('#tab-graph').click();
    await graph().waitFor();
  }

  it('at 1000×700: both NUMA nodes, 8 host bridges, 8 switches, 8 GPUs and 8 NICs, NVLink as one hub, all in view', async function () {
    this.timeout(150_000);
    await openGraph(PXN);
    const count = (selector: string) => graph().locator(selector).count();
    assert.deepStrictEqual(
      await graph()
        .locator('.node.cpu')
        .evaluateAll((nodes) => nodes.map((n) => n.querySelector('text')?.textContent)),
      ['CPU 0 · NUMA node 0', 'CPU 1 · NUMA node 1'],
    );
    assert.deepStrictEqual(
      await Promise.all(['.node.host-bridge', '.node.switch', '.node.gpu', '.node.nic', '.nvlink-hub', '.nvlink-edge'].map(count)),
      [8, 8, 8, 8, 1, 0],
    );
    assert.match(await graph().locator('.hub-label').innerHTML(), /NVLink NV18 · all 8 GPUs/);
    // Each GPU, NIC and switch with the link it trained at (host bridges have none in sysfs).
    assert.strictEqual(await graph().locator('.link-label', { hasText: 'Gen5 x16' }).count(), 24);
    const fit = await view().locator('body').evaluate(graphFit);
    assert.ok(fit.svgWidth <= fit.hostWidth + 1, `graph wider than its box: ${JSON.stringify(fit)}`);
    assert.ok(fit.bottom <= fit.windowHeight, `graph cut off at the bottom: ${JSON.stringify(fit)}`);
    assert.ok(fit.pageWidth <= fit.viewportWidth, 'the panel scrolls sideways');
    for (const entry of ['PCIe link (speed, width)', 'NVLink hub', "NCCL's route (selected GPU)"]) {
      await view().locator('.graph-legend li', { hasText: entry }).waitFor();
    }
    // The legend names only what is drawn: GPU0 reaches its own NIC without a PXN hop.
    assert.strictEqual(await view().locator('.graph-legend li', { hasText: 'PXN hop' }).count(), 0);
    await workbench.screenshot('pcie-01-hgx-tree-1000x700');
  });

  it("GPU1 (its own NIC down) is routed over NVLink to GPU0, then through GPU0's switch to mlx5_0", async function () {
    await view().locator('#gpu-picker').selectOption('GPU1');
    await graph().locator('.pxn-edge').waitFor({ state: 'attached' });
    assert.deepStrictEqual(
      await graph()
        .locator('.pcie-edge.route')
        .evaluateAll((edges) => edges.map((e) => e.getAttribute('data-edge')).sort()),
      ['0000:18:00.0', '0000:19:00.0'],
    );
    assert.match(await graph().locator('.node.nic.on-route').innerHTML(), /mlx5_0/);
    assert.strictEqual(await graph().locator('.node.gpu.selected').getAttribute('data-column'), 'GPU1');
    await view().locator('.graph-legend li', { hasText: 'PXN hop' }).waitFor();
    await workbench.screenshot('pcie-02-hgx-pxn-route');
  });

  it('explains a switch on hover and a link on focus; arrow keys walk the tree', async function () {
    const explanation = view().locator('#explanation');
    await graph().locator('.node.switch[data-node="0000:16:00.0"]').hover();
    await explanation.filter({ hasText: /^PCIe switch 0000:16:00\.0 \(Broadcom \/ LSI 1000:c030\)/ }).waitFor();
    assert.match(await explanation.innerText(), /NCCL 2\.30\.7 counts a PIX path/);
    await graph().locator('.node.gpu[data-column="GPU1"]').focus();
    await explanation.filter({ hasText: /GPU 0000:2a:00\.0|GPU GPU1/ }).waitFor();
    // The verdict first, then the part and its link.
    const focused = await explanation.innerText();
    assert.match(focused, /^GPU1: GDR on: NCCL gives GPU1 this NIC \(through GPU0, PXN\)\./);
    assert.match(focused, /PCIe link of GPU1 to port 0000:28:01\.0: Gen5 x16 .*Running at its maximum\./);
    await workbench.tab.keyboard.press('ArrowUp');
    await explanation.filter({ hasText: /^PCIe switch 0000:27:00\.0/ }).waitFor();
    assert.strictEqual(
      await graph()
        .locator('[data-node="0000:27:00.0"]')
        .evaluate((e) => e === document.activeElement),
      true,
    );
    await workbench.screenshot('pcie-03-explained');
  });

  it('at 1400×900 the same tree is drawn larger and still fits', async function () {
    await workbench.tab.setViewportSize(LARGE);
    await workbench.tab.waitForTimeout(500);
    const fit = await view().locator('body').evaluate(graphFit);
    assert.ok(fit.svgWidth <= fit.hostWidth + 1 && fit.bottom <= fit.windowHeight, JSON.stringify(fit));
    await workbench.screenshot('pcie-04-hgx-tree-1400x900');
    await workbench.tab.setViewportSize(SMALL);
  });

  it('the matrix at 1000×700 beside the Hosts view: its last column scrolls into view next to the sticky row names; values wrap only between words', async function () {
    await showHosts(PXN);
    await view().locator('#tab-matrix').click();
    const scroller = view().locator('.matrix-scroll');
    await scroller.waitFor();
    const before = await scroller.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
    assert.ok(
      before.scrollWidth > before.clientWidth,
      'at 1000×700 the 16 × 16 matrix is wider than its box (else this test shows nothing)',
    );
    assert.match((await view().locator('.matrix-frame').getAttribute('class')) ?? '', /more-right/);
    await scroller.evaluate((e) => {
      e.scrollLeft = e.scrollWidth;
    });
    const seen = await scroller.evaluate((e) => {
      const box = e.getBoundingClientRect();
      const last = e.querySelector('thead th:last-child')?.getBoundingClientRect();
      const rowName = e.querySelector('tbody th')?.getBoundingClientRect();
      return {
        last: last && last.right <= box.right + 1 && last.left >= box.left,
        rowName: rowName && Math.abs(rowName.left - box.left) < 2,
      };
    });
    assert.deepStrictEqual(seen, { last: true, rowName: true });
    assert.ok(
      (await scroller.evaluate((e) => (e as HTMLElement).offsetHeight - e.clientHeight)) >= 10,
      'no horizontal scrollbar drawn under the clipped matrix',
    );
    const tokens = await view()
      .locator('.details .token')
      .evaluateAll((spans) => spans.map((s) => ({ text: s.textContent, lines: s.getClientRects().length })));
    assert.ok(tokens.some((t) => t.text === '--cpunodebind=0') && tokens.some((t) => t.text === 'mlx5_2:1,'), JSON.stringify(tokens));
    assert.deepStrictEqual(
      tokens.filter((t) => t.lines !== 1),
      [],
      'a value broke inside a word or a comma-separated part',
    );
    await workbench.screenshot('pcie-05-matrix-last-column');
  });

  it("a GB200 tray: each GPU's C2C link to its Grace; GPU0's route goes over it to a NIC on its own Grace", async function () {
    this.timeout(150_000);
    await openGraph(GRACE);
    assert.strictEqual(await graph().locator('.c2c-edge').count(), 4);
    assert.strictEqual(await graph().locator('.c2c-edge.route').count(), 1);
    assert.ok((await graph().locator('.pcie-edge.route').count()) >= 2);
    await view().locator('.graph-legend li', { hasText: 'NVLink-C2C' }).waitFor();
    await workbench.screenshot('pcie-06-gb200-c2c');
  });

  it("nvidia-smi topo -m failing: the matrix and each GPU's distance are derived from the tree, and say so", async function () {
    this.timeout(150_000);
    await diagnose(NO_TOPO);
    await setExpanded(row('GPUs'), true);
    await row('GPU0')
      .filter({ hasText: /\(PIX, derived\)/ })
      .waitFor();
    await workbench.screenshot('pcie-07-derived-gpu-rows');
    await inline(row(NO_TOPO), 'Show Topology');
    await view().locator('h1', { hasText: NO_TOPO }).waitFor();
    await view().locator('#tab-matrix').click();
    await view().locator('.caption.derived', { hasText: 'Derived from the sysfs PCI tree' }).waitFor();
    await view().locator('.details dd', { hasText: 'PIX, derived from the PCI tree' }).waitFor();
    await view().locator('td.cell[data-row="GPU0"][data-column="NIC0"]').hover();
    await view().locator('#explanation', { hasText: 'derived from the sysfs PCI tree' }).waitFor();
    await workbench.screenshot('pcie-08-derived-matrix');
    // Its GPUs fill the Hosts view: collapsed, so the next host's row is in view (rows out of view are not drawn).
    await setExpanded(row(NO_TOPO), false);
  });

  it('ACS on the switch ports between GPU and NIC: those switches carry an ACS mark, explained', async function () {
    this.timeout(150_000);
    await workbench.tab.setViewportSize(LARGE);
    await openGraph(ACS);
    const marks = graph().locator('g.mark', { hasText: 'ACS' });
    await marks.first().waitFor();
    assert.ok((await marks.count()) >= 8, `${await marks.count()} ACS marks: one per PEX890xx switch on a GPU↔NIC path`);
    const marked = graph()
      .locator('g.node', { has: view().locator('g.mark') })
      .first();
    // The badge stands out from its node (the node's own rect rule must not paint it).
    const fills = await marked.evaluate((g) =>
      [g.querySelector(':scope > rect'), g.querySelector('g.mark rect')].map((r) => (r ? getComputedStyle(r).fill : '')),
    );
    assert.notStrictEqual(fills[1], fills[0], `badge fill ${fills[1]} vs node ${fills[0]}`);
    await marked.hover();
    await view()
      .locator('#explanation', { hasText: /Access Control Services redirect peer-to-peer traffic of GPU\d+↔mlx5_\d+/ })
      .waitFor();
    await workbench.screenshot('pcie-09-acs-marks');
  });
});
