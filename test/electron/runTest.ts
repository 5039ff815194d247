// `npm run test:electron`: the design card's @vscode/test-electron suite. It downloads a desktop
// VS Code (stable) into .vscode-test/, loads this folder as a development extension (dist/, so
// `npm run build` first) and runs test/electron/suite/ in its extension host. It needs a machine
// that can download VS Code (update.code.visualstudio.com) and, on Linux, a display (xvfb-run).
// Where the download is impossible it fails at once and says so; in CI the code-server suite
// (`npm run test:e2e`) is the one that runs.
import { build } from 'esbuild';
import * as fs from 'fs';
import * as path from 'path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';

const REPO_ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(REPO_ROOT, '.vscode-test');
/** Inside the repository, so the bundled suite's `require('mocha')` finds node_modules. */
const SUITE_OUT = path.join(CACHE, 'suite');
/** Idle timeout of each download request: a network that drops packets fails instead of hanging. */
const DOWNLOAD_IDLE_TIMEOUT_MS = 20_000;

/** The extension host loads JavaScript: each suite file becomes one CommonJS file (vscode, mocha external). */
async function bundleSuite(): Promise<string> {
  const dir = path.join(__dirname, 'suite');
  const entryPoints = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
  fs.rmSync(SUITE_OUT, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: SUITE_OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return path.join(SUITE_OUT, 'index.js');
}

async function main(): Promise<number> {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist/extension.js'))) {
    console.error('test:electron: dist/extension.js is missing: run `npm run build` first');
    return 1;
  }
  const extensionTestsPath = await bundleSuite();
  let vscodeExecutablePath: string;
  try {
    vscodeExecutablePath = await downloadAndUnzipVSCode({ cachePath: CACHE, timeout: DOWNLOAD_IDLE_TIMEOUT_MS });
  } catch (e) {
    console.error(
      [
        `test:electron: could not download VS Code: ${e instanceof Error ? e.message : String(e)}`,
        'This suite needs a machine that can download VS Code (update.code.visualstudio.com).',
        'In CI the code-server suite runs instead: npm run test:e2e:setup && npm run test:e2e',
      ].join('\n'),
    );
    return 1;
  }
  // A fresh profile, no other extensions: only gdr-doctor (from this folder) is loaded.
  return runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: REPO_ROOT,
    extensionTestsPath,
    launchArgs: [
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
      `--user-data-dir=${path.join(CACHE, 'user-data')}`,
    ],
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`test:electron: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
