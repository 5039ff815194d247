// The extension in Simplified Chinese, as a user who set VS Code's display language sees it (code-server
// `--locale zh-cn`; VS Code's own words stay English without a language pack, the extension's follow the
// locale): the palette's command titles, the Hosts view with the demo host's rows, and the topology
// panel (its own words come from the bundle the extension sends the webview).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { FrameLocator, Locator } from 'playwright-core';
import { REPO_ROOT, RUN_DIR } from './environment';
import { hostsTree, visibleText } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

/** The demo's row: its name alone ("回放", replayed, follows the verdict); where a host is named, its label. */
const DEMO_ROW = 'demo-hgx-h100';
const DEMO = 'demo-hgx-h100（回放）';
/** Any CJK ideograph: shown text that is Chinese. */
const HAN = /\p{Script=Han}/u;
/** The project's own H200 run (nccl-tests with NCCL 2.28.9's INFO lines, NET/Socket), as a workspace file. */
const H200_LOG = 'h200-all-reduce.txt';

describe('the extension in Chinese (code-server --locale zh-cn)', function () {
  this.timeout(90_000);
  const workbench = new Workbench({}, { locale: 'zh-cn' });
  const { sidebar, row, findingRow, setExpanded, inline } = hostsTree(workbench);
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');
  /** Terminal columns, as the sidebar gives them: a CJK character takes two. */
  const columns = (text: string) => [...text].reduce((n, ch) => n + (HAN.test(ch) ? 2 : 1), 0);
  /** The webview's page: VS Code nests it in an iframe inside the webview's iframe. */
  const view = (): FrameLocator => workbench.tab.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
    const log = path.join(REPO_ROOT, 'test/fixtures/nccl-tests/h200-nccl2.28.9-all_reduce-2nodes-socket.txt');
    fs.copyFileSync(log, path.join(RUN_DIR, 'workspace', H200_LOG));
  });

  afterEach(screenshotFailures(workbench, 'l10n-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
  });

  it('the Hosts view in Chinese: the welcome text, the demo opened from the palette by its Chinese title, its rows', async function () {
    await workbench.activityBarItem('GPUDirect RDMA').click();
    // The Hosts view's welcome (the Clusters view below has one of its own).
    const welcome = sidebar().locator('.welcome-view-content').first();
    await welcome.locator('.monaco-button', { hasText: '打开演示主机' }).first().waitFor();
    assert.match(await welcome.innerText(), /还没有主机/);
    await workbench.screenshot('l10n-01-welcome-zh-cn');
    await workbench.runCommand('GPUDirect RDMA: 打开演示主机');
    await setExpanded(row(DEMO_ROW), true);
    // The time as Chinese writes it: a 24-hour clock, no AM/PM.
    await sidebar()
      .locator('.monaco-list-row', { hasText: /^诊断于 \d{1,2}:\d{2}:\d{2}，用时 / })
      .first()
      .waitFor();
    for (const group of ['诊断结果', '网卡', '模块', '原始输出']) await row(group).waitFor();
    assert.match(await sidebar().locator('.pane-header', { hasText: '主机' }).first().innerText(), /主机/);
    await setExpanded(row('模块'), true);
    await row('nvidia_peermem 已加载').waitFor();
    await setExpanded(row('模块'), false);
    // The verdict in the first 25 columns of each row, "回放" (replayed) after it, in Chinese.
    await sidebar()
      .locator('.monaco-list-row', { hasText: /^诊断于/ })
      .first()
      .click();
    await workbench.tab.mouse.move(0, 0);
    const host = await visibleText(row(DEMO_ROW));
    assert.match(host, /^demo-hgx-h100 peermem 未/, host);
    assert.match(await row(DEMO_ROW).locator('.label-description').innerText(), /^peermem 未加载 · 回放$/);
    await setExpanded(row('诊断结果'), true);
    await workbench.tab.mouse.move(0, 0);
    for (const id of ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent']) {
      const label = await findingRow(id).locator('.label-name').innerText();
      assert.ok(columns(label) <= 25 && HAN.test(label), `${id}: "${label}"`);
      assert.ok((await visibleText(findingRow(id))).startsWith(label), `${id}: "${label}" is cut off`);
    }
    await workbench.screenshot('l10n-02-hosts-tree-zh-cn');
  });

  it('a finding in Chinese: a click opens its details; its fix is confirmed in one line, "模拟" once, the plan one click away', async function () {
    await findingRow('peermem.not-loaded').click();
    await workbench.tab.locator('.part.editor .tab.active', { hasText: `nvidia_peermem 未加载 — ${DEMO}` }).waitFor();
    const details = (await workbench.tab.locator('.part.editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    for (const heading of ['含义与处理办法', '快速修复', '证据', '依据']) assert.ok(details.includes(heading), heading);
    await workbench.screenshot('l10n-02b-finding-details-zh-cn');
    await workbench.runCommand('View: Close All Editors');
    await inline(findingRow('peermem.not-loaded'), '修复：加载 peer memory 模块 (load-peermem)');
    await dialog().waitFor();
    const question = (await dialog().locator('.dialog-message-container').innerText()).trim();
    assert.strictEqual(question, `在 ${DEMO} 上运行 \`sudo modprobe nvidia_peermem\`？模拟：不会在任何机器上运行。`);
    assert.strictEqual((await dialog().innerText()).match(/模拟/g)?.length, 1);
    await dialog()
      .locator('.monaco-button', { hasText: /^显示计划$/ })
      .click();
    await workbench.tab.locator('.part.editor .tab', { hasText: 'load-peermem.txt' }).first().waitFor();
    const plan = await workbench.tab.locator('.part.editor .view-lines').first().innerText();
    assert.match(plan, /重置演示主机/, 'the plan names the menu item as the menu does');
    assert.doesNotMatch(plan, /Reset Demo Host/);
    await dialog().waitFor();
    await workbench.screenshot('l10n-02c-fix-confirmation-zh-cn');
    await workbench.tab.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await workbench.runCommand('View: Close All Editors');
    await setExpanded(row('诊断结果'), false);
  });

  it('the topology panel in Chinese: title, tabs, GPU details, the graph', async function () {
    const host = row(DEMO_ROW);
    await host.hover();
    await host.locator('.actions .action-label[aria-label="显示拓扑"]').click();
    await view().locator('h1', { hasText: DEMO }).waitFor();
    // The host's verdict first, in Chinese, with its fix one click away.
    await view().locator('#banner .banner-text', { hasText: '8 块 GPU 中有 8 块的 GPUDirect RDMA 关闭：nvidia_peermem 未加载' }).waitFor();
    await view().locator('#banner button', { hasText: '显示修复' }).waitFor();
    await view().locator('.legends .legend-heading', { hasText: '本主机上的 GPU ↔ 网卡：' }).waitFor();
    await view()
      .locator('.source', { hasText: /^诊断于 \d{4}\/\d{1,2}\/\d{1,2} / })
      .waitFor();
    await view().locator('button[role="tab"]', { hasText: '矩阵' }).waitFor();
    await view().locator('h3', { hasText: '建议的作业环境（整台主机）' }).waitFor();
    const details = await view().locator('section.details').innerText();
    assert.match(details, /NCCL 使用的网卡/);
    assert.match(details, /NUMA 节点/);
    await workbench.tab.locator('.tab.active', { hasText: '拓扑：' }).waitFor();
    await workbench.screenshot('l10n-03-topology-matrix-zh-cn');
    await view().locator('button[role="tab"]', { hasText: '图' }).click();
    await view().locator('svg.graph').waitFor();
    await view().locator('.caption', { hasText: '从 sysfs 读取的 PCIe 树' }).waitFor();
    const legend = await view().locator('ul.graph-legend').innerText();
    assert.match(legend, /PCIe 链路（速率、宽度）/);
    assert.match(legend, HAN);
    await workbench.screenshot('l10n-04-topology-graph-zh-cn');
  });

  it('the Getting Started walkthrough in Chinese: its title and steps', async function () {
    await workbench.runCommand('GPUDirect RDMA: 入门');
    const page = workbench.tab.locator('.gettingStartedContainer', { hasText: 'GPUDirect RDMA Doctor 入门' });
    await page.waitFor();
    await page.locator('button.getting-started-step', { hasText: '打开演示主机' }).first().waitFor();
    await page.locator('button.getting-started-step', { hasText: '诊断一个集群' }).first().waitFor();
    await workbench.screenshot('l10n-05-walkthrough-zh-cn');
  });

  it('Add Host in Chinese: a name starting with "-" is refused as ssh refuses it; user@:22 names no host', async function () {
    await workbench.runCommand('GPUDirect RDMA: 添加主机…');
    const input = workbench.tab.locator('.quick-input-widget .quick-input-box input');
    const message = workbench.tab.locator('.quick-input-widget .quick-input-message');
    await input.fill('-oProxyCommand=x');
    await message.filter({ hasText: '主机名或用户名不能以“-”开头' }).waitFor();
    await input.fill('user@:22');
    await message.filter({ hasText: '没有主机名' }).waitFor();
    await workbench.screenshot('l10n-06-add-host-refused-zh-cn');
    await workbench.tab.keyboard.press('Escape');
  });

  it('an NCCL log in Chinese: one error per cause in Problems, and the Analyze summary beside it with its verdict coloured', async function () {
    await workbench.openFile(H200_LOG);
    await workbench.runCommand('Problems: Focus on Problems View');
    const entry = workbench.tab
      .locator('.markers-panel .monaco-list-row', { hasText: 'NET/IB : No device found: NCCL 没有看到可用的 RDMA 设备' })
      .first();
    await entry.waitFor();
    assert.strictEqual(await entry.locator('.codicon-error').count(), 1);
    await workbench.screenshot('l10n-07-nccl-log-problems-zh-cn');
    await workbench.runCommand('GPUDirect RDMA: 分析 NCCL 日志');
    await workbench.tab.locator('.part.editor .tab', { hasText: `${H200_LOG} (NCCL summary).txt` }).waitFor();
    const verdict = workbench.tab
      .locator('.part.editor .view-line')
      .filter({ hasText: /^结论：no-gdr：/ })
      .first();
    await verdict.waitFor();
    const colour = (l: Locator): Promise<string> => l.evaluate((el) => getComputedStyle(el).color);
    const span = (line: Locator, text: string): Locator => line.locator('span > span', { hasText: text }).first();
    const zero = workbench.tab
      .locator('.part.editor .editor-group-container')
      .last()
      .locator('.view-line')
      .filter({ hasText: /0\s个为\sGDRDMA/ })
      .first();
    // Coloured by meaning in Chinese too: the verdict as "8 个中 0 个为 GDRDMA" (no GDR), the label 结论 as plain text.
    // Monaco paints the tokens when the grammar has run, redrawing the lines: wait for the two to agree.
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 250))) {
      const [noGdr, zeroOf8] = [await colour(span(verdict, 'no-gdr')), await colour(span(zero, 'GDRDMA'))];
      if (noGdr !== '' && noGdr === zeroOf8) break;
      assert.ok(Date.now() < deadline, `no-gdr ${noGdr}, "8 个中 0 个为 GDRDMA" ${zeroOf8}`);
    }
    assert.notStrictEqual(await colour(span(verdict, '结论')), await colour(span(verdict, 'no-gdr')));
    await workbench.screenshot('l10n-08-nccl-log-summary-zh-cn');
  });
});
