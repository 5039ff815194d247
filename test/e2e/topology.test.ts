// The topology webview as a user meets it: Analyze Topology in Editor on a real H200 output opens
// the matrix (cells explained on hover, arrow keys move), the graph view, the per-GPU panel; a
// NIC name holding markup shows as characters; an unreadable file names its line; the demo
// host, once diagnosed, opens the same panel from the tree; the panel follows a light and a
// high-contrast theme with readable cells, and the largest real matrix fits it.
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
const DEMO = 'demo-hgx-h100 (replayed)';

/**
 * Theme (as the Color Theme picker labels it; it stores the choice in workbench.colorTheme), the
 * class VS Code then gives the workbench and the webview's body, screenshot. High contrast first:
 * code-server's default theme in a headless browser is a light one, so each switch is visible.
 * (Writing workbench.colorTheme into the settings file while code-server runs is not picked up.)
 */
const THEMES: [string, string, string, string][] = [
  ['Dark High Contrast', 'hc-black', 'vscode-high-contrast', 'topology-08-high-contrast-theme'],
  ['Light Modern', 'vs', 'vscode-light', 'topology-09-light-theme'],
];

interface ColourSample {
  what: string;
  text: string;
  background: number[];
  foreground: number[];
  contrast: number;
}
interface ThemeColours {
  vars: Record<string, string>;
  samples: ColourSample[];
}

/**
 * Runs inside the webview. For one cell of each link class and each legend swatch: the background
 * as shown (the cell's translucent colour over the page's), the text colour, and the WCAG contrast
 * ratio between them. A 1×1 canvas does the colour parsing and compositing as the browser paints.
 */
function measureColours(body: HTMLElement): ThemeColours {
  const canvas = document.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d canvas');
  const paint = (layers: string[]): number[] => {
    ctx.clearRect(0, 0, 1, 1);
    for (const colour of layers) {
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 1, 1);
    }
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
  };
  const luminance = (rgb: number[]): number => {
    const [r, g, b] = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const page = getComputedStyle(body).backgroundColor;
  const sample = (what: string, el: Element): ColourSample => {
    const style = getComputedStyle(el);
    const background = paint([page, style.backgroundColor]);
    const foreground = paint([page, style.backgroundColor, style.color]);
    const [hi, lo] = [luminance(background), luminance(foreground)].sort((a, b) => b - a);
    return { what, text: el.textContent ?? '', background, foreground, contrast: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100 };
  };
  const samples: ColourSample[] = [];
  // A GPU↔NIC cell is coloured by GPUDirect RDMA on this host (gdr-*), any other by its link class.
  const linkClass = (el: Element) => Array.from(el.classList).find((c) => c.startsWith('link-') || c.startsWith('gdr-')) ?? '?';
  const cells = new Map<string, Element>();
  for (const td of Array.from(document.querySelectorAll('td.cell')))
    if (td.textContent && !cells.has(linkClass(td))) cells.set(linkClass(td), td);
  for (const [cls, td] of cells) samples.push(sample(`cell ${cls}`, td));
  for (const swatch of Array.from(document.querySelectorAll('.legend .swatch')))
    samples.push(sample(`legend ${linkClass(swatch)}`, swatch));
  const root = getComputedStyle(document.documentElement);
  const vars = Object.fromEntries(
    ['--vscode-editor-background', '--vscode-foreground', '--vscode-charts-blue', '--vscode-charts-red'].map((name) => [
      name,
      root.getPropertyValue(name).trim(),
    ]),
  );
  return { vars, samples };
}

