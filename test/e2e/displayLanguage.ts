// A display language for code-server. VS Code takes `--locale zh-cn` only when a language pack for
// zh-cn is installed (otherwise it stays English, and so do the extensions); the Marketplace's pack
// cannot be fetched here. test/e2e/zh-cn-display-language is a language pack that declares zh-cn with
// none of VS Code's own translations: VS Code's words stay English, and an extension's own
// package.nls.zh-cn.json and l10n/bundle.l10n.zh-cn.json apply as under the real pack.
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { CodeServerDirs } from './codeServer';
import { REPO_ROOT } from './environment';

const PACKS: Record<string, string> = { 'zh-cn': 'test/e2e/zh-cn-display-language' };

/** Packages the language pack of `locale` into `outDir` with vsce; the .vsix's path. */
export function packageDisplayLanguage(locale: string, outDir: string): string {
  const vsix = path.join(outDir, `display-language-${locale}.vsix`);
  const vsce = path.join(REPO_ROOT, 'node_modules/@vscode/vsce/vsce');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', vsix], {
    cwd: packFolder(locale), stdio: 'pipe', timeout: 120_000,
  });
  return vsix;
}

/**
 * Lists the installed pack in `languagepacks.json` of the user data, where VS Code looks up the packs
 * at start: its language-pack service writes that entry when a pack is installed from the UI, but
 * `--install-extension` does not. The entry as VS Code writes it (platform/languagePacks/node/languagePacks.ts).
 */
export function registerDisplayLanguage(locale: string, dirs: CodeServerDirs): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(packFolder(locale), 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`.toLowerCase();
  const installed = path.join(dirs.extensions, `${id}-${manifest.version}`);
  const [contribution] = manifest.contributes.localizations;
  const translations = Object.fromEntries(contribution.translations.map((t: { id: string; path: string }) => [t.id, path.join(installed, t.path)]));
  if (!fs.existsSync(translations.vscode)) throw new Error(`the ${locale} language pack is not installed at ${installed}`);
  const entry = {
    hash: createHash('md5').update(id).update(manifest.version).digest('hex'),
    extensions: [{ extensionIdentifier: { id }, version: manifest.version }],
    translations,
    label: contribution.localizedLanguageName,
  };
  fs.writeFileSync(path.join(dirs.userData, 'languagepacks.json'), JSON.stringify({ [contribution.languageId]: entry }));
}

function packFolder(locale: string): string {
  const folder = PACKS[locale];
  if (!folder) throw new Error(`no display-language pack for ${locale} (known: ${Object.keys(PACKS).join(', ')})`);
  return path.join(REPO_ROOT, folder);
}
