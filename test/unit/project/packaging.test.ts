// What the .vsix would hold, as `vsce ls` lists it: the bundles and assets, never node_modules,
// native *.node files (ssh2's optional parts stay out) or the README's screenshots.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

describe('packaging (vsce ls)', () => {
  it('ships the bundles, grammar, demo outputs and translations, and nothing from node_modules', function () {
    this.timeout(120_000);
    const vsce = path.join(REPO_ROOT, 'node_modules/@vscode/vsce/vsce');
    const files = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n');
    for (const f of ['package.json', 'dist/extension.js', 'dist/cli.js', 'dist/webview.js', 'syntaxes/nvidia-topo.tmLanguage.json', 'media/demo/host/topo.txt', 'media/demo/peermem-loaded/lsmod.txt', 'package.nls.json', 'package.nls.zh-cn.json', 'l10n/bundle.l10n.zh-cn.json']) {
      assert.ok(files.includes(f), `${f} is packaged`);
    }
    assert.deepEqual(files.filter((f) => f.startsWith('node_modules/') || f.endsWith('.node') || f.startsWith('src/') || f.includes('screenshots')), []);
  });
});
