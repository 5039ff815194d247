// The translation keys the sources use: the first argument of every t() call, read with the TypeScript
// parser. `t` is what a file imports under that name (or an alias) from @vscode/l10n or src/core/l10n.ts,
// and `vscode.l10n.t` / `l10n.t`. A key must be written out (a string literal): a computed one cannot
// be translated ahead of time, so it is reported as a problem with its file and line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export interface KeyUse {
  readonly key: string;
  readonly where: string;
}

export interface ScannedKeys {
  readonly uses: KeyUse[];
  /** `file:line: call` of t() calls whose key is not a literal. */
  readonly problems: string[];
}

/** Every .ts file under `dir` (or `dir` itself), sorted. */
export function sourceFiles(dir: string): string[] {
  if (fs.statSync(dir).isFile()) return [dir];
  return fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))
    .sort();
}

export function scanKeys(files: readonly string[], root: string): ScannedKeys {
  const uses: KeyUse[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const names = importedT(source);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isTCall(node.expression, names)) {
        const where = `${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const key = keyOf(node.arguments[0]);
        if (key === undefined) problems.push(`${where}: ${node.getText().slice(0, 80)}`);
        else uses.push({ key, where });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { uses, problems };
}

/** Local names of `t` imported from a translation module. */
function importedT(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    if (from !== '@vscode/l10n' && !/(^|\/)l10n$/.test(from)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const s of bindings.elements) if ((s.propertyName ?? s.name).text === 't') names.add(s.name.text);
  }
  return names;
}

function isTCall(callee: ts.Expression, names: ReadonlySet<string>): boolean {
  if (ts.isIdentifier(callee)) return names.has(callee.text);
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 't') return false;
  const owner = callee.expression.getText();
  return owner === 'l10n' || owner === 'vscode.l10n';
}

/** The key of a call's first argument: a literal message, or `{ message, comment }` as @vscode/l10n keys it. */
function keyOf(arg: ts.Expression | undefined): string | undefined {
  if (arg === undefined) return undefined;
  if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) return arg.text;
  if (!ts.isObjectLiteralExpression(arg)) return undefined;
  const prop = (name: string) => arg.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === name)?.initializer;
  const message = prop('message');
  const comment = prop('comment');
  if (!message || !(ts.isStringLiteral(message) || ts.isNoSubstitutionTemplateLiteral(message))) return undefined;
  if (comment === undefined) return message.text;
  if (ts.isStringLiteral(comment)) return `${message.text}/${comment.text}`;
  if (ts.isArrayLiteralExpression(comment) && comment.elements.every(ts.isStringLiteral)) return `${message.text}/${comment.elements.map((e) => (e as ts.StringLiteral).text).join('')}`;
  return undefined;
}
