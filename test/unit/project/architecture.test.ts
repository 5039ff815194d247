// The lint rule that keeps src/core (and the webview) free of VS Code must really fire.
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
});
