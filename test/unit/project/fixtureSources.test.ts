// Every fixture must say where it comes from: test/fixtures/SOURCES.md names each file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../../support/paths';

function allFixtures(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return allFixtures(full);
    return e.name.endsWith('.txt') ? [path.relative(FIXTURES, full)] : [];
  });
}

describe('fixture sources', () => {
  const sources = fs.readFileSync(path.join(FIXTURES, 'SOURCES.md'), 'utf8');

  it('names the source of every fixture file', () => {
    const missing = allFixtures(FIXTURES).filter((f) => !sources.includes(`\`${f}\``));
    assert.deepEqual(missing, []);
  });

  it('lists no fixture that does not exist', () => {
    const named = [...sources.matchAll(/`([a-z0-9-]+\/[^`]+\.txt)`/g)].map((m) => m[1]);
    assert.deepEqual(
      named.filter((f) => !fs.existsSync(path.join(FIXTURES, f))),
      [],
    );
  });
});
