// Watch in a real VS Code (code-server + chromium + SSH lab): a lab host whose nvidia_peermem is loaded
// at boot (proprietary 510 driver, no dma-buf) is diagnosed, then watched with a short interval
// (gdrDoctor.watch.intervalMinutes); the module is unloaded inside the host (the lab's rmmod, as root)
// between two rounds, and the host's watch row says "Since <time>: nvidia_peermem unloaded", red,
// with every change in its tooltip, and a notification says the host got worse, as plain text.
// Stop Watching removes the row.
import * as assert from 'assert';
import * as path from 'path';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';
import { inHost } from '../lab/slurm';
import { CACHE_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

const HOST = 'gpu-watch';
const RECORDS_PATH = path.join(CACHE_DIR, 'lab-watch.records.json');

describe('Watch in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(120_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  const { row, diagnose, contextMenu, tooltip } = hostsTree(workbench);

  before(async function () {
    this.timeout(300_000);
    assertLabCanRun();
    await cleanupStale(RECORDS_PATH);
    lab = await startLab({ hosts: [{ name: HOST, profile: 'peermem-unregistered' }], recordsPath: RECORDS_PATH });
    await workbench.start();
    // Every 6 seconds: a round is a full probe of the host, which takes a few seconds here. Machine settings,
    // as code-server's remote window reads them (see sidebar.test.ts).
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': lab.sshConfigPath, 'gdrDoctor.watch.intervalMinutes': 0.1 }, 'machine');
  });

  afterEach(screenshotFailures(workbench, 'watch-'));

  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
    await lab?.stop();
  });

  it('watches a diagnosed host: a row says it is watched, and nothing changed yet', async function () {
    await diagnose(HOST);
    await contextMenu(HOST, 'Watch');
    await row('Watching').filter({ hasText: 'watching every 0.1 min' }).waitFor();
    await workbench.screenshot('watch-01-watching');
  });

  it('nvidia_peermem unloaded between two rounds: "Since <time>: nvidia_peermem unloaded" and a notification that it got worse', async function () {
    this.timeout(180_000);
    const host = lab?.host(HOST);
    assert.ok(host);
    const roundsBefore = host.calls().filter((c) => c.cmd === 'lsmod').length;
    await inHost(host.listenerPid(), ['rmmod', 'nvidia_peermem']);
    const changed = row(/^Since .+: nvidia_peermem unloaded$/);
    await changed.waitFor({ timeout: 150_000 });
    assert.ok(host.calls().filter((c) => c.cmd === 'lsmod').length > roundsBefore, 'Watch probed the host again');
    await tooltip(changed, 'peermem.not-loaded');
    const hover = await workbench.tab.locator('.monaco-hover, .workbench-hover', { hasText: 'peermem.not-loaded' }).first().innerText();
    assert.match(hover, /\+ error {3}peermem\.not-loaded: nvidia_peermem is not loaded/);
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: 'got worse since' }).first();
    await toast.waitFor({ timeout: 30_000 });
    const message = await toast.locator('.notification-list-item-message').innerText();
    assert.match(message.replace(/\u200b/g, ''), new RegExp(`^${HOST} got worse since .+: nvidia_peermem unloaded$`));
    assert.strictEqual(await toast.locator('.notification-list-item-message a').count(), 0, 'no link in the notification');
    await workbench.tab.mouse.move(0, 0);
    await workbench.screenshot('watch-02-since-unloaded');
  });

  it('Stop Watching removes the row', async function () {
    await contextMenu(HOST, 'Stop Watching');
    await row(/^Since .+: nvidia_peermem unloaded$/).waitFor({ state: 'detached' });
    await workbench.screenshot('watch-03-stopped');
  });
});
