// Reading ssh_config files: lines into keyword + arguments, and Include expansion with globs.
// Kept apart from evaluation so both the resolver and diagnostics can name file and line.
import * as path from 'node:path';

export interface ConfigLine {
  /** Lower-cased keyword. */
  readonly keyword: string;
  readonly args: readonly string[];
  /** Everything after the keyword and its separator, as written (ProxyCommand takes the line whole). */
  readonly rest: string;
  readonly file: string;
  readonly line: number;
}

/** What the resolver needs from a file system; tests and the CLI pass the real one. */
export interface ConfigFs {
  readFile(file: string): string | null;
  listDir(dir: string): string[] | null;
}

/** Splits one line: keyword, then arguments separated by spaces or a single `=`; "quoted args" kept whole. */
export function splitConfigLine(text: string): { keyword: string; args: string[]; rest: string } | null {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(trimmed) ?? /^(\S+)()$/.exec(trimmed);
  if (!m) return null;
  // ssh skips any further blanks and `=` before a command (readconf.c parse_command).
  return { keyword: m[1].toLowerCase(), args: splitArgs(m[2]), rest: m[2].replace(/^[\s=]+/, '') };
}

function splitArgs(rest: string): string[] {
  const args: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    if (m[2]?.startsWith('#')) break; // a trailing comment
    args.push(m[1] ?? m[2]);
  }
  return args;
}

export function readConfigLines(fsys: ConfigFs, file: string): ConfigLine[] | null {
  const text = fsys.readFile(file);
  if (text === null) return null;
  const lines: ConfigLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const parsed = splitConfigLine(raw);
    if (parsed) lines.push({ ...parsed, file, line: i + 1 });
  });
  return lines;
}

/**
 * Expands one Include argument to files, sorted as glob(3) returns them. Relative paths are
 * taken from ~/.ssh for the user's config and /etc/ssh for the system one (ssh_config(5)).
 */
export function includeTargets(fsys: ConfigFs, pattern: string, baseDir: string, home: string): string[] {
  const expanded = pattern === '~' || pattern.startsWith('~/') ? home + pattern.slice(1) : pattern;
  const absolute = path.isAbsolute(expanded) ? expanded : path.join(baseDir, expanded);
  const parts = absolute.split('/').filter((p) => p !== '');
  return globParts(fsys, '/', parts).sort();
}

function globParts(fsys: ConfigFs, dir: string, parts: readonly string[]): string[] {
  if (parts.length === 0) return [dir];
  const [head, ...rest] = parts;
  if (!/[*?[]/.test(head)) return globParts(fsys, path.join(dir, head), rest);
  const re = new RegExp(
    `^${head
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );
  const names = (fsys.listDir(dir) ?? []).filter((n) => re.test(n) && !n.startsWith('.')).sort();
  return names.flatMap((n) => globParts(fsys, path.join(dir, n), rest));
}
