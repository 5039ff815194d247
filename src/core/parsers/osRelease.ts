// Parser for /etc/os-release (os-release(5)): newline-separated KEY=value assignments in shell syntax.
//
// Values are unquoted (`ID=ubuntu`), 'single-quoted' (taken literally) or "double-quoted", where a
// backslash escapes `"`, `\`, `$` and `` ` `` as in the shell (before any other character it is kept).
// Outside quotes a backslash escapes the next character. Lines starting with `#` are comments; blank
// lines are ignored; a repeated key keeps its last value, as a shell sourcing the file would.
// Defaults from os-release(5): ID "linux", NAME "Linux", PRETTY_NAME "Linux".
//
// Errors: a line that is not KEY=value, whitespace outside quotes, or an unclosed quote (how a cut-off
// copy usually ends). A copy cut exactly at a line end cannot be told from a whole file.
import { fail, ok, Parsed, quote, readLines } from './result';

export interface OsRelease {
  /** Every assignment, unquoted, keyed as printed. */
  readonly fields: Record<string, string>;
  /** `ID`, default "linux". */
  readonly id: string;
  /** `ID_LIKE` split on spaces; [] when absent. */
  readonly idLike: string[];
  /** `VERSION_ID`; null on rolling releases that have none. */
  readonly versionId: string | null;
  /** `PRETTY_NAME`, else `NAME`, else "Linux". */
  readonly prettyName: string;
}

const WHAT = '/etc/os-release';
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

export function parseOsRelease(text: string): Parsed<OsRelease> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  // Keys come from the input: a null-prototype map keeps "constructor" and "__proto__" plain keys.
  const fields: Record<string, string> = Object.create(null);
  let count = 0;
  for (const [i, raw] of read.value.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = ASSIGNMENT.exec(line);
    if (!m) return fail(i + 1, `${WHAT}: expected KEY=value (such as ID=ubuntu), found ${quote(raw)}`);
    const value = unquote(m[2]);
    if (typeof value !== 'string') return fail(i + 1, `${WHAT}: ${value.error} in ${quote(raw)}`);
    fields[m[1]] = value;
    count++;
  }
  if (count === 0) return fail(1, `${WHAT}: no KEY=value line; expected assignments such as ID=ubuntu`);
  return ok({
    fields,
    id: fields.ID ?? 'linux',
    idLike: (fields.ID_LIKE ?? '').split(/\s+/).filter((s) => s !== ''),
    versionId: fields.VERSION_ID ?? null,
    prettyName: fields.PRETTY_NAME ?? fields.NAME ?? 'Linux',
  });
}

const DOUBLE_QUOTE_ESCAPABLE = new Set(['"', '\\', '$', '`']);

/** Shell-style unquoting of one value; linear, one pass. */
function unquote(value: string): string | { error: string } {
  let out = '';
  let i = 0;
  while (i < value.length) {
    const c = value[i];
    if (c === "'") {
      const end = value.indexOf("'", i + 1);
      if (end < 0) return { error: 'unclosed single quote' };
      out += value.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const read = readDoubleQuoted(value, i + 1);
      if (!read) return { error: 'unclosed double quote' };
      out += read.text;
      i = read.next;
    } else if (c === '\\') {
      if (i + 1 >= value.length) return { error: 'a backslash at the end of the line' };
      out += value[i + 1];
      i += 2;
    } else if (c === ' ' || c === '\t') {
      return { error: 'whitespace outside quotes (values with spaces must be quoted)' };
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function readDoubleQuoted(value: string, start: number): { text: string; next: number } | null {
  let text = '';
  for (let i = start; i < value.length; i++) {
    const c = value[i];
    if (c === '"') return { text, next: i + 1 };
    if (c === '\\' && i + 1 < value.length && DOUBLE_QUOTE_ESCAPABLE.has(value[i + 1])) {
      text += value[i + 1];
      i++;
    } else {
      text += c;
    }
  }
  return null;
}
