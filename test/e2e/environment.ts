// Where the e2e tools live. test/e2e/setup.sh writes paths.json when it finishes; without it
// the suite fails with the command to run, rather than skipping silently.
import * as fs from 'fs';
import * as path from 'path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const CACHE_DIR = path.resolve(process.env.GDR_E2E_CACHE ?? path.join(REPO_ROOT, '.cache/e2e'));
export const SCREENSHOT_DIR = path.join(CACHE_DIR, 'screenshots');
/** Scratch space of the latest run (user data, extensions, logs); kept for post-mortems. */
export const RUN_DIR = path.join(CACHE_DIR, 'run');

export interface E2eTools {
  /** Node 24: code-server 4.139 needs it, and its native modules were built against it. */
  node: string;
  /** code-server's entry script, run with `node`. */
  codeServer: string;
  codeServerVersion: string;
  chromium: string;
}

export function readE2eTools(): E2eTools {
  const file = path.join(CACHE_DIR, 'paths.json');
  const hint = 'run `npm run test:e2e:setup` first (installs chromium, Node 24 and code-server)';
  if (!fs.existsSync(file)) {
    throw new Error(`e2e setup has not been run: ${file} is missing; ${hint}`);
  }
  const tools = JSON.parse(fs.readFileSync(file, 'utf8')) as E2eTools;
  for (const key of ['node', 'codeServer', 'chromium'] as const) {
    if (!tools[key] || !fs.existsSync(tools[key])) {
      throw new Error(`e2e setup is incomplete: ${key} (${tools[key] || 'unset'}) is missing; ${hint}`);
    }
  }
  return tools;
}
