// The Hosts sidebar as a user drives it, in a real VS Code (code-server + chromium) with the
// packaged .vsix: the empty view's buttons, the demo host diagnosed and read (findings, GPUs, a
// raw output), then real SSH hosts of the lab found through gdrDoctor.sshConfigFile, diagnosed
// from the tree's inline action, and a host whose key changed refused in plain words.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { Lab, startTestLab } from '../lab/lab';
import { CACHE_DIR, RUN_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, closeAfterSuite } from './workbench';
import { until } from '../support/until';

const CONTAINER_TITLE = 'GPUDirect RDMA';
const DEMO_ROW = 'demo-hgx-h100';
const DEMO = 'demo-hgx-h100 (replayed)';
// Our own lab records, one per e2e cache ($GDR_E2E_CACHE): the SSH suite, other e2e files and an
// e2e run with another cache keep theirs.
const RECORDS_PATH = path.join(CACHE_DIR, 'lab-sidebar.records.json');

describe('Hosts sidebar in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;

  const { sidebar, row, findingRow, tooltip, contextMenu } = hostsTree(workbench);
  const rowUnder = (label: string, text: string | RegExp): Locator =>
    sidebar()
      .locator('.monaco-list-row', { hasText: text })
      .filter({ has: workbench.tab.locator('.label-name', { hasText: label }) })
      .first();

  /** Expands a row; the tree re-renders rows when the model changes, so check and retry. */
  async function expand(label: string): Promise<Locator> {
    const r = row(label);
    await r.waitFor();
    for (let attempt = 0; attempt < 5; attempt++) {
      if ((await r.getAttribute('aria-expanded')) === 'true') {
        // The mouse leaves the row: a host row's tooltip (its verdict) would cover the rows below it.
        await workbench.tab.mouse.move(0, 0);
        return r;
      }
      await r.click();
      await workbench.tab.waitForTimeout(300);
    }
    assert.strictEqual(await r.getAttribute('aria-expanded'), 'true', `row "${label}" does not expand`);
    return r;
  }

  async function collapse(label: string): Promise<void> {
    const r = row(label);
    if ((await r.getAttribute('aria-expanded')) === 'true') await r.click();
  }

  async function diagnoseInline(label: string): Promise<void> {
    const r = row(label);
    await r.hover();
    await r.locator('.actions .action-label[aria-label="Diagnose"]').click();
  }

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [
        { name: 'gpu-nopeermem', profile: 'no-peermem' },
        { name: 'gpu-rekeyed', profile: 'healthy' },
      ],
      recordsPath: RECORDS_PATH,
    });
    await workbench.start();
  });

  closeAfterSuite(workbench, 'sidebar-', () => lab?.stop());

  it('offers Add Host, Open Demo Host and This Machine in the empty view', async function () {
    await workbench.activityBarItem(CONTAINER_TITLE).click();
    const welcome = sidebar().locator('.welcome-view-content');
    await welcome.filter({ hasText: 'No hosts yet.' }).waitFor();
    await welcome.locator('.monaco-button', { hasText: 'Open Demo Host' }).first().waitFor();
    for (const link of ['Add Host…', 'Diagnose This Machine']) await welcome.locator('a', { hasText: link }).first().waitFor();
    await workbench.screenshot('sidebar-01-welcome');
  });

  it('opens the demo host from the welcome button and diagnoses it at once (it needs no network)', async function () {
    await sidebar().locator('.welcome-view-content .monaco-button', { hasText: 'Open Demo Host' }).first().click();
    await expand(DEMO_ROW);
    await rowUnder('Diagnosed', /Diagnosed .* in /).waitFor();
    await workbench.screenshot('sidebar-02-demo-listed');
  });

  it("shows the demo host's findings (errors first, known ids) and GPUs with GDR verdicts", async function () {
    await expand('Findings');
    // A few words each, the state first; the id is in the tooltip (and the row's accessible name).
    for (const [label, id] of [
      ['peermem not loaded', 'peermem.not-loaded'],
      ['No active port on mlx5_1', 'rdma.port-down'],
      ['peermem not at boot', 'peermem.not-persistent'],
    ])
      await findingRow(id)
        .filter({ has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) })
        .waitFor();
    await workbench.screenshot('sidebar-03-demo-findings');
    // The tooltip carries the detail and the evidence, as text.
    await tooltip(row('No active port on mlx5_1'), 'ibv_devinfo');
    await workbench.screenshot('sidebar-04-finding-tooltip');
    await collapse('Findings');
    await expand('GPUs');
    // Without peer memory (the proprietary driver: no dma-buf either) NCCL stages GPU0's traffic through
    // the CPU. The verdict comes first, so the sidebar's default width shows it.
    await rowUnder('GPU0', 'GDR no · mlx5_0 +2 (PIX → NCCL PHB)').waitFor();
    // NUMA node, model and bus address are in the tooltip.
    await tooltip(row('GPU0'), '00000000:18:00.0');
    await workbench.screenshot('sidebar-05-demo-gpus');
    await collapse('GPUs');
  });

  it('opens a raw output as a read-only document', async function () {
    await expand('Raw outputs');
    await row('nvidia-smi topo -m').click();
    const editor = workbench.tab.locator('.editor-group-container .monaco-editor .view-lines');
    await editor.filter({ hasText: 'NIC Legend' }).first().waitFor();
    const tab = workbench.tab.locator('.tabs-container .tab', { hasText: `nvidia-smi topo -m — ${DEMO}` });
    await tab.first().waitFor();
    await workbench.screenshot('sidebar-06-raw-output');
    await collapse('Raw outputs');
    await collapse(DEMO_ROW);
  });

  it('lists the hosts of gdrDoctor.sshConfigFile (the lab) and diagnoses one from the tree', async function () {
    this.timeout(120_000);
    // gdrDoctor.sshConfigFile is machine-scoped: code-server reads it from its Machine settings.
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab?.sshConfigPath }, 'machine');
    await row('gpu-nopeermem').waitFor();
    await row('gpu-rekeyed').waitFor();
    await row('This machine').waitFor();
    await workbench.screenshot('sidebar-07-lab-hosts');
    await diagnoseInline('gpu-nopeermem');
    await expand('gpu-nopeermem');
    await rowUnder('Diagnosed', /Diagnosed .* in /).waitFor({ timeout: 60_000 });
    await expand('Findings');
    // The lab's seed topology: GPU4-7 reach every NIC only over SYS.
    await findingRow('topo.nic-far').waitFor();
    await workbench.screenshot('sidebar-08-lab-findings');
    const calls = lab?.host('gpu-nopeermem').calls() ?? [];
    assert.ok(
      calls.some((c) => c.cmd === 'nvidia-smi'),
      'the probe ran on the lab host',
    );
    await collapse('Findings');
    await collapse('gpu-nopeermem');
  });

  it("Copy Report puts the host's Markdown report on the clipboard", async function () {
    await contextMenu('gpu-nopeermem', 'Copy Report (Markdown)');
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: 'Report of gpu-nopeermem copied as Markdown.' })
      .first()
      .waitFor();
    const copied = await workbench.clipboardText();
    assert.match(copied, /^# GPUDirect RDMA report: `gpu-nopeermem`\n/);
    assert.match(copied, /^### Warning: .*\(`topo\.nic-far`\)$/m);
    assert.match(copied, /^\| GPU4 \| /m);
    // Pasted where a user would paste it: an untitled editor shows the same text.
    await workbench.runCommand('File: New Untitled Text File');
    await workbench.tab.locator('.part.editor .tab.active', { hasText: 'Untitled' }).waitFor();
    await workbench.tab.keyboard.press('Control+V');
    const editor = workbench.tab.locator('.editor-group-container .monaco-editor .view-lines');
    // The editor scrolls to the end of what was pasted; then back to the top for the screenshot.
    await editor.filter({ hasText: 'Suggested environment' }).first().waitFor();
    await workbench.tab.keyboard.press('Control+Home');
    await editor.filter({ hasText: 'GPUDirect RDMA report:' }).first().waitFor();
    await workbench.screenshot('sidebar-09-report-copied-and-pasted');
    await workbench.runCommand('View: Revert and Close Editor');
  });

  it('Export Report writes the report as Markdown and as JSON', async function () {
    const workspace = path.join(RUN_DIR, 'workspace');
    const exported = (file: string) =>
      workbench.tab
        .locator('.notifications-toasts .notification-list-item', { hasText: `Report of gpu-nopeermem exported to ${file}` })
        .first()
        .waitFor();
    const md = path.join(workspace, 'gdr-doctor-gpu-nopeermem.md');
    const json = path.join(workspace, 'gdr-doctor-gpu-nopeermem.json');
    // code-server's save dialog is VS Code's own: a quick input holding the proposed path.
    const savePath = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    await contextMenu('gpu-nopeermem', 'Export Report…');
    // The dialog fills in the folder first, then the proposed name.
    await workbench.tab.waitForFunction(
      (want) => document.querySelector<HTMLInputElement>('.quick-input-widget .quick-input-box input')?.value === want,
      md,
    );
    await workbench.screenshot('sidebar-10-export-dialog');
    await savePath.press('Enter');
    // VS Code creates the file, then writes it: read it once the extension says it was written.
    await exported(md);
    assert.match(fs.readFileSync(md, 'utf8'), /^# GPUDirect RDMA report: `gpu-nopeermem`\n[\s\S]*\(`topo\.nic-far`\)/);
    await contextMenu('gpu-nopeermem', 'Export Report…');
    await workbench.tab.waitForFunction(
      (want) => document.querySelector<HTMLInputElement>('.quick-input-widget .quick-input-box input')?.value === want,
      md,
    );
    // The dialog may still be settling its proposed name: type the path until it stays typed.
    for (let i = 0; i < 20 && (await savePath.inputValue()) !== json; i++) {
      await savePath.fill(json);
      await workbench.tab.waitForTimeout(250);
    }
    assert.strictEqual(await savePath.inputValue(), json);
    await savePath.press('Enter');
    await exported(json);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as {
      host: string;
      target: { port: number } | null;
      findings: { id: string }[];
    };
    assert.strictEqual(report.host, 'gpu-nopeermem');
    assert.strictEqual(report.target?.port, lab?.host('gpu-nopeermem').port);
    assert.ok(
      report.findings.some((f) => f.id === 'topo.nic-far'),
      JSON.stringify(report.findings.map((f) => f.id)),
    );
  });

  it("Disconnect closes the host's SSH connection: its session ends on the host", async function () {
    const host = lab?.host('gpu-nopeermem');
    assert.ok(host);
    const sessions = () => host.processes().filter((p) => /^sshd: gdr/.test(p.args));
    assert.ok(sessions().length > 0, 'the diagnose left its connection open in the pool');
    await contextMenu('gpu-nopeermem', 'Disconnect');
    await until('the host has no SSH session left', () => sessions().length === 0);
    await workbench.screenshot('sidebar-11-disconnected');
  });

  it('cancels a hanging diagnose: the connection closes, the host stops, the last result stays', async function () {
    const host = lab?.host('gpu-nopeermem');
    assert.ok(host);
    host.setFault('nvidia-smi', 'hang', 300);
    const hung = () => host.processes().filter((p) => / nvidia-smi /.test(` ${p.args} `) || /^sleep 300$/.test(p.args));
    try {
      await diagnoseInline('gpu-nopeermem');
      const progress = workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: 'Diagnosing gpu-nopeermem' });
      await progress.first().waitFor();
      const statusBar = workbench.tab.locator('.part.statusbar', { hasText: 'GPUDirect RDMA: diagnosing gpu-nopeermem' });
      await statusBar.waitFor();
      await until('the hung command runs on the lab host', () => hung().length > 0);
      await workbench.screenshot('sidebar-12-diagnose-hanging');
      await progress.first().hover();
      await progress.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
      await until('nothing of the probe is left on the lab host', () => hung().length === 0);
      await statusBar.waitFor({ state: 'detached' });
      await expand('gpu-nopeermem');
      await rowUnder('Diagnosed', /Diagnosed .* in /).waitFor();
      await workbench.screenshot('sidebar-13-diagnose-cancelled');
      await collapse('gpu-nopeermem');
    } finally {
      host.clearFaults();
    }
  });

  it('refuses a host whose key changed, and says so', async function () {
    await lab?.host('gpu-rekeyed').rotateHostKey();
    await diagnoseInline('gpu-rekeyed');
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item', {
      hasText: 'REMOTE HOST IDENTIFICATION HAS CHANGED',
    });
    await toast.first().waitFor();
    await toast.locator('.monaco-button', { hasText: 'Show Log' }).first().waitFor();
    await expand('gpu-rekeyed');
    await rowUnder('Refused', /Refused: host key not trusted/).waitFor();
    await workbench.screenshot('sidebar-14-host-key-changed');
    const calls = lab?.host('gpu-rekeyed').calls() ?? [];
    assert.deepStrictEqual(calls, [], 'nothing ran on a host whose key changed');
  });

  it('adds a host by hand (stored in settings, nothing connects) and removes it', async function () {
    await workbench.runCommand('GPUDirect RDMA: Add Host…');
    const input = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill('gdr@gpu-added.invalid:2222');
    await input.press('Enter');
    await row('gdr@gpu-added.invalid:2222').waitFor();
    await rowUnder('gdr@gpu-added.invalid:2222', 'added').waitFor();
    await workbench.screenshot('sidebar-15-host-added');
    await contextMenu('gdr@gpu-added.invalid:2222', 'Remove Host');
    await row('gdr@gpu-added.invalid:2222').waitFor({ state: 'detached' });
    await workbench.screenshot('sidebar-16-host-removed');
  });
});
