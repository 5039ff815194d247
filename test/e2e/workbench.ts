// A real VS Code workbench (code-server) in a real browser (Debian's chromium), with the
// packaged extension installed. Tests drive it the way a user does: clicks, the command
// palette, what is on screen. dispose() stops everything start() started, even after a failure.
import * as fs from 'fs';
import * as path from 'path';
import { Browser, BrowserServer, Locator, Page, chromium } from 'playwright-core';
import { CodeServer, CodeServerDirs, installExtension, packageVsix } from './codeServer';
import { RUN_DIR, SCREENSHOT_DIR, readE2eTools } from './environment';
import { packageDisplayLanguage, registerDisplayLanguage } from './displayLanguage';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const UI_TIMEOUT_MS = 30_000;
const STARTUP_TIMEOUT_MS = 120_000;
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  // The scratch workspace may sit inside this repository's checkout: no "open repository?" toast.
  'git.openRepositoryInParentFolders': 'never',
};

export class Workbench {
  private server?: CodeServer;
  private browserServer?: BrowserServer;
  private browser?: Browser;
  private page?: Page;
  private dirs?: CodeServerDirs;

  /**
   * `userSettings` are merged over the harness's own into the user settings.json. `scrollbars`: draw
   * native scrollbars as a user's browser does (headless Chromium hides them, zero thick, by default).
   * `locale`: the display language code-server starts with (default: its own, English).
   */
  constructor(
    private readonly userSettings: Record<string, unknown> = {},
    private readonly options: { scrollbars?: boolean; locale?: string } = {},
  ) {}

  /** The browser tab showing the workbench. */
  get tab(): Page {
    if (!this.page) throw new Error('the workbench is not open');
    return this.page;
  }

