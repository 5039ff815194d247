// The translation keys of core and the CLI, as the code writes them: the first argument of every
// t('…') call (or of t's local name, `import { t as l10n }`), a string or template literal without
// substitutions, in the files that import t from core/l10n. The l10n test checks that the bundles cover them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './paths';

const LITERAL = String.raw`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\`(?:[^\`\\$]|\\.|\$(?!\{))*\``;
const IMPORT = /import \{ t(?: as (\w+))? \} from '[./]*(?:core\/)?l10n'/;
const call = (name: string) => new RegExp(String.raw`(?<![\w.$])${name}\(\s*(${LITERAL})`, 'g');
const anyCall = (name: string) => new RegExp(String.raw`(?<![\w.$])${name}\(\s*(?!\))`, 'g');

export interface KeyScan {
  readonly keys: Map<string, string>;
  /** `file:line` of t( calls whose first argument is not a literal (their keys cannot be checked). */
  readonly dynamic: string[];
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every key used under the given folders/files (relative to the repository), with where it is first used. */
export function scanKeys(roots: readonly string[]): KeyScan {
  const keys = new Map<string, string>();
  const dynamic: string[] = [];
  const files = roots.flatMap((r) => {
    const full = path.join(REPO_ROOT, r);
    return fs.statSync(full).isDirectory() ? sourceFiles(full) : [full];
  });
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const imported = IMPORT.exec(text);
    if (!imported) continue;
    const name = imported[1] ?? 't';
    const where = (index: number) => `${path.relative(REPO_ROOT, file)}:${text.slice(0, index).split('\n').length}`;
    const literalAt = new Set<number>();
    for (const m of text.matchAll(call(name))) {
      literalAt.add(m.index);
      // Our own source's literal, read as JavaScript reads it (escapes and all).
      const key = new Function(`return ${m[1]};`)() as string;
      if (!keys.has(key)) keys.set(key, where(m.index));
    }
    for (const m of text.matchAll(anyCall(name))) if (!literalAt.has(m.index)) dynamic.push(where(m.index));
  }
  return { keys, dynamic };
}
