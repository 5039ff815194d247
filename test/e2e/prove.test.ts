// Prove GPUDirect RDMA as a user runs it, in a real VS Code (code-server + chromium) with the
// packaged .vsix, against the SSH lab and its ib_write_bw stand-in (real recordings of perftest):
// from a host's context menu (progress, then a Proof group with one row per GPU against line rate
// and host memory, and the proof in the host's report), between two selected hosts (namespaced
// as two machines), and from a GPU row, cancelled while
// perftest hangs: nothing is left running on the host (read from its process table, not the UI).
import * as assert from 'assert';
import * as path from 'path';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { until } from '../support/until';
import { CACHE_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, closeAfterSuite } from './workbench';

const RECORDS_PATH = path.join(CACHE_DIR, 'lab-prove.records.json');
// Our own network for the pair (each in its own namespace, as two machines): other labs keep theirs.
const NETWORK = { bridge: 'gdrbr18', subnet: 18 };
const PROVE = 'Prove GPUDirect RDMA';

const leftovers = (h: LabHost) => h.processes().filter((p) => /ib_write_bw|numactl|perl -MIO|fakeperftest|sleep/.test(p.args));

describe('Prove GPUDirect RDMA in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(120_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  const { sidebar, row, setExpanded, inline, tooltip, contextMenu } = hostsTree(workbench);
  const toast = (text: string | RegExp) =>
    workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();
  /** The rows under a host's expanded Proof group: each GPU row's label and description. */
  const proofRow = (gpu: string) =>
    sidebar()
      .locator('.monaco-list-row', { has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${gpu}$`) }) })
      .filter({ hasText: / Gb\/s|cancelled|failed/ })
      .first();

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [
        { name: 'pe-ok', profile: 'healthy' },
        { name: 'pe-hang', profile: 'healthy' },
        { name: 'pe-a', profile: 'healthy', netns: true },
        { name: 'pe-b', profile: 'healthy', netns: true },
      ],
      recordsPath: RECORDS_PATH,
      network: NETWORK,
      readyTimeoutMs: 90_000,
    });
    await workbench.start();
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab.sshConfigPath, 'gdrDoctor.connectTimeoutSeconds': 8 }, 'machine');
    await row('pe-ok').waitFor();
  });

  closeAfterSuite(workbench, 'prove-', () => lab?.stop());

  it('measures every GPU of a host from its context menu: progress, then a Proof group against line rate and host memory', async function () {
    const host = lab!.host('pe-ok');
    await contextMenu('pe-ok', PROVE);
    await toast(/Proving GPUDirect RDMA on pe-ok/).waitFor({ timeout: 30_000 });
    await workbench.screenshot('prove-01-progress');
    await toast(/pe-ok: GPUDirect RDMA works on \d+ of \d+ GPUs/).waitFor({ timeout: 90_000 });
    await setExpanded(row('pe-ok'), true);
    await setExpanded(row('Proof'), true);
    const gpu0 = proofRow('GPU0');
    await gpu0.waitFor();
    const text = await gpu0.innerText();
    assert.match(text, /peermem [\d.]+ Gb\/s \(\d+ %\)/, 'the GPU mode against line rate');
    assert.match(text, /host [\d.]+ Gb\/s \(\d+ %\)/, 'host memory beside it');
    await tooltip(gpu0, 'GPUDirect RDMA works at');
    await workbench.screenshot('prove-02-proof-in-tree');
    const calls = host.calls().filter((c) => c.cmd === 'ib_write_bw' && c.args.includes('-p'));
    assert.ok(
      calls.some((c) => c.args.some((a) => a.startsWith('--use_cuda'))),
      'perftest ran with --use_cuda',
    );
    assert.deepStrictEqual(leftovers(host), [], 'nothing left running');
    await setExpanded(row('pe-ok'), false);
  });

  it("shows the selected GPU's proof in the topology panel: a Measured row with the verdict and every mode", async function () {
    await inline(row('pe-ok'), 'Show Topology');
    // VS Code nests the webview's page in an iframe inside the webview's iframe.
    const view = workbench.tab.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await view.locator('.details dt', { hasText: /^Measured$/ }).waitFor();
    const measured = view.locator('.details dd span[class^="proof-"]').first();
    const text = (await measured.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /^GPUDirect RDMA works at \d+ % of line rate/, 'the verdict first');
    assert.match(text, /host [\d.]+ Gb\/s/, 'host memory');
    assert.match(text, /peermem [\d.]+ Gb\/s/, 'the GPU mode');
    assert.match(text, /\(measured /, 'when');
    assert.equal(await measured.getAttribute('class'), 'proof-ok');
    await workbench.screenshot('prove-03-proof-in-panel');
    await workbench.runCommand('View: Close Editor');
  });

  it("puts the proof in the host's report: Copy Report has a table of every GPU and mode", async function () {
    await contextMenu('pe-ok', 'Copy Report (Markdown)');
    await toast('Report of pe-ok copied as Markdown.').waitFor();
    const copied = await workbench.clipboardText();
    assert.match(copied, /^# GPUDirect RDMA report: `pe-ok`\n/);
    assert.match(copied, /^## GPUDirect RDMA proof \(ib_write_bw\)$/m);
    assert.match(copied, /^\| GPU0 \| mlx5\\_0:1 \| peermem \| [\d.]+ \| 200 \| \d+ % \|/m);
    assert.match(copied, /^- `GPU7`: `GPUDirect RDMA works at/m);
  });

  it('measures between two selected hosts: the server on the second, the client on the first, the proof on the first', async function () {
    const [a, b] = [lab!.host('pe-a'), lab!.host('pe-b')];
    await row('pe-a').click();
    await row('pe-b').click({ modifiers: ['Control'] });
    await contextMenu('pe-b', PROVE);
    await toast(/Proving GPUDirect RDMA between pe-a and pe-b/).waitFor({ timeout: 30_000 });
    await toast(/pe-a ↔ pe-b: GPUDirect RDMA works on 8 of 8 GPUs/).waitFor({ timeout: 90_000 });
    await workbench.tab.mouse.move(0, 0);
    await setExpanded(row('pe-a'), true);
    await setExpanded(row('Proof'), true);
    const gpu5 = proofRow('GPU5');
    await tooltip(gpu5, 'pe-a GPU5 mlx5_1:1 → pe-b mlx5_1:1');
    await workbench.screenshot('prove-03-pair');
    const perftest = (h: LabHost) => h.calls().filter((c) => c.cmd === 'ib_write_bw' && c.args.includes('-p'));
    assert.ok(perftest(a).length > 0 && perftest(a).every((c) => c.args[c.args.length - 1] === b.address), 'clients on pe-a, to pe-b');
    assert.ok(perftest(b).length > 0 && perftest(b).every((c) => c.args[c.args.length - 2] === '-p'), 'servers on pe-b');
    assert.deepStrictEqual([...leftovers(a), ...leftovers(b)], [], 'nothing left running');
    await setExpanded(row('pe-a'), false);
  });

  it('proves one GPU from its row and, cancelled while perftest hangs, leaves nothing running on the host', async function () {
    const host = lab!.host('pe-hang');
    await inline(row('pe-hang'), 'Diagnose');
    // The host row's hover (shown after the inline click) would cover the rows below it.
    await workbench.tab.mouse.move(0, 0);
    await setExpanded(row('pe-hang'), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor({ timeout: 60_000 });
    await setExpanded(row('GPUs'), true);
    host.setFault('ib_write_bw', 'hang', 600);
    try {
      await inline(row('GPU5'), PROVE);
      const progress = toast(/Proving GPUDirect RDMA on pe-hang/);
      await progress.waitFor({ timeout: 30_000 });
      await until('perftest hangs on pe-hang', () => leftovers(host).some((p) => /sleep 600/.test(p.args)), 60_000);
      await workbench.screenshot('prove-04-running');
      await progress.hover();
      await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
      await until('nothing left running on pe-hang', () => leftovers(host).length === 0, 15_000);
      await toast(/cancelled: perftest was stopped on every host/).waitFor({ timeout: 30_000 });
      await setExpanded(row('GPUs'), false);
      await setExpanded(row('Proof'), true);
      const gpu5 = proofRow('GPU5');
      assert.match(await gpu5.innerText(), /cancelled/);
      await workbench.screenshot('prove-05-cancelled');
    } finally {
      host.clearFaults();
    }
  });
});