  /** `vsix`: a package already built (the bench packages once for several starts); default: package now. */
  async start(vsix?: string): Promise<void> {
    const tools = readE2eTools();
    const dirs = freshRunDirs(this.userSettings);
    this.dirs = dirs;
    installExtension(tools, dirs, vsix ?? packageVsix(RUN_DIR));
    if (this.options.locale) {
      installExtension(tools, dirs, packageDisplayLanguage(this.options.locale, RUN_DIR));
      registerDisplayLanguage(this.options.locale, dirs);
    }
    this.server = await CodeServer.start(tools, dirs, this.options.locale);
    this.browserServer = await chromium.launchServer({
      executablePath: tools.chromium,
      headless: true,
      args: CHROMIUM_ARGS,
      ignoreDefaultArgs: this.options.scrollbars ? ['--hide-scrollbars'] : undefined,
      // Chromium keeps crash reports under $XDG_CONFIG_HOME/chromium: not in the user's home.
      env: { ...process.env, XDG_CONFIG_HOME: path.join(RUN_DIR, 'xdg-config') },
    });
    this.browser = await chromium.connect(this.browserServer.wsEndpoint());
    // Clipboard access as a user's browser grants it to the VS Code tab: Copy commands write the real
    // clipboard, and tests read it back from there.
    this.page = await this.browser.newPage({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
    this.page.setDefaultTimeout(UI_TIMEOUT_MS);
    // The first load fetches and compiles the whole workbench: on a busy shared machine that takes minutes.
    await this.page.goto(this.server.url, { timeout: STARTUP_TIMEOUT_MS });
    await this.page.locator('.monaco-workbench').waitFor({ timeout: STARTUP_TIMEOUT_MS });
    // The workbench frame appears before its parts render; the activity bar is the first a test needs.
    await this.page.locator('.part.activitybar .action-item').first().waitFor();
  }

  async dispose(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    await this.browserServer?.close().catch(() => undefined);
    await this.browserServer?.kill().catch(() => undefined);
    await this.server?.stop();
  }

  /**
   * Changes settings while VS Code runs, as a user editing settings.json does (VS Code watches the
   * file). Machine-scoped settings live in the remote's file (code-server's "Machine" settings):
   * VS Code ignores them in the local user file of a remote window.
   */
  updateSettings(changes: Record<string, unknown>, where: 'user' | 'machine' = 'user'): void {
    if (!this.dirs) throw new Error('the workbench is not open');
    const file = path.join(this.dirs.userData, where === 'user' ? 'User' : 'Machine', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const current = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    fs.writeFileSync(file, JSON.stringify({ ...current, ...changes }, null, 2));
  }

  /** Saves what the user sees now to .cache/e2e/screenshots/<name>.png. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
    await this.tab.screenshot({ path: file });
    return file;
  }

  /** An activity-bar container, found by its title as VS Code labels it (a badge adds its tooltip after it). */
  activityBarItem(title: string): Locator {
    return this.tab.locator(`.part.activitybar .action-item a.action-label[aria-label^="${title}"]`);
  }

  /** The number on an activity-bar container's badge. */
  activityBarBadge(title: string): Locator {
    const item = this.tab.locator(`a.action-label[aria-label^="${title}"]`);
    return this.tab.locator('.part.activitybar .action-item', { has: item }).locator('.badge .badge-content');
  }

  /** Runs a command by its title through the command palette (F1), as a user would. */
  async runCommand(title: string): Promise<void> {
    await this.tab.keyboard.press('F1');
    await this.pick(title, '>').catch(async (e: Error) => {
      // F1 pressed while the previous picker (Quick Open of openFile) was still closing can open a
      // palette that lists no command (seen once on a loaded machine): close it and ask once more.
      if (!e.message.startsWith('the quick pick offers no item')) throw e;
      await this.tab.keyboard.press('Escape');
      await this.tab.keyboard.press('F1');
      await this.pick(title, '>');
    });
  }

  /**
   * Types into the open quick pick and accepts the row whose label is exactly `label`. `prefix`: '>'
   * in the command palette. Said by the caller, not read from the input: right after a command, the
   * input may still hold the palette's '>…' when the command's own picker takes it over, and '>' typed
   * there filters that picker to nothing (seen in CI with Output: Show Output Channels...).
   */
  async pick(label: string, prefix: '' | '>' = ''): Promise<void> {
    const input = this.tab.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    // Wait for the picker's own items: right after a command runs, the widget is shared between the
    // closing command palette and the new picker, and text typed then is lost (seen on a loaded machine).
    await this.tab.locator('.quick-input-list .monaco-list-row').first().waitFor();
    const row = this.tab.locator('.quick-input-list .monaco-list-row', {
      has: this.tab.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }),
    });
    await input.fill(prefix + label);
    if (!(await row.first().isVisible())) {
      // Typed into a picker that was still being replaced: type it again into the one now open.
      await row
        .first()
        .waitFor({ timeout: 5_000 })
        .catch(async () => input.fill(prefix + label));
    }
    await row
      .first()
      .waitFor()
      .catch((e: Error) => {
        throw new Error(`the quick pick offers no item labelled "${label}"\n${e.message}`);
      });
    await row.first().click();
    // A click that lands while the list re-renders is lost and the picker stays open with the text
    // typed (seen on a loaded machine: the next picker's label was then typed into this one). Then
    // Enter accepts the row filtered to, the active one.
    if (!(await this.pickerMovedOn(prefix + label))) await input.press('Enter');
  }

  /** Whether the open picker took its answer: it closed, or another picker (other text) replaced it. */
  private pickerMovedOn(typed: string): Promise<boolean> {
    return this.tab
      .waitForFunction(
        (value) => {
          const input = document.querySelector<HTMLInputElement>('.quick-input-widget .quick-input-box input');
          return !input || input.offsetParent === null || input.value !== value;
        },
        typed,
        { timeout: 5_000 },
      )
      .then(
        () => true,
        () => false,
      );
  }

  /** Opens a file of the workspace by name through Quick Open (Ctrl+P), as a user does. */
  async openFile(name: string): Promise<void> {
    await this.tab.keyboard.press('Control+P');
    const input = this.tab.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor();
    await input.fill(name);
    const row = this.tab.locator('.quick-input-list .monaco-list-row', {
      has: this.tab.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }),
    });
    await row.first().click();
    // The active tab of the active group: the file may also be the active tab of another group (an editor beside it).
    await this.tab.locator('.part.editor .editor-group-container.active .tab.active', { hasText: name }).waitFor();
  }

  /**
   * The extension host's log (Developer: Show Logs... > Extension Host). An exception that
   * escapes activate() lands here only: VS Code raises no notification for it.
   */
  extensionHostLog(): string {
    return this.logFiles((file) => path.basename(file) === 'remoteexthost.log');
  }

  /** The extension's own log channel ("GPUDirect RDMA") as VS Code writes it to disk. */
  extensionLog(): string {
    return this.logFiles((file) => path.basename(path.dirname(file)) === 'gdr-doctor.gdr-doctor');
  }

  private logFiles(which: (file: string) => boolean): string {
    if (!this.dirs) throw new Error('the workbench is not open');
    const logs = path.join(this.dirs.userData, 'logs');
    return fs
      .readdirSync(logs, { recursive: true, encoding: 'utf8' })
      .filter(which)
      .map((file) => fs.readFileSync(path.join(logs, file), 'utf8'))
      .join('\n');
  }

  /** What the browser's clipboard holds now (where VS Code's clipboard API writes in code-server). */
  clipboardText(): Promise<string> {
    return this.tab.evaluate(() => navigator.clipboard.readText());
  }

  /** The message of every notification, from the notification center (toasts hide themselves). */
  async notificationMessages(): Promise<string[]> {
    await this.runCommand('Notifications: Show Notifications');
    const center = this.tab.locator('.notifications-center');
    await center.waitFor();
    return center.locator('.notification-list-item-message').allTextContents();
  }
}

