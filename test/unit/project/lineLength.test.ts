// No line of code over 160 columns beyond one string literal (issue 24 item 5). ESLint's max-len (140)
// skips every line that holds a string, a template or a regular expression, so a 250-column line of
// nested templates or one long regex passed it. Here each .ts file is tokenized with TypeScript's own
// scanner: a long line may hold one plain string (a translation key, a verbatim quote) as long as the
// code around it fits; a template with `${}`, a regex or a second string on a long line must be split.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { LIMIT, literalTokens, longLineFaults } from '../../support/longLines';
import { REPO_ROOT } from '../../support/paths';

const ROOTS = ['src', 'test', 'bench'];

function typeScriptFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(full);
    return entry.isFile() && entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('line length beyond strings', () => {
  const long = (code: string): string => `export const x = ${code};\n`;
  const pad = 'w'.repeat(170);

  it('lets a long line hold one plain string when the code around it fits', () => {
    assert.deepEqual(longLineFaults(long(`'${pad}'`)), []);
    assert.deepEqual(longLineFaults(long(`\`${pad}\``)), []);
  });

  it('refuses a long template with substitutions, a long regex, two strings, or long code', () => {
    assert.deepEqual(longLineFaults(long(`\`${pad}\${x}\``)), ['1: a template with ${} on a long line']);
    assert.deepEqual(longLineFaults(long(`/${pad}/`)), ['1: a regular expression on a long line']);
    assert.deepEqual(longLineFaults(long(`'${pad}' + 'b'`)), ['1: 2 strings on a long line']);
    assert.deepEqual(longLineFaults(long(`${pad} + f('b')`)), ['1: 194 columns of code besides its string']);
  });

  it('tells a regular expression from a division, and a template’s closing brace from a block’s', () => {
    const tokens = literalTokens('const a = b / c / d; const r = /x{2}/g; const t = `${{ k: 1 }.k}z`; if (a) { f(`q`); }');
    const { RegularExpressionLiteral, TemplateHead, TemplateTail, NoSubstitutionTemplateLiteral } = ts.SyntaxKind;
    assert.deepEqual(
      tokens.map((t) => t.kind),
      [RegularExpressionLiteral, TemplateHead, TemplateTail, NoSubstitutionTemplateLiteral],
    );
  });

  it('holds in every TypeScript file of src/, test/ and bench/', () => {
    const faults = ROOTS.flatMap((root) => typeScriptFiles(path.join(REPO_ROOT, root))).flatMap((file) =>
      longLineFaults(fs.readFileSync(file, 'utf8')).map((fault) => `${path.relative(REPO_ROOT, file)}:${fault}`),
    );
    assert.deepEqual(faults, [], `${faults.length} lines over ${LIMIT} columns:\n${faults.join('\n')}`);
  });
});
