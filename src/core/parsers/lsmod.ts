// Parser for `lsmod`: the loaded kernel modules, with or without the header line.
//
// Accepted forms (all seen in published outputs):
//   - full `lsmod`: header `Module                  Size  Used by`, then one line per module;
//   - `lsmod | grep nvidia` / `grep -E 'nvidia|mlx|ib_'`: the same lines without the header;
//   - lines indented as a whole (copies in documentation) and trailing spaces after the use count (old kmod).
// The "Used by" list is comma-separated; an empty item from a trailing comma is dropped and `[permanent]`
// (a module without an exit function, as /proc/modules prints it) becomes the `permanent` flag.
//
// Empty input: `lsmod` always prints its header, so empty input is a ParseError (line 1). `lsmod | grep x`
// that matches nothing prints nothing: pass `{ allowEmpty: true }` to read that as "no module loaded".
//
// Limits: lines are independent, so an output cut exactly at a line end, or inside the "Used by" list,
// cannot be told from a whole one; a line cut inside its numbers is reported.
import { fail, ok, Parsed, quote, readLines } from './result';
import { dedent, indentOf } from './hostFactsText';

export interface LsmodModule {
  /** Module name as printed (lsmod prints underscores: `nvidia_peermem`). */
  readonly name: string;
  /** Size in bytes. */
  readonly size: number;
  /** Reference count ("Used by" number). */
  readonly useCount: number;
  /** Modules that use this one, in printed order. */
  readonly usedBy: string[];
  /** True when the list carried `[permanent]` (module cannot be unloaded). */
  readonly permanent: boolean;
}

export interface Lsmod {
  readonly modules: LsmodModule[];
  /** Whether the `Module  Size  Used by` header was present (false for grep'd output). */
  readonly hasHeader: boolean;
}

export interface LsmodOptions {
  /** Read empty input as an empty module list (for `lsmod | grep …` that matched nothing). */
  readonly allowEmpty?: boolean;
}

const WHAT = 'lsmod';
const HEADER = /^Module\s+Size\s+Used by\s*$/;
const MODULE_LINE = /^([A-Za-z0-9_-]+)\s+(\d+)\s+(\d+)(?:\s+(\S.*))?$/;
const MODULE_NAME = /^[A-Za-z0-9_-]+$/;
const PROC_MODULES_TAIL = /\s(Live|Loading|Unloading)\s+0x[0-9a-fA-F]+\s*$/;
const EXPECTED = 'expected "<module> <size> <use count> [used,by,...]"';

export function parseLsmod(text: string, options: LsmodOptions = {}): Parsed<Lsmod> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) {
    if (options.allowEmpty) return ok({ modules: [], hasHeader: false });
    return fail(1, `${WHAT}: empty input; expected the "Module  Size  Used by" header and one line per module`);
  }
  const indent = indentOf(lines[first]);
  const hasHeader = HEADER.test(lines[first].trim());
  const modules: LsmodModule[] = [];
  const seen = new Set<string>();
  for (let i = hasHeader ? first + 1 : first; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    const parsed = parseModuleLine(dedent(raw, indent).trimEnd(), i + 1);
    if (!parsed.ok) return parsed;
    if (seen.has(parsed.value.name)) {
      return fail(
        i + 1,
        `${WHAT}: module ${quote(parsed.value.name)} is listed twice; expected one line per module (two outputs pasted together?)`,
      );
    }
    seen.add(parsed.value.name);
    modules.push(parsed.value);
  }
  return ok({ modules, hasHeader });
}

function parseModuleLine(line: string, lineNo: number): Parsed<LsmodModule> {
  if (HEADER.test(line.trim())) {
    return fail(lineNo, `${WHAT}: a second "Module  Size  Used by" header; expected a single lsmod output`);
  }
  if (PROC_MODULES_TAIL.test(line)) {
    return fail(lineNo, `${WHAT}: this looks like /proc/modules (state and address columns); ${EXPECTED}, found ${quote(line)}`);
  }
  const m = MODULE_LINE.exec(line.trim());
  if (!m) return fail(lineNo, `${WHAT}: ${EXPECTED}, found ${quote(line)}`);
  const holders = parseUsedBy(m[4] ?? '', lineNo);
  if (!holders.ok) return holders;
  return ok({
    name: m[1],
    size: Number(m[2]),
    useCount: Number(m[3]),
    usedBy: holders.value.usedBy,
    permanent: holders.value.permanent,
  });
}

function parseUsedBy(list: string, lineNo: number): Parsed<{ usedBy: string[]; permanent: boolean }> {
  const usedBy: string[] = [];
  let permanent = false;
  // `-` is what /proc/modules prints for "no users"; lsmod derivatives sometimes pass it through.
  const items = list.trim() === '-' ? [] : list.split(',');
  for (const item of items.map((s) => s.trim())) {
    if (item === '') continue; // trailing comma
    if (item === '[permanent]') {
      permanent = true;
    } else if (MODULE_NAME.test(item)) {
      usedBy.push(item);
    } else {
      return fail(lineNo, `${WHAT}: "Used by" should be a comma-separated list of module names, found ${quote(item)}`);
    }
  }
  return ok({ usedBy, permanent });
}

/**
 * The module of that name, or undefined. Dashes and underscores are equivalent, as for modprobe
 * (`nvidia-peermem` finds `nvidia_peermem`).
 */
export function findModule(lsmod: Lsmod, name: string): LsmodModule | undefined {
  const wanted = name.replace(/-/g, '_');
  return lsmod.modules.find((m) => m.name.replace(/-/g, '_') === wanted);
}
