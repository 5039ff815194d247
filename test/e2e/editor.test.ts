// The nvidia-topo editor features as a user meets them: a plain .txt holding `nvidia-smi topo -m`
// output switches to the nvidia-topo language by itself, a *.topo.txt file opens in it, link tokens
// are coloured by class, and hovering a cell or a legend line explains it with the GDR verdict.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { REPO_ROOT, RUN_DIR } from './environment';
import { Workbench, screenshotFailures } from './workbench';

const LANGUAGE = 'nvidia-topo';
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/topo');
/** Real outputs: tabs (H200, NIC Legend) for *.topo.txt, spaces (H100) for the plain .txt. */
const TOPO_FILE = 'h200.topo.txt';
const PLAIN_FILE = 'pasted-output.txt';

describe('nvidia-topo editor in a real VS Code (code-server + chromium)', function () {
  this.timeout(60_000);
  const workbench = new Workbench();

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    const workspace = path.join(RUN_DIR, 'workspace');
    fs.copyFileSync(path.join(FIXTURES, 'h200-hgx-8gpu-12nic-tabs.txt'), path.join(workspace, TOPO_FILE));
    fs.copyFileSync(path.join(FIXTURES, 'h100-hgx-8gpu-nic-legend-spaces.txt'), path.join(workspace, PLAIN_FILE));
  });

  afterEach(screenshotFailures(workbench));

  after(async function () {
    this.timeout(30_000);
    await workbench.dispose();
  });

  it('detects topo output in a plain .txt file and switches it to nvidia-topo', async function () {
    // Opened first, in a fresh window: the extension must activate for plain text by itself.
    await workbench.openFile(PLAIN_FILE);
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    await editorLine(/^NIC3\s/).waitFor();
    await workbench.screenshot('editor-01-plain-txt-detected');
  });

  it('opens a *.topo.txt file in the nvidia-topo language, link tokens coloured by class', async function () {
    await workbench.openFile(TOPO_FILE);
    await editorLine(/^GPU3\s/).waitFor();
    assert.strictEqual((await languageStatus().innerText()).trim(), LANGUAGE);
    const row = editorLine(/^GPU3\s/);
    const colours = await Promise.all(['PXB', 'NODE', 'SYS', 'NV18', 'GPU3'].map((t) => colourOf(token(row, t))));
    assert.strictEqual(new Set(colours).size, colours.length, `tokens share a colour: ${colours.join(', ')}`);
    await workbench.screenshot('editor-02-topo-file-coloured');
  });

  it('hovering the GPU3 × NIC5 PXB cell names both devices and says GPUDirect RDMA is used', async function () {
    await token(editorLine(/^GPU3\s/), 'PXB').hover();
    const hover = hoverWidget('GDR yes');
    await hover.waitFor();
    const text = await hover.innerText();
    assert.match(text, /PXB: GPU3 ↔ NIC5 \(mlx5_5\)/);
    assert.match(text, /NCCL 2\.30\.7 counts a PXB path .*so it uses GPUDirect RDMA when both sides support it .*ncclTopoCheckGdr/);
    await workbench.screenshot('editor-03-hover-pxb-cell');
  });

  it('hovering a legend line says whose wording it is and the verdict for that link type', async function () {
    await workbench.tab.keyboard.press('Escape');
    await token(editorLine(/^\s*PXB\s+=\sConnection\straversing\smultiple\sPCIe\sbridges/), 'PXB').hover();
    const hover = hoverWidget('Legend: PXB');
    await hover.waitFor();
    const text = await hover.innerText();
    assert.match(text, /This line is the wording of current drivers/);
    assert.match(text, /GDR yes: Between a GPU and a NIC, NCCL 2\.30\.7 counts a PXB path/);
    await workbench.screenshot('editor-04-hover-legend-line');
  });

  function languageStatus(): Locator {
    return workbench.tab.locator('.part.statusbar [id="status.editor.mode"]');
  }

  function editorLine(text: RegExp): Locator {
    return workbench.tab.locator('.part.editor .monaco-editor .view-lines .view-line').filter({ hasText: text });
  }

  function token(line: Locator, text: string): Locator {
    return line.locator('span > span', { hasText: new RegExp(`^${text}$`) }).first();
  }

  function hoverWidget(text: string): Locator {
    return workbench.tab.locator('.monaco-hover-content', { hasText: text }).first();
  }

  function colourOf(span: Locator): Promise<string> {
    return span.evaluate((el) => getComputedStyle(el).color);
  }
});
