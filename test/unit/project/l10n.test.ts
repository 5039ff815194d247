// Every text core and the CLI translate has its Simplified Chinese, with the same placeholders: a key
// missing from l10n/bundle.l10n.zh-cn.json would silently print English in a Chinese run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scanKeys } from '../../support/l10nKeys';
import { REPO_ROOT } from '../../support/paths';

const BUNDLE = path.join(REPO_ROOT, 'l10n/bundle.l10n.zh-cn.json');
const bundle = JSON.parse(fs.readFileSync(BUNDLE, 'utf8')) as Record<string, string>;
const placeholders = (text: string) => [...new Set(text.match(/\{\d+\}/g) ?? [])].sort();

describe('translations of core and the CLI (l10n/bundle.l10n.zh-cn.json)', () => {
  const scan = scanKeys(['src/core', 'src/cli', 'src/cli.ts']);

  it('finds the keys: hundreds of t() calls, every one with a literal first argument', () => {
    assert.ok(scan.keys.size > 400, `${scan.keys.size} keys`);
    assert.deepEqual(scan.dynamic, [], 't() with a computed key cannot be checked or extracted');
  });

  it('has a Chinese text for every key', () => {
    const missing = [...scan.keys].filter(([key]) => typeof bundle[key] !== 'string' || bundle[key] === '').map(([key, at]) => `${at}: ${JSON.stringify(key)}`);
    assert.deepEqual(missing, []);
  });

  it('keeps each key\'s placeholders ({0}, {1}, …) in its translation', () => {
    const wrong = Object.entries(bundle).filter(([key, zh]) => placeholders(key).join() !== placeholders(zh).join()).map(([key]) => key);
    assert.deepEqual(wrong, []);
  });

  it('is sorted by key, so two branches adding keys merge line by line', () => {
    const keys = Object.keys(bundle);
    assert.deepEqual(keys, [...keys].sort());
  });
});
