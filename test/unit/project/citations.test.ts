// Comments cite only what a reader of this repository can open: pages under docs/ (which name the
// primary sources) or the primary sources themselves, never a notes file or an issue tracker.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const files = sourceFiles(path.join(REPO_ROOT, 'src')).map((f) => ({
  name: path.relative(REPO_ROOT, f),
  text: fs.readFileSync(f, 'utf8'),
}));

describe('citations in src/', () => {
  it('cite no document outside the repository (DOMAIN.md, issue numbers)', () => {
    const outside = files.flatMap(({ name, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ at: `${name}:${i + 1}`, line }))
        .filter(({ line }) => /DOMAIN\.md|\bissue #\d/i.test(line)),
    );
    assert.deepEqual(
      outside.map((o) => `${o.at}: ${o.line.trim()}`),
      [],
    );
  });

  it('cite docs/ pages and sections that exist', () => {
    const cited = files.flatMap(({ name, text }) =>
      [...text.matchAll(/docs\/([\w-]+\.md)(?: §(\d+))?/g)].map((m) => ({ name, page: m[1], section: m[2] })),
    );
    assert.ok(cited.length >= 15, `only ${cited.length} citations found`);
    for (const { name, page, section } of cited) {
      const file = path.join(REPO_ROOT, 'docs', page);
      assert.ok(fs.existsSync(file), `${name} cites docs/${page}`);
      if (section)
        assert.match(fs.readFileSync(file, 'utf8'), new RegExp(`^## ${section}\\. `, 'm'), `${name} cites docs/${page} §${section}`);
    }
  });
});
