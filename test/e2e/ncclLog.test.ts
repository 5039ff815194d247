// NCCL's own logs in a real VS Code (code-server + chromium), as a user meets them: a .log or .txt
// holding a real NCCL log (test/fixtures/nccl-log) switches to the NCCL Log language by itself, line
// kinds are coloured, NCCL's complaints land in the Problems panel on their lines, hovers explain a
// transport with the NCCL source that prints it, the summary lens sits at the top, Analyze NCCL Log
// opens the summary `gdr-doctor nccl-log` prints for the same file, Compare NCCL Log with Host puts the
// comparison with the demo host under that host, and a 100 MB log is read without stalling VS Code.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { buildBigLog, GPUS_PER_HOST, HOSTS } from '../../bench/ncclLogBig';
import { REPO_ROOT, RUN_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, hoverUntilShown, screenshotFailures } from './workbench';

const LANGUAGE = 'NCCL Log';
const DEMO = 'demo-hgx-h100 (replayed)';
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/nccl-log');
/** Workspace files: real logs under names a user gives them (.log opens as Log, .txt as Plain Text). */
const FILES: Record<string, string> = {
  'job-rank0.log': 'ib-no-module-2-containers-part1-start-cut.txt',
  'efa-ring.txt': 'efa-ofi-plugin-nccl2.4-mpirun-ring-warn-cut.txt',
  'roce-channels.log': 'roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt',
  'no-module-channels.log': 'ib-no-module-2-containers-part2-channels-cut.txt',
};
/** The project's own H200 run (nccl-tests with NCCL's INFO lines: two processes on one GPU, NET/Socket), as saved. */
const H200 = 'h200-all-reduce.txt';
const H200_FIXTURE = path.join(REPO_ROOT, 'test/fixtures/nccl-tests/h200-nccl2.28.9-all_reduce-2nodes-socket.txt');
const BIG = 'big-job.log';
const BIG_MB = 100;
/** Under VS Code's 50 MB limit for handing a document to extensions, over the live limit. */
const LIVE = 'live-job.log';
const LIVE_MB = 40;
/** What the extension reads of an open log for its marks and lens (LIVE_LIMIT_CHARS in src/core/ncclLog/analysis.ts). */
const LIVE_LIMIT_MB = 16;

