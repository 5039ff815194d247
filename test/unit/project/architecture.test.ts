// The lint rules must really fire: src/core (and the webview) free of VS Code, comments within 140 columns.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../../support/paths';

async function ruleIdsFor(relativePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, relativePath) });
  return result.messages.map((m) => m.ruleId ?? m.message);
}

describe('architecture lint rule', () => {
  it('rejects an import of vscode in src/core', async () => {
    const ids = await ruleIdsFor('src/core/parsers/example.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.ok(ids.includes('no-restricted-imports'), `got ${ids.join(', ')}`);
  });

  it('rejects require("vscode") in src/core', async () => {
    const ids = await ruleIdsFor(
      'src/core/example.ts',
      "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const v = require('vscode');\n",
    );
    assert.ok(ids.includes('no-restricted-syntax'), `got ${ids.join(', ')}`);
  });

  it('rejects an import of vscode in src/webview', async () => {
    const ids = await ruleIdsFor('src/webview/example.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.ok(ids.includes('no-restricted-imports'), `got ${ids.join(', ')}`);
  });

  it('allows vscode in the adapters', async () => {
    const ids = await ruleIdsFor('src/vscode/example.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n");
    assert.deepEqual(ids, []);
  });

  it('holds comments to 140 columns, and lets a long string (one translation key, a verbatim output) pass', async () => {
    const comment = `// ${'word '.repeat(30)}\nexport const x = 1;\n`;
    assert.deepEqual(await ruleIdsFor('src/core/example.ts', comment), ['max-len']);
    const text = `export const x = '${'word '.repeat(40)}';\n`;
    assert.deepEqual(await ruleIdsFor('src/core/example.ts', text), []);
  });
});
