// The Chinese walkthrough speaks the Hosts view's words: where it quotes what a row says (a GPU's
// verdict), it quotes the Chinese the tree shows, never the English.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

const bundle = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const dir = path.join(REPO_ROOT, 'media/walkthrough/zh-cn');

describe('the Chinese walkthrough quotes the tree as it reads in Chinese', () => {
  it('GPU verdicts as the tree words them (GDR 是 / GDR 否), no English verdict words', () => {
    const pages = fs.readdirSync(dir).filter((f) => f.endsWith('.md'));
    assert.ok(pages.length >= 6, pages.join(', '));
    const text = pages.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
    for (const english of ['GDR yes', 'GDR no']) {
      assert.ok(!text.includes(english), `"${english}" in the Chinese walkthrough`);
      assert.ok(bundle[english], english);
    }
    assert.ok(text.includes(bundle['GDR yes']), `the walkthrough quotes "${bundle['GDR yes']}"`);
  });

  it('a Latin word or a placeholder filled with one is set off from Chinese by a space ("算作 NODE", not "算作NODE")', () => {
    const counts = Object.entries(bundle).filter(([k]) => k.startsWith('Between a GPU and a NIC, {0} counts {1}'));
    assert.equal(counts.length, 2);
    for (const [, zh] of counts) assert.match(zh, /算作 \{1\}/);
  });
});