describe('NCCL logs in a real VS Code (code-server + chromium)', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  const { sidebar, row, setExpanded } = hostsTree(workbench);
  let workspace: string;
  /** The colour of a network connection without GDRDMA, read in one test and compared in a later one. */
  let withoutGdrdmaColour = '';

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    workspace = path.join(RUN_DIR, 'workspace');
    for (const [name, fixture] of Object.entries(FILES)) fs.copyFileSync(path.join(FIXTURES, fixture), path.join(workspace, name));
    fs.copyFileSync(H200_FIXTURE, path.join(workspace, H200));
    // Written before the first Quick Open, whose file list does not always see files created later.
    buildBigLog(path.join(workspace, LIVE), LIVE_MB);
    buildBigLog(path.join(workspace, BIG), BIG_MB);
  });

  afterEach(screenshotFailures(workbench, 'nccl-log-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
  });

  it('a .log file holding an NCCL log turns into NCCL Log; "GPU Direct RDMA disabled for HCA mlx5_0 (no module)" is in Problems, on its line', async function () {
    await workbench.openFile('job-rank0.log');
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    await workbench.runCommand('Problems: Focus on Problems View');
    const problem = workbench.tab
      .locator('.markers-panel .monaco-list-row', {
        hasText: 'GPU Direct RDMA disabled for HCA mlx5_0 (no module): no peer-memory module (nvidia-peermem) was loaded',
      })
      .first();
    await problem.waitFor();
    assert.match(await problem.innerText(), /\[Ln 6, Col 1\]/);
    await workbench.screenshot('nccl-log-01-problems');
    await problem.click();
    await workbench.tab.locator('.part.statusbar', { hasText: /Ln 6, Col 1/ }).waitFor();
  });

  it('a pasted .txt log is recognised too: the header, P2P/IPC, a network connection without GDRDMA and WARN each in their own colour, the WARN in Problems', async function () {
    await workbench.openFile('efa-ring.txt');
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    const ring = editorLine('Ring 00 : 26[2] -> 30[6] via P2P/IPC');
    const net = editorLine('Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0');
    const warn = editorLine("NCCL WARN NET/OFI Couldn't open AV");
    // The language changes first; the lines are painted by its grammar a moment later (read until they differ).
    const tokens = [token(ring, 'P2P/IPC'), token(net, 'NET/AWS Libfabric/0'), spanWith(ring, 'ip-172-32-36-209')];
    let colours: string[] = [];
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 250))) {
      colours = await Promise.all(tokens.map(colourOf));
      if (new Set(colours).size === colours.length || Date.now() > deadline) break;
    }
    assert.strictEqual(new Set(colours).size, colours.length, `tokens share a colour: ${colours.join(', ')}`);
    // "NCCL INFO" is on every line: it recedes with the header (a comment's colour), so colour marks meaning, not every line.
    await sameColour(spanWith(ring, 'INFO'), tokens[2], 'INFO is coloured as the header');
    assert.notStrictEqual(await colourOf(token(warn, 'WARN')), await colourOf(spanWith(ring, 'INFO')), 'WARN stands out from INFO');
    assert.notStrictEqual(await colourOf(spanWith(ring, 'INFO')), colours[1], 'INFO is not coloured as a connection without GDRDMA');
    withoutGdrdmaColour = colours[1];
    await workbench.tab.locator('.markers-panel .monaco-list-row', { hasText: "NCCL WARN: NET/OFI Couldn't open AV" }).first().waitFor();
    await workbench.screenshot('nccl-log-02-colours-and-warn');
  });

  it('one Problems entry per cause, an error as the summary says: the HCA line, every other line of it as related information', async function () {
    await workbench.openFile('no-module-channels.log');
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    await workbench.runCommand('Problems: Focus on Problems View');
    const entry = workbench.tab
      .locator('.markers-panel .monaco-list-row', {
        hasText: /GPU Direct RDMA disabled for HCA mlx5_1 \(no module\)/,
      })
      .first();
    await entry.waitFor();
    assert.strictEqual(await entry.locator('.codicon-error').count(), 1, 'an error, as nccl-log.no-gdrdma in the summary');
    // Its other lines are rows of related information under it: the other HCAs, the connections left without GDRDMA.
    await workbench.tab
      .locator('.markers-panel .monaco-list-row', {
        hasText: /no-module-channels\.log\[Ln \d+, Col \d+\]:?\s*Network connections without GDRDMA/,
      })
      .first()
      .waitFor();
    // The file's row counts one problem: the cause, not its nine lines.
    const file = workbench.tab.locator('.markers-panel .monaco-list-row', { hasText: 'no-module-channels.log' }).first();
    assert.match(await file.innerText(), /\b1\s*$/);
    await workbench.screenshot('nccl-log-02b-problems-one-per-cause');
  });

  it('a real H200 run: one error for "No device found" (both ranks\' lines), its hover explains that line, the summary says no-gdr in red', async function () {
    // Closed logs take their entries out of Problems: this log's are the only ones.
    await workbench.runCommand('View: Close All Editors');
    await workbench.openFile(H200);
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    await workbench.runCommand('Problems: Focus on Problems View');
    const rows = workbench.tab.locator('.markers-panel .monaco-list-row');
    const entry = rows.filter({ hasText: /NET\/IB : No device found: NCCL saw no usable RDMA device/ }).first();
    await entry.waitFor();
    assert.strictEqual(await entry.locator('.codicon-error').count(), 1, 'an error, as nccl-log.no-gdrdma in the summary');
    // The same line of the other rank is related information, not a second entry.
    await rows
      .filter({ hasText: new RegExp(`${H200.replace('.', '\\.')}\\[Ln 30, Col \\d+\\]`) })
      .first()
      .waitFor();
    // Two causes: no RDMA device, and the rings NCCL connected without GDR (the "NET/IB : Using [RO]" line is none).
    assert.match(await rows.filter({ hasText: H200 }).first().innerText(), /\b2\s*$/);
    await workbench.screenshot('nccl-log-02c-h200-problems');
    const line = editorLine('NCCL INFO NET/IB : No device found.');
    await revealLineEnd(line);
    const hover = hoverWidget('No RDMA device for this net');
    await hoverUntilShown(workbench, spanWith(line, 'No device found'), hover);
    assert.doesNotMatch(await hover.innerText(), /mlx5_0:1\/IB/, 'it explains this line, not a device list');
    await workbench.screenshot('nccl-log-02d-h200-hover-no-device');
    await workbench.tab.keyboard.press('Escape');
    await workbench.tab.mouse.move(0, 0);
    await workbench.runCommand('GPUDirect RDMA: Analyze NCCL Log');
    await workbench.tab.locator('.part.editor .tab', { hasText: `${H200} (NCCL summary).txt` }).waitFor();
    const verdict = summaryLine('Verdict: no-gdr:', false);
    await verdict.waitFor();
    // Coloured by meaning: the verdict as the other "no GDR" states ("0 of 8 GDRDMA"), its label as plain text.
    const zero = workbench.tab
      .locator('.part.editor .editor-group-container')
      .last()
      .locator('.view-line span > span', { hasText: spaced('0 of 8 GDRDMA') })
      .first();
    // Monaco paints the tokens when the grammar has run, redrawing the lines: wait for the two to agree.
    await sameColour(spanWith(verdict, 'no-gdr'), zero, 'no-gdr is coloured as "0 of 8 GDRDMA"');
    await sameColour(spanWith(verdict, 'Verdict:'), spanWith(verdict, 'GPU Direct RDMA on'), 'the label is plain');
    assert.notStrictEqual(await colourOf(spanWith(verdict, 'Verdict:')), await colourOf(spanWith(verdict, 'no-gdr')));
    await workbench.screenshot('nccl-log-02e-h200-summary');
    await workbench.runCommand('View: Close All Editors');
  });

  it('shows the summary lens at the top: the verdict and how many network connections used GPU Direct RDMA', async function () {
    await workbench.openFile('roce-channels.log');
    const lens = workbench.tab.locator('.part.editor .codelens-decoration', { hasText: 'GPU Direct RDMA on 32 of 32 network connections' });
    await lens.waitFor();
    assert.match(
      await lens.innerText(),
      /NCCL \(version not in the log\) · GDR on every network connection: GPU Direct RDMA on 32 of 32 network connections · 1 host, 8 ranks/,
    );
    await workbench.screenshot('nccl-log-03-summary-lens');
  });

  it('hovering /GDRDMA and P2P/IPC explains them and names the NCCL source that prints them', async function () {
    const line = editorLine('Channel 06/0 : 7[7] -> 14[6] [receive] via NET/IB/6/GDRDMA');
    await revealLineEnd(line);
    assert.notStrictEqual(
      await colourOf(token(line, '/GDRDMA')),
      withoutGdrdmaColour,
      'a connection through GDRDMA is not coloured as one without',
    );
    await token(line, '/GDRDMA').hover();
    const gdr = hoverWidget('GPU Direct RDMA: the NIC reads and writes');
    await gdr.waitFor();
    assert.match(await gdr.innerText(), /Printed by NVIDIA\/nccl src\/transport\/net\.cc/);
    assert.match(await gdr.innerText(), /Channel connection/);
    await workbench.screenshot('nccl-log-04-hover-gdrdma');
    await workbench.tab.keyboard.press('Escape');
    await workbench.tab.mouse.move(0, 0);
    await workbench.openFile('efa-ring.txt');
    const ring = editorLine('Ring 00 : 26[2] -> 30[6] via P2P/IPC');
    await revealLineEnd(ring);
    await token(ring, 'P2P/IPC').hover();
    const ipc = hoverWidget('CUDA IPC handle');
    await ipc.waitFor();
    assert.match(await ipc.innerText(), /Printed by NVIDIA\/nccl src\/transport\/p2p\.cc/);
    await workbench.screenshot('nccl-log-05-hover-p2p-ipc');
    await workbench.tab.keyboard.press('Escape');
  });

  it('Analyze NCCL Log opens beside the log the summary gdr-doctor nccl-log prints for the same file', async function () {
    await workbench.runCommand('View: Close All Editors');
    await workbench.openFile('roce-channels.log');
    await workbench.runCommand('GPUDirect RDMA: Analyze NCCL Log');
    await workbench.tab.locator('.part.editor .tab', { hasText: 'roce-channels.log (NCCL summary).txt' }).waitFor();
    const cli = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist/cli.js'), 'nccl-log', 'roce-channels.log'], {
      cwd: workspace,
      encoding: 'utf8',
    });
    assert.strictEqual(cli.status, 0, cli.stderr);
    const [first, second] = cli.stdout.split('\n');
    // Wrapped: each line of the CLI's text starts a line of the summary.
    await summaryLine(first.slice(0, 30), false).waitFor();
    await summaryLine(second.slice(0, 30), false).waitFor();
    // The summary quotes NCCL's lines but is not a log: its own language (wrapped, coloured by verdict), no marks.
    await languageStatus().filter({ hasText: 'NCCL Log Summary' }).waitFor();
    // Readable beside the log: the window's two halves, not a narrow column.
    const widths = await workbench.tab
      .locator('.part.editor .editor-group-container')
      .evaluateAll((groups) => groups.map((g) => g.getBoundingClientRect().width));
    assert.strictEqual(widths.length, 2);
    assert.ok(Math.abs(widths[0] - widths[1]) < 20, `editor groups ${widths.join(' / ')} px`);
    await workbench.screenshot('nccl-log-06-analyze-summary');
    // Each quoted log line is a link to it. The quotes are further down (the editor draws only the lines in view): go there.
    await workbench.tab.keyboard.press('Control+End');
    const ref = workbench.tab
      .locator('.part.editor .monaco-editor .view-line .detected-link', { hasText: /^roce-channels\.log:\d+$/ })
      .first();
    const target = Number((await ref.innerText()).split(':')[1]);
    // Monaco redraws the lines while it settles after the jump (a click then lands on nothing and the
    // link is drawn anew): a new try, from a mouse moved away, finds the link where it stays.
    for (let attempt = 1; ; attempt++) {
      try {
        await ref.click({ modifiers: ['ControlOrMeta'], timeout: 10_000 });
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        await workbench.tab.mouse.move(0, 0);
      }
    }
    await workbench.tab.locator('.part.statusbar', { hasText: new RegExp(`Ln ${target},`) }).waitFor();
    await workbench.runCommand('View: Close All Editors');
  });

  // The demo host as first opened has nvidia_peermem unloaded: gdr-doctor predicts no GDR, the log used GDRDMA throughout.
  it('Compare NCCL Log with Host: the demo host, diagnosed on the way, gets an "NCCL log" group with nccl.gdr-not-predicted', async function () {
    this.timeout(120_000);
    await workbench.runCommand('GPUDirect RDMA: Open Demo Host');
    // It is diagnosed and revealed at once: Quick Open waits for that, which would close it.
    await sidebar()
      .locator('.monaco-list-row', { hasText: /^Diagnosed / })
      .first()
      .waitFor();
    await workbench.openFile('roce-channels.log');
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor();
    await workbench.runCommand('GPUDirect RDMA: Compare NCCL Log with Host…');
    await workbench.pick(DEMO);
    const group = row('NCCL log');
    await group.waitFor({ timeout: 60_000 });
    assert.match(await group.innerText(), /roce-channels\.log · 1 finding/);
    await setExpanded(group, true);
    await sidebar()
      .locator('.monaco-list-row[aria-label$=", nccl.gdr-not-predicted"]', { hasText: 'GDR used, not predicted' })
      .first()
      .waitFor();
    await sidebar()
      .locator('.monaco-list-row', { hasText: /GPU0.*log: GDRDMA on 4 of 4 network connections via NET\/IB\/0/ })
      .first()
      .waitFor();
    // The comparison lens follows the summary lens on line 1. VS Code asks the provider again when it
    // says the lenses changed, but draws the new ones only once the editor's viewport moves (the
    // behaviour of microsoft/vscode#116510; reopening the file shows them at once too): move it as a
    // reader would. In a narrow editor the lens lies past the right edge (Monaco clips the lens line),
    // so it is looked for in the DOM, not on screen.
    const compared = workbench.tab.locator('.part.editor .codelens-decoration', { hasText: `Compared with ${DEMO}: 1 finding` });
    // The viewport is moved with the keyboard (the end, then line 1): a click or the wheel lands
    // wherever the log was last scrolled to, and a click on the lines may scroll it itself.
    await workbench.runCommand('View: Focus Active Editor Group');
    for (const deadline = Date.now() + 60_000; (await compared.count()) === 0;) {
      assert.ok(Date.now() < deadline, 'the comparison lens never appeared on line 1');
      await workbench.tab.keyboard.press('Control+End');
      await workbench.tab.keyboard.press('Control+Home');
      await new Promise((r) => setTimeout(r, 500));
    }
    await workbench.screenshot('nccl-log-07-compared-with-demo');
  });

  it(`a ${LIVE_MB} MB log in the editor: its live marks stop after ${LIVE_LIMIT_MB} MB, and Problems says so on line 1`, async function () {
    this.timeout(300_000);
    await openLarge(LIVE);
    await languageStatus().filter({ hasText: LANGUAGE }).waitFor({ timeout: 120_000 });
    await workbench.runCommand('Problems: Focus on Problems View');
    const filter = workbench.tab.getByPlaceholder(/^Filter \(e\.g\. text/);
    await filter.fill('Read the first');
    const problem = workbench.tab
      .locator('.markers-panel .monaco-list-row', { hasText: `Read the first ${LIVE_LIMIT_MB} MB only` })
      .first();
    await problem.waitFor({ timeout: 120_000 });
    assert.match(await problem.innerText(), /nothing past line \d+ is marked; Analyze NCCL Log reads the whole file.*\[Ln 1, Col 1\]/s);
    await workbench.screenshot('nccl-log-08-live-limit-problem');
    await filter.fill('');
  });

  it(`reads a ${BIG_MB} MB log of a 1,024-rank job from disk with a progress notification, VS Code staying responsive`, async function () {
    this.timeout(300_000);
    await openLarge(BIG);
    await workbench.runCommand('GPUDirect RDMA: Analyze NCCL Log');
    await workbench.tab
      .locator('.notification-toast', { hasText: `Reading the NCCL log ${BIG}` })
      .first()
      .waitFor();
    await workbench.screenshot('nccl-log-09-big-log-progress');
    await workbench.tab.locator('.part.editor .tab', { hasText: `${BIG} (NCCL summary).txt` }).waitFor({ timeout: 240_000 });
    // Wrapped: the headline's words, as they come, across the lines it wraps to.
    await workbench.tab
      .locator('.part.editor .editor-group-container')
      .last()
      .locator('.view-lines', { hasText: spaced(`${HOSTS} hosts, ${HOSTS * GPUS_PER_HOST} ranks seen`) })
      .waitFor();
    await workbench.screenshot('nccl-log-10-big-log-summary');
    assert.doesNotMatch(workbench.extensionHostLog(), /unresponsive/i);
  });

  /** Opens a big file as a user does: past VS Code's "very large" page (Open Anyway). */
  async function openLarge(name: string): Promise<void> {
    await workbench.openFile(name);
    const openAnyway = workbench.tab.locator('.part.editor .monaco-button', { hasText: 'Open Anyway' }).first();
    await openAnyway.click();
    await openAnyway.waitFor({ state: 'hidden', timeout: 120_000 });
  }

  /**
   * Puts the cursor at the end of `line` so that VS Code scrolls it into view itself (a scroll Playwright makes, Monaco
   * does not follow).
   */
  async function revealLineEnd(line: Locator): Promise<void> {
    await line.locator('span > span').first().click();
    await workbench.tab.keyboard.press('End');
  }

  function languageStatus(): Locator {
    return workbench.tab.locator('.part.statusbar [id="status.editor.mode"]');
  }

  /** A line of the log's editor holding `text` (Monaco shows spaces as no-break spaces). */
  function editorLine(text: string): Locator {
    return workbench.tab
      .locator('.part.editor .monaco-editor .view-lines .view-line')
      .filter({ hasText: spaced(text) })
      .first();
  }

  /** The span that holds `text` among others of the same colour (Monaco joins neighbouring tokens of one style). */
  function spanWith(line: Locator, text: string): Locator {
    return line.locator('span > span', { hasText: text }).first();
  }

  function token(line: Locator, text: string): Locator {
    return line.locator('span > span', { hasText: new RegExp(`^${spaced(text).source}$`) }).first();
  }

  /** A line of an editor that is `text` (`whole`) or starts with it. */
  function summaryLine(text: string, whole = true): Locator {
    return workbench.tab
      .locator('.part.editor .monaco-editor .view-line')
      .filter({ hasText: new RegExp(`^${spaced(text).source}${whole ? '$' : ''}`) })
      .first();
  }

  function spaced(text: string): RegExp {
    return new RegExp(
      text
        .split(' ')
        .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
        .join('\\s'),
    );
  }

  function hoverWidget(text: string): Locator {
    return workbench.tab.locator('.monaco-hover-content', { hasText: text }).first();
  }

  /** Waits until both are painted in one colour (up to the UI timeout); fails with `message` if they never are. */
  async function sameColour(a: Locator, b: Locator, message: string): Promise<void> {
    for (const deadline = Date.now() + 30_000; ;) {
      const [ca, cb] = [await colourOf(a), await colourOf(b)];
      if (ca !== '' && ca === cb) return;
      assert.ok(Date.now() < deadline, `${message}: ${ca} / ${cb}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** A token's colour; read again while Monaco is redrawing the line (a detached span has no computed style: ''). */
  async function colourOf(span: Locator): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const colour = await span.evaluate((el) => (el.isConnected ? getComputedStyle(el).color : ''));
      if (colour !== '' || attempt === 5) return colour;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});
