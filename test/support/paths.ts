// Paths tests share: the repository root and the fixtures folder, wherever mocha runs from.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures');
export const CLI = path.join(REPO_ROOT, 'dist/cli.js');

/** Every fixture file (not SOURCES or sidecars) in one fixtures sub-folder, sorted. */
export function fixtureFiles(dir: string): string[] {
  const full = path.join(FIXTURES, dir);
  if (!fs.existsSync(full)) return [];
  return fs
    .readdirSync(full)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => path.join(full, f));
}

/** The demo host's recordings (src/core/transport/demo.ts; sources: media/demo/SOURCES.md). */
export const DEMO_DIR = path.join(REPO_ROOT, 'media/demo');
