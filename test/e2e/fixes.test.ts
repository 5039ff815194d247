// Quick fixes as a user applies them, in a real VS Code (code-server + chromium) with the packaged
// .vsix, against the SSH lab: a finding's inline fix, the plan in a modal, Apply, and the finding gone
// after the host is diagnosed again. What ran is read from the lab's call log (command, uid), not only
// from the UI. A user whose sudo asks a password types it in a password box; it ends up in no log.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Locator } from 'playwright-core';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { readAuditLog } from '../support/labFix';
import { RUN_DIR } from './environment';
import { Workbench, closeAfterSuite } from './workbench';

const RECORDS_PATH = '/tmp/gdr-doctor-lab-e2efix.records.json';
const SUDO_PW = 'pwuser-lab-pw'; // pwuser's login and sudo password in the lab's default users
const LOAD_FIX = 'Fix: Load Peer Memory Module (load-peermem)';
const PW_HOST = 'fix-pw-as-pwuser';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every file under a folder, as text (logs of VS Code and the extension). */
function allText(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile())
    .map((f) => fs.readFileSync(f, 'latin1'))
    .join('\n');
}

describe('Quick fixes in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(120_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  let auditLog = '';

  const sidebar = () => workbench.tab.locator('.part.sidebar');
  const row = (label: string): Locator =>
    sidebar()
      .locator('.monaco-list-row', {
        has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }),
      })
      .first();
  /** A finding's row by its id: the row's accessible name ends with it (treeItems.ts). */
  const findingRow = (id: string): Locator => sidebar().locator(`.monaco-list-row[aria-label$=", ${id}"]`).first();
  const quickInput = () => workbench.tab.locator('.quick-input-widget .quick-input-box input');
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');
  const modprobes = (h: LabHost) =>
    h
      .calls()
      .filter((c) => c.cmd === 'modprobe')
      .map((c) => [c.uid, c.args]);

  async function setExpanded(label: string, want: boolean): Promise<void> {
    const r = row(label);
    await r.waitFor();
    for (let attempt = 0; attempt < 5; attempt++) {
      if (((await r.getAttribute('aria-expanded')) === 'true') === want) return;
      await r.click();
      await workbench.tab.waitForTimeout(300);
    }
    assert.strictEqual(await r.getAttribute('aria-expanded'), String(want), `row "${label}" does not ${want ? 'expand' : 'collapse'}`);
  }

  async function inline(r: Locator, action: string): Promise<void> {
    await r.hover();
    await r.locator(`.actions .action-label[aria-label="${action}"]`).click();
  }

  /** Diagnoses a host from its inline action and opens its findings. */
  async function diagnoseAndOpenFindings(label: string, answerLogin?: string): Promise<void> {
    await inline(row(label), 'Diagnose');
    if (answerLogin !== undefined) {
      await quickInput().waitFor();
      assert.strictEqual(await quickInput().getAttribute('type'), 'password');
      await quickInput().fill(answerLogin);
      await quickInput().press('Enter');
    }
    await setExpanded(label, true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor({ timeout: 60_000 });
    // The mouse leaves the host row: its tooltip (the verdict) would cover the rows below it.
    await workbench.tab.mouse.move(0, 0);
    await setExpanded('Findings', true);
  }

  /** "Apply Quick Fix…" from the palette: a host, then a fix (each picker waited for by its title). */
  async function paletteFix(host: string, fix: string): Promise<void> {
    await workbench.runCommand('GPUDirect RDMA: Apply Quick Fix…');
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: 'Apply a quick fix on which host?' }).waitFor();
    await workbench.pick(host);
    await workbench.tab.locator('.quick-input-widget .quick-input-title', { hasText: `Which quick fix on ${host}?` }).waitFor();
    await workbench.pick(fix);
  }

  /** Clicks the finding's inline fix; returns the one-line question, and the plan Show Plan opens (the question is asked again). */
  async function openPlan(host: string): Promise<{ question: string; plan: string }> {
    const finding = findingRow('peermem.not-loaded');
    await finding.waitFor();
    await inline(finding, LOAD_FIX);
    await dialog().waitFor({ timeout: 60_000 });
    return { question: await dialog().locator('.dialog-message-container').innerText(), plan: await showPlan('load-peermem', host) };
  }

  /** Show Plan in the confirmation: the plan's document, exact; the confirmation comes back. */
  async function showPlan(fix: string, host: string): Promise<string> {
    await dialog()
      .locator('.monaco-button', { hasText: /^Show Plan$/ })
      .click();
    await workbench.tab
      .locator('.tabs-container .tab', { hasText: `${fix}.txt` })
      .first()
      .waitFor();
    // An earlier host's plan of the same fix may still be open under the same tab name: wait for this host's.
    const text = async () => (await workbench.tab.locator('.part.editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    let plan = await text();
    for (let i = 0; i < 60 && !plan.startsWith(`${host}: ${fix} `); i++) {
      await workbench.tab.waitForTimeout(500);
      plan = await text();
    }
    await dialog().waitFor();
    return plan;
  }

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [
        { name: 'fix-gdr', profile: 'needs-peermem' },
        { name: 'fix-pw', profile: 'needs-peermem' },
        { name: 'fix-mismatch', profile: 'ofed-mismatch' },
      ],
      recordsPath: RECORDS_PATH,
    });
    // pwuser has no key: it logs in with its password, and its sudo asks for it too.
    const pw = lab.host('fix-pw');
    const config = path.join(lab.dir, 'ssh_config.fixes');
    fs.writeFileSync(
      config,
      `${fs.readFileSync(lab.sshConfigPath, 'utf8')}Host ${PW_HOST}\n  HostName ${pw.address}\n  Port ${pw.port}\n  User pwuser\n` +
        `  UserKnownHostsFile ${lab.knownHostsPath}\n  StrictHostKeyChecking yes\n`,
    );
    // code-server passes its environment to the extension host: the audit log lands in the lab folder.
    auditLog = path.join(lab.dir, 'audit.log');
    process.env.GDR_DOCTOR_AUDIT_LOG = auditLog;
    await workbench.start();
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings({ 'gdrDoctor.sshConfigFile': config }, 'machine');
    await row('fix-gdr').waitFor();
  });

  closeAfterSuite(
    workbench,
    'fixes-',
    () => delete process.env.GDR_DOCTOR_AUDIT_LOG,
    () => lab?.stop(),
  );

  it("loads the peer-memory module from the finding's inline fix (NOPASSWD sudo): plan, Apply, finding gone", async function () {
    const host = lab!.host('fix-gdr');
    await diagnoseAndOpenFindings('fix-gdr');
    await findingRow('peermem.not-loaded').hover();
    await findingRow('peermem.not-loaded').locator(`.actions .action-label[aria-label="${LOAD_FIX}"]`).waitFor();
    await workbench.screenshot('fixes-01-finding-with-inline-fix');
    const { question, plan } = await openPlan('fix-gdr');
    assert.strictEqual(question.trim(), 'Run `sudo modprobe nvidia_peermem` on fix-gdr?');
    assert.match(plan, /sudo -n [\s\S]*modprobe nvidia_peermem/);
    assert.deepStrictEqual(modprobes(host), [], 'nothing ran before Apply');
    await workbench.screenshot('fixes-02-plan-modal');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await findingRow('peermem.not-loaded').waitFor({ state: 'detached', timeout: 60_000 });
    await workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: 'load-peermem applied' }).first().waitFor();
    await workbench.screenshot('fixes-03-applied-finding-gone');
    assert.deepStrictEqual(modprobes(host), [[0, ['nvidia_peermem']]], 'modprobe ran once, as root');
    const audit = readAuditLog(auditLog);
    assert.deepStrictEqual(
      audit.map((a) => [a.host, a.fix, a.status]),
      [['fix-gdr', 'load-peermem', 'applied']],
    );
    await setExpanded('Findings', false);
    await setExpanded('fix-gdr', false);
  });

  it("asks pwuser's sudo password in a password box, applies, and the password is in no log", async function () {
    const host = lab!.host('fix-pw');
    await diagnoseAndOpenFindings(PW_HOST, SUDO_PW);
    const { plan } = await openPlan(PW_HOST);
    assert.match(plan, /sudo -S -p [\s\S]*modprobe nvidia_peermem/);
    assert.doesNotMatch(plan, new RegExp(SUDO_PW));
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await workbench.tab.locator('.quick-input-widget', { hasText: `sudo on ${PW_HOST}` }).waitFor();
    assert.strictEqual(await quickInput().getAttribute('type'), 'password', 'the sudo password is typed into a password box');
    await quickInput().fill(SUDO_PW);
    await workbench.screenshot('fixes-04-sudo-password-box');
    await quickInput().press('Enter');
    const remember = workbench.tab.locator('.quick-input-list .monaco-list-row', { hasText: 'Remember for this host (SecretStorage)' });
    await remember.waitFor();
    await remember.click();
    await workbench.tab.locator('.quick-input-widget .quick-input-count', { hasText: '1 Selected' }).waitFor();
    await workbench.screenshot('fixes-05-remember-ticked');
    await quickInput().press('Enter');
    await findingRow('peermem.not-loaded').waitFor({ state: 'detached', timeout: 60_000 });
    await workbench.screenshot('fixes-06-pwuser-applied');
    assert.deepStrictEqual(modprobes(host), [[0, ['nvidia_peermem']]], 'modprobe ran once, as root');
    assertPasswordInNoLog();
  });

  it('persists the module from the palette command, with the remembered sudo password (not asked again)', async function () {
    const host = lab!.host('fix-pw');
    const conf = path.join(host.etcUpperDir, 'modules-load.d/nvidia-peermem.conf');
    assert.ok(!fs.existsSync(conf));
    await paletteFix(PW_HOST, 'persist-peermem');
    await dialog().waitFor({ timeout: 60_000 });
    assert.match(
      await dialog().innerText(),
      // The module is loaded by the test before, so the plan only adds the line (no "run modprobe, then").
      /^On fix-pw-as-pwuser: add the line "nvidia-peermem"/m,
    );
    const plan = await showPlan('persist-peermem', PW_HOST);
    assert.match(plan, /\/etc\/modules-load\.d\/nvidia-peermem\.conf \(new\)/);
    assert.match(plan, /\+nvidia-peermem/);
    await workbench.screenshot('fixes-07-persist-plan-modal');
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    await workbench.tab
      .locator('.notifications-toasts .notification-list-item', { hasText: 'persist-peermem applied' })
      .first()
      .waitFor({ timeout: 60_000 });
    assert.ok(
      !(await workbench.tab.locator('.quick-input-widget', { hasText: 'sudo on' }).isVisible()),
      'the remembered password was used',
    );
    await findingRow('peermem.not-persistent').waitFor({ state: 'detached', timeout: 60_000 });
    await workbench.screenshot('fixes-08-persisted-finding-gone');
    assert.match(fs.readFileSync(conf, 'utf8'), /^nvidia-peermem$/m);
    assert.deepStrictEqual(modprobes(host).length, 1, 'the module was loaded already: no second modprobe');
    const audit = readAuditLog(auditLog);
    assert.deepStrictEqual(
      audit.map((a) => [a.host, a.fix, a.status]),
      [
        ['fix-gdr', 'load-peermem', 'applied'],
        [PW_HOST, 'load-peermem', 'applied'],
        [PW_HOST, 'persist-peermem', 'applied'],
      ],
    );
    assertPasswordInNoLog();
  });

  it('shows what the host printed when a fix fails, with Show Log', async function () {
    const host = lab!.host('fix-mismatch');
    await paletteFix('fix-mismatch', 'load-peermem');
    await dialog().waitFor({ timeout: 60_000 });
    await dialog()
      .locator('.monaco-button', { hasText: /^Apply$/ })
      .click();
    const toast = workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: 'load-peermem failed' }).first();
    await toast.waitFor({ timeout: 60_000 });
    assert.match(await toast.innerText(), /Invalid argument/);
    await workbench.screenshot('fixes-09-failed-fix');
    await toast.hover();
    await toast.locator('.monaco-button', { hasText: 'Show Log' }).click();
    await workbench.tab.locator('.part.panel .view-lines', { hasText: 'peermem.ofed-mismatch' }).first().waitFor();
    await workbench.screenshot('fixes-10-failed-fix-log');
    assert.deepStrictEqual(modprobes(host), [[0, ['nvidia_peermem']]], 'modprobe ran once, as root, and failed');
    const audit = readAuditLog(auditLog);
    assert.deepStrictEqual(audit.at(-1).status, 'failed');
    assert.deepStrictEqual(audit.at(-1).findings, ['peermem.ofed-mismatch']);
  });

  /** VS Code's and the extension's logs, the settings files, code-server's log and the audit log. */
  function assertPasswordInNoLog(): void {
    const userData = path.join(RUN_DIR, 'user-data');
    const logs =
      allText(path.join(userData, 'logs')) +
      allText(path.join(userData, 'User')) +
      allText(path.join(userData, 'Machine')) +
      fs.readFileSync(auditLog, 'utf8') +
      fs.readFileSync(path.join(RUN_DIR, 'code-server.log'), 'utf8');
    assert.ok(logs.includes('load-peermem') && logs.includes('sshConfigFile'), 'the logs and settings were read');
    assert.ok(!logs.includes(SUDO_PW), 'the password is in no log, setting or audit entry');
  }
});
