// What a user sees after installing the .vsix: the "GPUDirect RDMA" container in the activity
// bar, its "Hosts" view with the welcome text, a log channel that says the extension started,
// the extension listed as installed, and no error notification.
import * as assert from 'assert';
import { until } from '../support/until';
import { Workbench, screenshotFailures } from './workbench';

const CONTAINER_TITLE = 'GPUDirect RDMA';
const VIEW_NAME = 'Hosts';
const OUTPUT_CHANNEL = 'GPUDirect RDMA';
const DISPLAY_NAME = 'GPUDirect RDMA Doctor';

describe('Hosts view in a real VS Code (code-server + chromium)', function () {
  this.timeout(60_000);
  const workbench = new Workbench();

  before(async function () {
    this.timeout(300_000);
    await workbench.start();
  });

  afterEach(screenshotFailures(workbench));

  after(async function () {
    this.timeout(30_000);
    await workbench.dispose();
  });

  it('puts "GPUDirect RDMA" in the activity bar', async function () {
    await workbench.activityBarItem(CONTAINER_TITLE).waitFor();
    await workbench.screenshot('01-activity-bar');
  });

  it('shows the Hosts view with its welcome text when the container is clicked', async function () {
    await workbench.activityBarItem(CONTAINER_TITLE).click();
    const sidebar = workbench.tab.locator('.part.sidebar');
    // A container with one view titles the sidebar "GPUDirect RDMA: Hosts"; with more, each has a header.
    await sidebar
      .locator('.pane-header', { hasText: VIEW_NAME })
      .or(sidebar.locator('.composite.title', { hasText: `${CONTAINER_TITLE}: ${VIEW_NAME}` }))
      .first()
      .waitFor();
    const welcome = sidebar.locator('.welcome-view-content').first();
    await welcome.filter({ hasText: 'No hosts yet.' }).waitFor();
    assert.match(await welcome.innerText(), /checks whether GPUDirect RDMA can work on your GPU hosts/);
    await workbench.screenshot('02-hosts-view-welcome');
  });

  it('activates: its log channel "GPUDirect RDMA" says "gdr-doctor activated"', async function () {
    // The Output picker lists the channels that exist when it opens: on a loaded machine activate()
    // (which creates the channel) can still be running when the view's welcome text shows.
    await until(
      'the extension has activated (its log on disk says so)',
      () => /gdr-doctor activated/.test(workbench.extensionLog()),
      60_000,
    );
    await workbench.runCommand('Output: Show Output Channels...');
    await workbench.pick(OUTPUT_CHANNEL);
    const output = workbench.tab.locator('.part.panel .monaco-editor .view-lines');
    await output.filter({ hasText: 'gdr-doctor activated' }).waitFor();
    const text = await output.innerText();
    assert.doesNotMatch(text, /activation failed/);
    // A LogOutputChannel: VS Code stamps each line with the time and its level.
    // (Monaco renders spaces as no-break spaces: match any white space.)
    assert.match(text, /\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d\.\d{3}\s\[info\]\sgdr-doctor\sactivated/);
    await workbench.screenshot('03-output-channel');
  });

  it('is listed as an installed, enabled, activated extension', async function () {
    await workbench.runCommand('Extensions: Show Installed Extensions');
    const row = workbench.tab.locator('.extensions-viewlet .monaco-list-row', { hasText: DISPLAY_NAME });
    await row.first().waitFor();
    assert.strictEqual(await row.locator('.extension-list-item.disabled').count(), 0, 'the extension is disabled');
    const rowText = await row.first().innerText();
    assert.doesNotMatch(rowText, /disabled/i);
    // The row shows an activation time only once activate() has returned without throwing.
    assert.match(rowText, /\d+\s*ms/, `no activation time in the Extensions view row: ${JSON.stringify(rowText)}`);
    await workbench.screenshot('04-extensions-installed');
  });

  it('starts without an error, neither in a notification nor in the extension host log', async function () {
    const failure = /Activating extension gdr-doctor\.gdr-doctor failed.*\n.*/.exec(workbench.extensionHostLog());
    assert.ok(failure === null, `the extension host log says:\n${failure?.[0]}`);
    const messages = await workbench.notificationMessages();
    await workbench.screenshot('05-notifications');
    const aboutUs = messages.filter((m) => /gdr-doctor|GPUDirect|activat/i.test(m));
    assert.deepStrictEqual(aboutUs, [], `notifications about the extension:\n${aboutUs.join('\n')}`);
  });
});
