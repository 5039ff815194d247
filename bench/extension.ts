// The extension's own numbers for `npm run bench` (issue 5 §5): the size of what ships (the .vsix,
// and each bundle inside it) and its activation time as VS Code itself measures it, in a real
// VS Code (code-server + Chromium, the e2e harness) with the packaged .vsix installed. Opening the
// "GPUDirect RDMA" view activates the extension; VS Code then shows, in the Extensions view, the
// time it spent loading the bundle plus running activate() (its `codeLoadingTime + activateCallTime`).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageVsix } from '../test/e2e/codeServer';
import { readE2eTools } from '../test/e2e/environment';
import { Workbench } from '../test/e2e/workbench';
import { summarize, summaryLine } from './stats';
import { zipEntries } from './vsixEntries';

const DISPLAY_NAME = 'GPUDirect RDMA Doctor';
const CONTAINER_TITLE = 'GPUDirect RDMA';

export async function printExtensionNumbers(activationRuns: number): Promise<void> {
  console.log('\nthe extension (issue 5 §5): the package, and activation in a real VS Code');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-bench-vsix-'));
  try {
    // `npm run package`: the production build users install ($GDR_E2E_VSIX: one built already).
    const vsix = packageVsix(dir);
    printSizes(vsix);
    await printActivation(vsix, activationRuns);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function printSizes(vsix: string): void {
  const entries = zipEntries(vsix);
  console.log(`  .vsix: ${kib(fs.statSync(vsix).size)}, ${entries.length} files`);
  for (const e of entries.filter((x) => /^extension\/dist\/[^/]+\.js$/.test(x.name))) {
    console.log(`  ${e.name.slice('extension/'.length).padEnd(22)} ${kib(e.bytes).padStart(10)} (${kib(e.compressedBytes)} in the .vsix)`);
  }
}

async function printActivation(vsix: string, runs: number): Promise<void> {
  if (runs === 0) {
    console.log('  activation: not measured (--activation-runs 0)');
    return;
  }
  let version: string;
  try {
    version = readE2eTools().codeServerVersion;
  } catch (e) {
    // The SSH numbers above stand on their own; say why this one is missing instead of failing.
    console.log(`  activation: not measured: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const samples: number[] = [];
  const events = new Set<string>();
  for (let i = 0; i < runs; i++) {
    const run = await activateOnce(vsix);
    samples.push(run.ms);
    events.add(run.event);
  }
  console.log(summaryLine('activation: load bundle + activate()', summarize(samples)));
  console.log(`  (VS Code's own measurement, code-server ${version}, a fresh profile per run; activated by ${[...events].join(', ')})`);
}

/** One fresh code-server: open the view, then read VS Code's activation time for the extension. */
async function activateOnce(vsix: string): Promise<{ ms: number; event: string }> {
  const workbench = new Workbench();
  try {
    await workbench.start(vsix);
    await workbench.activityBarItem(CONTAINER_TITLE).click();
    await workbench.tab.locator('.part.sidebar .welcome-view-content').first().waitFor();
    await workbench.runCommand('Extensions: Show Installed Extensions');
    const row = workbench.tab.locator('.extensions-viewlet .monaco-list-row', { hasText: DISPLAY_NAME }).first();
    // The time appears once activate() has returned.
    const time = row.locator('.activationTime').first();
    await time.waitFor();
    const text = (await time.innerText()).trim();
    const ms = /^(\d+)\s*ms$/.exec(text);
    if (!ms) throw new Error(`the Extensions view shows no activation time for ${DISPLAY_NAME}: ${JSON.stringify(text)}`);
    const event = /_doActivateExtension gdr-doctor\.gdr-doctor, startup: \w+, activationEvent: '([^']+)'/.exec(
      workbench.extensionHostLog(),
    );
    return { ms: Number(ms[1]), event: event?.[1] ?? 'an event the extension host log does not name' };
  } finally {
    await workbench.dispose();
  }
}