/** Runs inside the webview: page and matrix widths, and cells that overlap or cut their text. */
function measureLayout(): {
  cells: number;
  pageWidth: number;
  viewportWidth: number;
  matrixWidth: number;
  matrixBox: number;
  overlaps: string[];
  clipped: string[];
} {
  const scroller = document.querySelector('.matrix-scroll');
  if (!scroller) throw new Error('no matrix');
  const cells = Array.from(document.querySelectorAll<HTMLElement>('td.cell'));
  const name = (el: HTMLElement) => `${el.dataset.row}/${el.dataset.column}`;
  const boxes = cells.map((el) => ({ el, r: el.getBoundingClientRect() }));
  const overlaps: string[] = [];
  // Neighbours share a border (collapsed borders): overlap means more than half a pixel of area.
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i].r, boxes[j].r];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) overlaps.push(`${name(boxes[i].el)} × ${name(boxes[j].el)}`);
    }
  }
  const clipped = cells.filter((el) => el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight).map(name);
  return {
    cells: cells.length,
    pageWidth: document.documentElement.scrollWidth,
    viewportWidth: document.documentElement.clientWidth,
    matrixWidth: scroller.scrollWidth,
    matrixBox: scroller.clientWidth,
    overlaps,
    clipped,
  };
}

describe('topology webview in a real VS Code (code-server + chromium)', function () {
  this.timeout(60_000);
  const workbench = new Workbench();
  let dialogs = 0;

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    workbench.tab.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
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

  /**
   * Runs a measuring function in the webview's page. tsx compiles this file with esbuild's keepNames,
   * which wraps named inner functions in a `__name(fn, "name")` helper the page does not have:
   * `Object(fn)` returns `fn`, so it serves as one.
   */
  async function inView<T>(measure: (body: HTMLElement) => T): Promise<T> {
    await view().locator('body').evaluate('window.__name = Object');
    return view().locator('body').evaluate(measure);
  }

  it('Analyze Topology in Editor draws the matrix of the active editor: GPU↔NIC cells by GPUDirect RDMA, others by link class', async function () {
    await workbench.openFile(H200);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await cell('GPU3', 'NIC5').waitFor();
    // From the matrix alone the NIC side is unknown: a PXB pair is "unknown" (?), never green; a NODE pair off (✗).
    assert.strictEqual((await cell('GPU3', 'NIC5').innerText()).replace(/\s/g, ''), 'PXB?');
    assert.match((await cell('GPU3', 'NIC5').getAttribute('class')) ?? '', /gdr-unknown/);
    assert.strictEqual(await cell('GPU3', 'NIC5').getAttribute('data-link'), 'pxb');
    assert.match((await cell('GPU3', 'NIC0').getAttribute('class')) ?? '', /gdr-off/);
    assert.strictEqual(await view().locator('td.cell.gdr-on').count(), 0, 'no pair is on without the host');
    assert.match((await cell('GPU0', 'GPU1').getAttribute('class')) ?? '', /link-nvlink/);
    const colours = await Promise.all(
      [cell('GPU3', 'NIC5'), cell('GPU3', 'NIC0'), cell('NIC0', 'NIC6'), cell('GPU0', 'GPU1')].map((c) =>
        c.evaluate((e) => getComputedStyle(e).backgroundColor),
      ),
    );
    assert.strictEqual(new Set(colours).size, 4, `classes share a colour: ${colours.join(', ')}`);
    await view().locator('.legend .swatch', { hasText: /^SYS$/ }).waitFor();
    await view().locator('.legends .legend-heading', { hasText: 'GPU ↔ NIC from this matrix:' }).waitFor();
    for (const label of ['GPUDirect RDMA off', 'GPUDirect RDMA unknown'])
      await view().locator('.gdr-legend li', { hasText: label }).waitFor();
    await workbench.screenshot('topology-01-matrix');
  });

  it("hovering a cell explains it with NCCL's verdict; arrow keys move between cells", async function () {
    await cell('GPU3', 'NIC5').hover();
    const explanation = view().locator('#explanation');
    await explanation.filter({ hasText: 'GPU3 ↔ NIC5: PXB — GDR unknown' }).waitFor();
    assert.match(await explanation.innerText(), /NCCL 2\.30\.7 counts a PXB path .*so it uses GPUDirect RDMA when both sides support it/);
    assert.match(
      (await cell('GPU3', 'NIC0').getAttribute('title')) ?? '',
      /NCCL 2\.30\.7 counts NODE as PHB .*so no GPUDirect RDMA over it/,
    );
    await view()
      .locator('.legend .swatch', { hasText: /^NODE$/ })
      .hover();
    await explanation.filter({ hasText: /^NODE: / }).waitFor();
    await cell('GPU3', 'NIC5').click();
    await workbench.tab.keyboard.press('ArrowRight');
    await workbench.tab.keyboard.press('ArrowDown');
    await explanation.filter({ hasText: 'GPU4 ↔ NIC6: PXB' }).waitFor();
    await view().locator('.details').filter({ hasText: 'NIC5 (mlx5_5)' }).waitFor();
    await workbench.screenshot('topology-02-cell-explained');
  });

  it('switches to the graph: NUMA node panels, PCIe groups, the all-to-all NVLink mesh as one hub, GPUs with their chosen NIC', async function () {
    await view().locator('#tab-graph').click();
    const graph = view().locator('svg.graph');
    await graph.waitFor();
    // The panel opens beside the editor: too narrow for a whole NUMA node, each is drawn in parts.
    const cpus = await graph.locator('.node.cpu').evaluateAll((nodes) => nodes.map((n) => n.querySelector('text')?.textContent ?? ''));
    assert.deepStrictEqual(
      [...new Set(cpus.map((c) => c.replace(/ \(part \d of \d\)$/, '')))],
      ['CPU 0 · NUMA node 0', 'CPU 1 · NUMA node 1'],
      cpus.join(', '),
    );
    const fit = await view()
      .locator('body')
      .evaluate(() => ({
        svg: document.querySelector('svg.graph')?.getBoundingClientRect().width ?? 0,
        host: document.querySelector('.graph-scroll')?.clientWidth ?? 0,
      }));
    assert.ok(fit.svg <= fit.host + 1, `the graph is wider than the panel: ${JSON.stringify(fit)}`);
    assert.strictEqual(await graph.locator('.node.gpu').count(), 8);
    assert.strictEqual(await graph.locator('.nvlink-hub').count(), 1);
    assert.strictEqual(await graph.locator('.nvlink-edge').count(), 0);
    assert.ok((await graph.locator('.node.nic.chosen').count()) >= 8);
    await view().locator('.caption', { hasText: 'Inferred from the matrix' }).waitFor();
    await view().locator('.graph-legend li', { hasText: 'NVLink hub' }).waitFor();
    assert.strictEqual(await view().locator('.legend .swatch').count(), 0, 'the matrix legend is not under the graph');
    await workbench.screenshot('topology-03-graph');
    await view().locator('#tab-matrix').click();
    await cell('GPU0', 'NIC0').waitFor();
  });

  it('refuses a NIC name holding markup with a ParseError at its line (issue 23 item 4); nothing of it becomes an element', async function () {
    await workbench.openFile(HOSTILE);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item-message', { hasText: HOSTILE }).first();
    await toast.waitFor();
    assert.match(await toast.innerText(), /hostile-nic\.txt, line \d+/);
    assert.strictEqual(await workbench.tab.locator('.notifications-toasts img').count(), 0);
    assert.strictEqual(dialogs, 0);
    await workbench.screenshot('topology-04-markup-refused');
    await workbench.runCommand('Notifications: Clear All Notifications');
  });

  it('an unreadable editor gives a ParseError with its line, and no panel change', async function () {
    await workbench.openFile(NOT_TOPO);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item-message', { hasText: 'Not readable as' });
    await toast.waitFor();
    assert.match(await toast.innerText(), /notes\.txt, line \d+/);
    await workbench.screenshot('topology-05-parse-error');
  });

  it('Show Topology on the diagnosed demo host opens its topology with the diagnosis verdicts', async function () {
    await workbench.runCommand('GPUDirect RDMA: Open Demo Host');
    const sidebar = workbench.tab.locator('.part.sidebar');
    const host = sidebar.locator('.monaco-list-row', { has: workbench.tab.locator('.label-name', { hasText: /^demo-hgx-h100$/ }) }).first();
    // The command reveals the view itself; click the container only if it did not (a second click would hide it).
    await host.waitFor({ timeout: 5_000 }).catch(async () => {
      await workbench.activityBarItem('GPUDirect RDMA').click();
      await host.waitFor();
    });
    await host.hover();
    await host.locator('.actions .action-label[aria-label="Diagnose"]').click();
    if ((await host.getAttribute('aria-expanded')) !== 'true') await host.click();
    await sidebar
      .locator('.monaco-list-row', { hasText: /^Diagnosed / })
      .first()
      .waitFor();
    await workbench.screenshot('topology-06-demo-diagnosed');
    await host.hover();
    await host.locator('.actions .action-label[aria-label="Show Topology"]').click();
    await view().locator('h1', { hasText: DEMO }).waitFor();
    await view().locator('td.cell').first().waitFor();
    await view().locator('.source', { hasText: 'diagnosed' }).waitFor();
    // The verdict first: a banner naming the cause, with its fix one click away.
    const banner = view().locator('#banner');
    assert.strictEqual(
      (await banner.locator('.banner-text').innerText()).trim(),
      'GPUDirect RDMA off on 8 of 8 GPUs: nvidia_peermem is not loaded',
    );
    assert.strictEqual((await banner.locator('button').innerText()).trim(), 'Show fix');
    const bannerBox = await banner.boundingBox();
    const matrixBox = await view().locator('table.matrix').boundingBox();
    assert.ok(bannerBox && matrixBox && bannerBox.y < matrixBox.y, 'the banner comes before the matrix');
    // Every GPU↔NIC cell says GDR is off on this host, a PIX pair too: none is green.
    assert.strictEqual(await view().locator('td.cell.gdr-on').count(), 0);
    assert.strictEqual(await view().locator('td.cell.gdr-off').count(), 2 * 8 * 8, 'GPU rows × NIC columns, and back');
    const pix = view().locator('td.cell.gdr-off[data-link="pix"]').first();
    await pix.hover();
    await view()
      .locator('#explanation', { hasText: /^GPU\d ↔ NIC\d: PIX — GDR off: nvidia_peermem is not loaded/ })
      .waitFor();
    await view().locator('.legends .legend-heading', { hasText: 'GPU ↔ NIC on this host:' }).waitFor();
    await workbench.screenshot('topology-07-demo-host');
  });

  it('the demo graph: every mark it draws has a legend entry; the banner shows the fix', async function () {
    await view().locator('#tab-graph').click();
    const graph = view().locator('svg.graph');
    await graph.waitFor();
    const drawn = await graph.evaluate((svg) => ({
      off: svg.querySelectorAll('.node.gpu.far').length,
      unknown: svg.querySelectorAll('.node.gpu.gdr-unknown').length,
      chosen: svg.querySelectorAll('.node.nic.chosen').length,
      selected: svg.querySelectorAll('.node.gpu.selected').length,
      marks: svg.querySelectorAll('g.mark').length,
      degraded: svg.querySelectorAll('.pcie-edge.degraded').length,
      warned: Array.from(svg.querySelectorAll('.node.gpu text.label')).filter((t) => (t.textContent ?? '').endsWith('⚠')).length,
    }));
    assert.strictEqual(drawn.off, 8, JSON.stringify(drawn));
    assert.strictEqual(drawn.warned, 8);
    const legend = view().locator('.graph-legend');
    const entry = (swatch: string) => legend.locator(`li[data-swatch="${swatch}"]`);
    const wanted: [number, string][] = [
      [drawn.off, 'node gpu gdr-off far'],
      [drawn.unknown, 'node gpu gdr-unknown'],
      [drawn.chosen, 'node nic chosen'],
      [drawn.selected, 'node gpu selected'],
      [drawn.marks, 'mark'],
      [drawn.degraded, 'pcie-edge degraded'],
    ];
    for (const [count, swatch] of wanted) assert.strictEqual(await entry(swatch).count(), count > 0 ? 1 : 0, `${swatch}: ${count} drawn`);
    assert.match(await entry('node gpu gdr-off far').innerText(), /GPU without GPUDirect RDMA ⚠/);
    await workbench.screenshot('topology-07b-demo-graph-legend');
    await view().locator('#banner button', { hasText: 'Show fix' }).click();
    const dialog = workbench.tab.locator('.monaco-dialog-box');
    await dialog.filter({ hasText: 'modprobe nvidia_peermem' }).waitFor();
    await workbench.screenshot('topology-07c-banner-show-fix');
    await workbench.tab.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await view().locator('#tab-matrix').click();
  });

  it('follows a light and a high-contrast theme: --vscode-* colours, cell text readable (contrast >= 4.5)', async function () {
    this.timeout(120_000);
    await workbench.openFile(H200);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await view().locator('h1', { hasText: H200 }).waitFor();
    const seen: Record<string, ThemeColours> = {};
    for (const [theme, workbenchClass, bodyClass, shot] of THEMES) {
      await workbench.runCommand('Preferences: Color Theme');
      await workbench.pick(theme);
      await workbench.tab.locator(`.monaco-workbench.${workbenchClass}`).waitFor();
      await view().locator(`body.${bodyClass}`).waitFor();
      await cell('GPU3', 'NIC5').waitFor();
      // VS Code sets the new variables on the webview's root as the body class changes: wait until they settle.
      await workbench.tab.waitForTimeout(500);
      const colours = await inView(measureColours);
      seen[theme] = colours;
      const kinds = colours.samples.map((x) => x.what);
      for (const cls of ['link-self', 'link-nvlink', 'link-node', 'link-sys', 'gdr-off', 'gdr-unknown']) {
        assert.ok(kinds.includes(`cell ${cls}`), `${theme}: no cell of class ${cls} measured (${kinds.join(', ')})`);
        assert.ok(kinds.includes(`legend ${cls}`), `${theme}: no legend swatch of class ${cls} measured`);
      }
      assert.ok(kinds.includes('legend link-pxb'), `${theme}: no legend swatch of PXB`);
      const unreadable = colours.samples.filter((x) => x.contrast < 4.5);
      assert.deepStrictEqual(unreadable, [], `${theme}: text below WCAG AA contrast`);
      await workbench.screenshot(shot);
    }
    const [contrast, light] = THEMES.map(([theme]) => seen[theme]);
    for (const name of ['--vscode-editor-background', '--vscode-foreground', '--vscode-charts-blue', '--vscode-charts-red']) {
      assert.ok(light.vars[name] && contrast.vars[name], `${name} is not set by VS Code`);
      assert.notStrictEqual(light.vars[name], contrast.vars[name], `${name} is the same in both themes`);
    }
    // Every class's background follows the theme (it is mixed from --vscode-* colours, not fixed).
    for (const sample of light.samples) {
      const other = contrast.samples.find((x) => x.what === sample.what);
      assert.ok(other, `${sample.what} missing under the high-contrast theme`);
      assert.notDeepStrictEqual(sample.background, other.background, `${sample.what} has the same background in both themes`);
    }
  });

  it('the largest real matrix (H200: 8 GPUs × 12 NICs) fits the panel: no horizontal overflow, no overlapping cells', async function () {
    // test/fixtures/topo holds no real 16-GPU output; the H200 one (20 × 20 devices) is the largest.
    // Analyze Topology opens beside its editor, a new group each time: here the panel gets the editor area alone.
    await workbench.runCommand('View: Close All Editors');
    await workbench.openFile(H200);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await view().locator('h1', { hasText: H200 }).waitFor();
    await workbench.runCommand('View: Single Column Editor Layout');
    await workbench.tab.locator('.part.editor .tab', { hasText: `Topology: ${H200}` }).click();
    await cell('GPU7', 'NIC11').waitFor();
    const layout = await inView(measureLayout);
    assert.strictEqual(layout.cells, 20 * 20);
    assert.ok(layout.pageWidth <= layout.viewportWidth, `the panel scrolls sideways: ${layout.pageWidth} > ${layout.viewportWidth}`);
    assert.ok(layout.matrixWidth <= layout.matrixBox, `the matrix needs a sideways scroll: ${layout.matrixWidth} > ${layout.matrixBox}`);
    assert.deepStrictEqual(layout.overlaps, [], 'cells overlap');
    assert.deepStrictEqual(layout.clipped, [], 'cell text is cut off');
    await workbench.screenshot('topology-10-h200-fits');
  });
});
