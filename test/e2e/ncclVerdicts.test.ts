// NCCL's own GPU↔NIC verdicts as a user sees them in a real VS Code (code-server + chromium) on lab
// hosts whose PCI tree the probe reads from sysfs (test/lab/profiles: pxn-port-down, grace-c2c):
// the GPU rows and their tooltips in the Hosts view, the topology panel's per-GPU details and the
// PXN route in its graph, and the verdicts following gdrDoctor.ncclVersion without reconnecting.
import * as assert from 'assert';
import * as path from 'path';
import { FrameLocator, Locator } from 'playwright-core';
import { Lab, startTestLab } from '../lab/lab';
import { CACHE_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, closeAfterSuite } from './workbench';

const PXN = 'gpu-pxn';
const GRACE = 'gpu-grace';
const RECORDS_PATH = path.join(CACHE_DIR, 'lab-nccl.records.json');

describe('NCCL verdicts in a real VS Code (code-server + chromium + SSH lab with sysfs PCI trees)', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  const { row, setExpanded, inline, tooltip, showHosts, diagnose: diagnoseHost } = hostsTree(workbench);
  /** A GPU row: one host is expanded at a time, so its label is unique. */
  const gpuRow = (label: string): Locator => row(label);
  const view = (): FrameLocator => workbench.tab.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [
        { name: PXN, profile: 'pxn-port-down' },
        { name: GRACE, profile: 'grace-c2c' },
      ],
      recordsPath: RECORDS_PATH,
    });
    await workbench.start();
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab.sshConfigPath }, 'machine');
  });

  closeAfterSuite(workbench, 'nccl-', () => lab?.stop());

  async function diagnose(host: string): Promise<void> {
    await diagnoseHost(host);
    await setExpanded(row('GPUs'), true);
  }

  it('GPU1 of the H100 box, its own NIC down, is relayed through GPU0 (PXN) with GPUDirect RDMA', async function () {
    this.timeout(120_000);
    await diagnose(PXN);
    const gpu1 = gpuRow('GPU1');
    await gpu1.filter({ hasText: /GDR yes via GPU0 \(PXN\) · mlx5_0.*\(NODE → NCCL PXN\)/ }).waitFor();
    await tooltip(gpu1, 'NCCL 2.30.7');
    const text = await workbench.tab.locator('.monaco-hover, .workbench-hover', { hasText: 'NCCL 2.30.7' }).first().innerText();
    assert.match(text, /through GPU0 \(PXN: GPU1's own path is PHB/);
    assert.match(text, /mlx5_1:1 \(PIX\) has no active port/);
    assert.match(text, /via NET\/IB\/<n>\(<rank of GPU0>\)\/GDRDMA/);
    await workbench.screenshot('nccl-01-pxn-gpu-row');
  });

  it('the topology panel names the relaying GPU and draws the route through it', async function () {
    await inline(row(PXN), 'Show Topology');
    await view().locator('h1', { hasText: PXN }).waitFor();
    await view().locator('#gpu-picker').selectOption('GPU1');
    await view().locator('.details dd', { hasText: 'GPU0 over NVLink (PXN)' }).waitFor();
    await view().locator('.details dd', { hasText: 'GDR yes via GPU0 (PXN)' }).waitFor();
    await workbench.screenshot('nccl-02-pxn-details');
    await view().locator('#tab-graph').click();
    // SVG paths count as hidden to Playwright: wait for them to be in the graph, not 'visible'.
    await view().locator('svg.graph .pxn-edge').waitFor({ state: 'attached' });
    assert.ok((await view().locator('svg.graph .pcie-edge.route').count()) >= 2, 'GPU1 → GPU0 over NVLink, then GPU0 → the NIC');
    await workbench.screenshot('nccl-03-pxn-graph');
  });

  it("a GB200 tray: nvidia-smi says SYS, NCCL reaches its own Grace's NICs over P2C with GPUDirect RDMA", async function () {
    this.timeout(120_000);
    await workbench.runCommand('View: Close All Editors');
    await showHosts(PXN);
    await setExpanded(row(PXN), false);
    await diagnose(GRACE);
    await gpuRow('GPU0')
      .filter({ hasText: /GDR yes \(C2C\) · .*\(SYS → NCCL P2C\)/ })
      .waitFor();
    await workbench.screenshot('nccl-04-grace-p2c');
  });

  it('follows gdrDoctor.ncclVersion: under NCCL 2.25 the same tray has no GPUDirect RDMA, without reconnecting', async function () {
    const sessionsBefore = lab?.host(GRACE).calls().length ?? 0;
    workbench.updateSettings({ 'gdrDoctor.ncclVersion': '2.25' }, 'machine');
    await gpuRow('GPU0')
      .filter({ hasText: /GDR no · .*\(SYS → NCCL PHB\)/ })
      .waitFor();
    assert.strictEqual(lab?.host(GRACE).calls().length ?? 0, sessionsBefore, 'no command ran on the host again');
    await tooltip(gpuRow('GPU0'), 'NCCL 2.25');
    await workbench.screenshot('nccl-05-grace-nccl-2.25');
    workbench.updateSettings({ 'gdrDoctor.ncclVersion': '' }, 'machine');
    await gpuRow('GPU0')
      .filter({ hasText: /GDR yes \(C2C\)/ })
      .waitFor();
  });
});
