// Text that a host, a file or the network wrote never becomes a clickable link in a notification,
// in a real VS Code (code-server + chromium) with the packaged .vsix. VS Code renders
// `[label](command:…)` in a notification as a link that runs the command on click; here each of
// three sources carries one: an SSH server's DISCONNECT message (a hostile ssh2 server,
// test/lab/hostileSsh.ts), what a lab host printed when a quick fix failed, and a line of a
// workspace file read by Analyze Topology in Editor. Each notification must show the text, and its
// rendered DOM must hold no <a> element.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { HostileSsh, startHostileSsh } from '../lab/hostileSsh';
import { assertLabCanRun, cleanupStale, derivedProfile, Lab, startLab } from '../lab/lab';
import { CACHE_DIR, RUN_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

const RECORDS_PATH = path.join(CACHE_DIR, 'lab-remote-text.records.json');
/** Would type `id` and Enter into the user's terminal, on one click. */
const LINK = '[Retry](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22id%5Cn%22%7D)';
const SHORT_LINK = '[Retry](command:workbench.action.reloadWindow)';
const MODPROBE_ERROR = `modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument. ${LINK}`;
const TOPO_FILE = 'hostile-link.topo.txt';

describe('remote text in notifications, in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(90_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  let profile: string | undefined;
  let hostile: HostileSsh | undefined;
  const { row, inline } = hostsTree(workbench);
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');

  /** The toast whose message holds `text`: it shows the text as written (invisible characters aside), with no link. */
  async function assertToastWithoutLink(text: string, shown: string): Promise<Locator> {
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();
    await toast.waitFor({ timeout: 60_000 });
    const message = toast.locator('.notification-list-item-message');
    assert.ok((await message.innerText()).replace(/\u200b/g, '').includes(shown), await message.innerText());
    assert.strictEqual(await message.locator('a').count(), 0, `the notification renders a link: ${await message.innerHTML()}`);
    return toast;
  }

  before(async function () {
    this.timeout(300_000);
    assertLabCanRun();
    await cleanupStale(RECORDS_PATH);
    profile = derivedProfile(
      'needs-peermem whose modprobe nvidia_peermem fails with a Markdown command link in its message.',
      'needs-peermem',
      { modprobeErrors: { nvidia_peermem: MODPROBE_ERROR } },
    );
    lab = await startLab({ hosts: [{ name: 'link-fix', profile }], recordsPath: RECORDS_PATH });
    hostile = await startHostileSsh(path.join(lab.dir, 'hostile'), `Server going down for maintenance. ${LINK}`);
    const knownHosts = path.join(lab.dir, 'known_hosts.remote-text');
    fs.writeFileSync(knownHosts, `${fs.readFileSync(lab.knownHostsPath, 'utf8')}${hostile.knownHostsLine}\n`);
    const config = path.join(lab.dir, 'ssh_config.remote-text');
    fs.writeFileSync(config, `${fs.readFileSync(lab.sshConfigPath, 'utf8')}${hostile.sshConfig('hostile', knownHosts)}`);
    process.env.GDR_DOCTOR_AUDIT_LOG = path.join(lab.dir, 'audit.log');
    await workbench.start();
    fs.writeFileSync(path.join(RUN_DIR, 'workspace', TOPO_FILE), `${SHORT_LINK}\n`);
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': config }, 'machine');
    await row('hostile').waitFor();
  });

  afterEach(screenshotFailures(workbench, 'remote-text-'));

  after(async function () {
    this.timeout(60_000);
    delete process.env.GDR_DOCTOR_AUDIT_LOG;
    await workbench.dispose();
    await hostile?.stop();
    await lab?.stop();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it("an SSH server's DISCONNECT message is shown as text, not as a link", async function () {
    await inline(row('hostile'), 'Diagnose');
    await assertToastWithoutLink('Server going down', `Server going down for maintenance. ${LINK}`);
    await workbench.screenshot('remote-text-01-disconnect');
  });

  it('what a host printed when a fix failed is shown as text, not as a link', async function () {
    await workbench.runCommand('GPUDirect RDMA: Apply Quick Fix…');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Apply a quick fix on which host?' }).waitFor();
    await workbench.pick('link-fix');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Which quick fix on link-fix?' }).waitFor();
    await workbench.pick('load-peermem');
    await dialog().waitFor({ timeout: 60_000 });
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await assertToastWithoutLink('load-peermem failed', LINK);
    await workbench.screenshot('remote-text-02-fix-output');
    assert.deepStrictEqual(
      lab!
        .host('link-fix')
        .calls()
        .filter((c) => c.cmd === 'modprobe')
        .map((c) => c.uid),
      [0],
      'modprobe ran (and failed) once, as root',
    );
  });

  it("a workspace file's line quoted in a parse error is shown as text, not as a link", async function () {
    await workbench.openFile(TOPO_FILE);
    await workbench.runCommand('GPUDirect RDMA: Analyze Topology in Editor');
    await assertToastWithoutLink('Not readable as', SHORT_LINK);
    await workbench.screenshot('remote-text-03-topo-file');
  });
});
