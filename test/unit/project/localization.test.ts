// Every user-facing string has its Simplified Chinese translation: the manifest's `%key%` strings in
// package.nls.json (English) and package.nls.zh-cn.json, and every t() key of the sources (vscode.l10n.t
// in src/vscode, t() of @vscode/l10n in the webview, core's t()) in l10n/bundle.l10n.zh-cn.json, the
// bundle VS Code loads for `zh-cn` and hands to core and the webview. A translation keeps the
// placeholders and command links of its English text; no translation is kept for a key nothing uses.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { nlsKey, rawManifest } from '../../support/manifest';
import { scanKeys, sourceFiles } from '../../support/l10nCalls';

const readJson = (file: string): Record<string, string> => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));

/** Every string value of the manifest, deeply. */
function manifestStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(manifestStrings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(manifestStrings);
  return [];
}

/** `{0}`, `{1}`… of a message, sorted: a translation must use the same ones. */
const placeholders = (text: string) => [...text.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort();
/** `(command:gdrDoctor.addHost)` links of welcome views and walkthroughs. */
const commandLinks = (text: string) => [...text.matchAll(/\(command:[^)\s]+\)/g)].map((m) => m[0]).sort();

describe('localization: every string has a Simplified Chinese translation', () => {
  const english = readJson('package.nls.json');
  const chinese = readJson('package.nls.zh-cn.json');
  const bundle = readJson('l10n/bundle.l10n.zh-cn.json');
  const scanned = scanKeys(sourceFiles(path.join(REPO_ROOT, 'src')), REPO_ROOT);

  it('package.json: every %key% is in package.nls.json and package.nls.zh-cn.json, and nothing else is', () => {
    const used = [...new Set(manifestStrings(rawManifest()).map(nlsKey).filter((k): k is string => k !== undefined))].sort();
    assert.ok(used.length > 40, `${used.length} keys`);
    assert.deepEqual(Object.keys(english).sort(), used);
    assert.deepEqual(Object.keys(chinese).sort(), used);
  });

  it('package.json: the user-facing fields are %key% placeholders, not English written in', () => {
    const m = rawManifest();
    const fields = [
      m.description, m.contributes.views.gdrDoctor[0].name, m.contributes.viewsWelcome[0].contents, m.contributes.configuration.title,
      ...m.contributes.commands.flatMap((c: { title: string; category: string }) => [c.title, c.category]),
      ...m.contributes.walkthroughs.flatMap((w: { title: string; description: string; steps: { title: string; description: string }[] }) =>
        [w.title, w.description, ...w.steps.flatMap((s) => [s.title, s.description])]),
      ...Object.values(m.contributes.configuration.properties).map((p) => (p as { markdownDescription: string }).markdownDescription),
    ];
    for (const f of fields) assert.ok(nlsKey(f) !== undefined, f);
  });

  it('package.nls.zh-cn.json: translated, with the same command links and placeholders', () => {
    for (const [key, text] of Object.entries(english)) {
      assert.ok(chinese[key]?.trim(), `${key} is translated`);
      assert.deepEqual(commandLinks(chinese[key]), commandLinks(text), key);
      assert.deepEqual(placeholders(chinese[key]), placeholders(text), key);
    }
  });

  it('package.nls.zh-cn.json: the walkthrough\'s media are Chinese files that exist', () => {
    const media = Object.entries(chinese).filter(([key]) => key.endsWith('.media'));
    assert.equal(media.length, 6);
    for (const [key, file] of media) {
      assert.notEqual(file, english[key], key);
      assert.match(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), /\p{Script=Han}/u, file);
    }
  });

  it('the sources write every t() key out, so it can be translated ahead of time', () => {
    assert.deepEqual(scanned.problems, []);
    assert.ok(scanned.uses.length > 200, `${scanned.uses.length} t() calls`);
  });

  it('l10n/bundle.l10n.zh-cn.json: every t() key of the sources is translated, with its placeholders', () => {
    const missing = [...new Set(scanned.uses.filter((u) => !bundle[u.key]?.trim()).map((u) => `${u.where}: ${JSON.stringify(u.key)}`))];
    assert.deepEqual(missing, []);
    const wrong = Object.entries(bundle).filter(([key, text]) => placeholders(text).join() !== placeholders(key).join()).map(([key]) => key);
    assert.deepEqual(wrong, []);
  });

  it('l10n/bundle.l10n.zh-cn.json: no translation of a key that nothing uses', () => {
    const used = new Set(scanned.uses.map((u) => u.key));
    assert.deepEqual(Object.keys(bundle).filter((k) => !used.has(k)), []);
  });

  it('the webview and the Hosts tree are localized (t() in their sources)', () => {
    for (const dir of ['src/webview', 'src/vscode/tree', 'src/vscode/commands', 'src/extension.ts']) {
      assert.ok(scanned.uses.some((u) => u.where.startsWith(dir)), `${dir} uses t()`);
    }
  });
});