function freshRunDirs(userSettings: Record<string, unknown>): CodeServerDirs {
  fs.rmSync(RUN_DIR, { recursive: true, force: true });
  const dirs: CodeServerDirs = {
    config: path.join(RUN_DIR, 'code-server.yaml'),
    xdgData: path.join(RUN_DIR, 'xdg-data'),
    userData: path.join(RUN_DIR, 'user-data'),
    extensions: path.join(RUN_DIR, 'extensions'),
    workspace: path.join(RUN_DIR, 'workspace'),
    log: path.join(RUN_DIR, 'code-server.log'),
  };
  for (const dir of [dirs.userData, dirs.extensions, dirs.workspace]) fs.mkdirSync(dir, { recursive: true });
  // No welcome page, chat panel or git prompt: they open late and take the focus from what a test types.
  fs.mkdirSync(path.join(dirs.userData, 'User'));
  fs.writeFileSync(path.join(dirs.userData, 'User/settings.json'), JSON.stringify({ ...USER_SETTINGS, ...userSettings }, null, 2));
  return dirs;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A mocha afterEach hook: a failed test leaves a screenshot named after it, and says where. */
export function screenshotFailures(workbench: Workbench, prefix = ''): Mocha.AsyncFunc {
  return async function (this: Mocha.Context) {
    if (this.currentTest?.state !== 'failed') return;
    const file = await workbench.screenshot(`failed-${prefix}${this.currentTest.title}`).catch(() => '(none)');
    console.log(`    screenshot of the failure: ${file}`);
  };
}

/**
 * The closing hooks every workbench suite needs: a screenshot of each failed test, then code-server closed,
 * then what else the suite started (its lab, an SSH server), stopped in the order given.
 */
export function closeAfterSuite(workbench: Workbench, screenshotPrefix: string, ...stops: (() => unknown)[]): void {
  afterEach(screenshotFailures(workbench, screenshotPrefix));
  after(async function () {
    this.timeout(60_000);
    await workbench.dispose();
    for (const stop of stops) await stop();
  });
}

/**
 * Hovers `target` until `shown` appears: a hover that comes while VS Code redraws the element is lost,
 * and hovering the same spot again sends no event, so the mouse leaves and comes back (up to 3 tries).
 */
export async function hoverUntilShown(workbench: Workbench, target: Locator, shown: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await target.hover();
    try {
      await shown.waitFor({ timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      await workbench.tab.mouse.move(0, 0);
    }
  }
}
