// Parser for `modinfo <module>`: the fields of one kernel module file, or the "not found" answer.
//
// Layout: `key:` padded to 16 columns, then the value (`depends:` may have none). Keys repeat (`alias`,
// `firmware`, `parm`, `import_ns`, …); every value is kept, in order, in `values[key]`, and `fields[key]`
// holds the first one. A line that starts with whitespace continues the previous value: the hex lines of
// `signature`/`sig_key` (joined without a separator, so the bytes read on) and a `parm` description that
// itself contains a newline (joined with "\n").
//
// `modinfo: ERROR: Module nvidia_peermem not found.` is not a parse failure but the answer the diagnosis
// needs: it becomes `{ found: false, module: "nvidia_peermem" }`.
//
// Checks: the first field must be `filename` (catches `modinfo -F …` output and other commands), a second
// `filename` means two modules' outputs, and a module file always carries `vermagic`, so its absence means
// the output was cut (built-in modules, `filename: (builtin)`, have none and are exempt). Limits: parm lines
// after `vermagic` could be cut without a trace.
import { fail, ok, Parsed, quote } from './result';
import { dedent, factLines, indentOf, NumberedLine } from './hostFactsText';

export interface ModinfoParm {
  readonly name: string;
  /** Description as printed, including the trailing `(type)` when there is one; may be "" . */
  readonly description: string;
  /** The type in the trailing parentheses (`int`, `charp`…) or after a bare `name:type`; null if none. */
  readonly type: string | null;
}

export interface ModinfoFound {
  readonly found: true;
  /** `name:` field, else the file name without `.ko[.xz|.zst|.gz]`, with dashes as underscores. */
  readonly module: string;
  /** First value of every key, trimmed. */
  readonly fields: Record<string, string>;
  /** Every value of every key, in printed order. */
  readonly values: Record<string, string[]>;
  readonly aliases: string[];
  /** `depends:` split on commas; [] when empty. */
  readonly depends: string[];
  readonly firmware: string[];
  readonly parm: ModinfoParm[];
}

export interface ModinfoNotFound {
  readonly found: false;
  readonly module: string;
  /** The error line as printed. */
  readonly message: string;
}

export type Modinfo = ModinfoFound | ModinfoNotFound;

const WHAT = 'modinfo';
const NOT_FOUND = /^modinfo: ERROR: Module (\S+) not found\.?$/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_.-]*):(?:[ \t]+(.*))?$/;
const HEX_CONTINUATION = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2})*:?$/;

export function parseModinfo(text: string): Parsed<Modinfo> {
  const read = factLines(text, WHAT, `"filename:" and the module's fields, or "modinfo: ERROR: Module … not found."`);
  if (!read.ok) return read;
  const lines = read.value;
  const notFound = NOT_FOUND.exec(lines[0].text.trim());
  if (notFound) {
    if (lines.length > 1) return fail(lines[1].line, `${WHAT}: unexpected text after the "not found" error: ${quote(lines[1].text)}`);
    return ok({ found: false, module: notFound[1], message: lines[0].text.trim() });
  }
  const pairs = readPairs(lines);
  if (!pairs.ok) return pairs;
  return buildModule(pairs.value, lines[lines.length - 1].line);
}

interface Pair {
  key: string;
  value: string;
  line: number;
}

function readPairs(lines: readonly NumberedLine[]): Parsed<Pair[]> {
  const indent = indentOf(lines[0].text);
  const pairs: Pair[] = [];
  for (const { text, line } of lines) {
    const own = dedent(text, indent);
    if (own[0] === ' ' || own[0] === '\t') {
      const last = pairs[pairs.length - 1];
      if (!last) return fail(line, `${WHAT}: expected "filename:" first, found an indented line ${quote(text)}`);
      last.value = continueValue(last.value, own.trim());
      continue;
    }
    const m = KEY_LINE.exec(own.trimEnd());
    if (!m) return fail(line, `${WHAT}: expected "key:   value", found ${quote(text)}`);
    pairs.push({ key: m[1], value: (m[2] ?? '').trim(), line });
  }
  return ok(pairs);
}

function continueValue(value: string, more: string): string {
  // Signature bytes are wrapped at 20 per line, each line ending in ":"; join them back into one string.
  if (value.endsWith(':') && HEX_CONTINUATION.test(more)) return value + more;
  return `${value}\n${more}`;
}

function buildModule(pairs: readonly Pair[], lastLine: number): Parsed<ModinfoFound> {
  if (pairs[0].key !== 'filename') {
    return fail(
      pairs[0].line,
      `${WHAT}: expected "filename:" as the first field, found ${quote(`${pairs[0].key}:`)} (output of "modinfo -F", or another command?)`,
    );
  }
  // Null-prototype maps: keys come from the input, and "constructor" or "__proto__" must stay plain keys.
  const values: Record<string, string[]> = Object.create(null);
  for (const p of pairs) {
    if (p.key === 'filename' && p !== pairs[0]) {
      return fail(p.line, `${WHAT}: a second "filename:" field; expected the output for a single module`);
    }
    (values[p.key] ??= []).push(p.value);
  }
  const filename = values.filename[0];
  if (!values.vermagic && filename !== '(builtin)') {
    return fail(lastLine, `${WHAT}: no "vermagic:" field; every module file has one, so the output looks cut off`);
  }
  const fields: Record<string, string> = Object.create(null);
  for (const [key, list] of Object.entries(values)) fields[key] = list[0];
  const parm = (values.parm ?? []).map(parseParm);
  return ok({
    found: true,
    module: fields.name || moduleNameFromFile(filename),
    fields,
    values,
    aliases: values.alias ?? [],
    depends: (fields.depends ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    firmware: values.firmware ?? [],
    parm,
  });
}

/** `NVreg_EnableMSI:int` or `peerdirect_support:Set level … (int)`. */
function parseParm(value: string): ModinfoParm {
  const colon = value.indexOf(':');
  if (colon < 0) return { name: value, description: '', type: null };
  const name = value.slice(0, colon);
  const description = value.slice(colon + 1).trim();
  const paren = /\(([A-Za-z0-9_]+)\)$/.exec(description);
  if (paren) return { name, description, type: paren[1] };
  // Parameters without a description print just their type.
  return { name, description, type: /^[A-Za-z0-9_]+$/.test(description) ? description : null };
}

function moduleNameFromFile(filename: string): string {
  const base = filename.slice(filename.lastIndexOf('/') + 1);
  return base.replace(/\.ko(\.(xz|zst|gz))?$/, '').replace(/-/g, '_');
}

/**
 * Which flavour of the NVIDIA kernel module a `modinfo nvidia` shows: the open modules are licensed
 * "Dual MIT/GPL", the proprietary ones "NVIDIA". Null for other modules or licenses.
 */
export function nvidiaModuleFlavor(info: Modinfo): 'open' | 'proprietary' | null {
  if (!info.found) return null;
  const license = info.fields.license;
  if (license === 'Dual MIT/GPL') return 'open';
  if (license === 'NVIDIA') return 'proprietary';
  return null;
}
