// Host lists as pdsh and ClusterShell write them (`gpu[01-64]`, `node-[1-4,7]`, `r[1-2]n[1-2]`,
// `gdr@gpu[1-2]`), a hosts file of such lists, and the folded form back (hostlistFold.ts). The names
// end up on command lines (ssh, srun --nodelist, pdsh -w), so only [A-Za-z0-9._@:-] is accepted, no
// name may begin with `-` (it would read as an option) and a refusal says where, by column.
import { foldNames } from './hostlistFold';

/** More hosts than any fan-out here is meant for; also bounds the work a typo like `[1-99999999]` causes. */
export const MAX_HOSTS = 10000;

const HOST_CHAR = /^[A-Za-z0-9._@:-]$/;
const SPACE = /^\s$/;

export class HostListError extends Error {
  constructor(
    /** What is wrong, without the position. */
    readonly reason: string,
    /** The text refused (the whole list, or the hosts file's line). */
    readonly text: string,
    /** 1-based column in `text`. */
    readonly column: number,
    /** 1-based line, for a hosts file. */
    readonly line?: number,
  ) {
    super(`${line === undefined ? '' : `line ${line}, `}column ${column}: ${reason} in "${text}"`);
    this.name = 'HostListError';
  }
}

interface Element {
  readonly text: string;
  /** 0-based offset in the whole list. */
  readonly start: number;
}

/** One bracket group's values (as written, padding kept) or a literal run of the name. */
type Segment = { readonly literal: string } | { readonly values: readonly string[] };

/**
 * The hosts of a list, in the order written, duplicates dropped: commas and whitespace separate (a
 * comma inside brackets belongs to the range), the last bracket group varies fastest, a range is
 * zero-padded to the width of its lower bound (pdsh; ClusterShell refuses widths that differ).
 */
export function expandHostList(text: string): string[] {
  const seen = new Set<string>();
  for (const el of splitElements(text)) {
    for (const host of expandElement(text, el)) seen.add(host);
    if (seen.size > MAX_HOSTS) throw new HostListError(`more than ${MAX_HOSTS} hosts`, text, el.start + 1);
  }
  return [...seen];
}

/** The hosts as one list, folded the way `nodeset -f` folds them: expandHostList gives the same set back. */
export function foldHostList(hosts: readonly string[]): string {
  for (const host of hosts) {
    const bad = [...host].findIndex((c) => !HOST_CHAR.test(c));
    if (host === '' || bad >= 0) throw new HostListError('not a single host name', host, Math.max(bad, 0) + 1);
  }
  return foldNames(hosts);
}

/** Every host of a hosts file: one list per line, `#` starts a comment; an error names its line. */
export function parseHostsFile(text: string): string[] {
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/#.*$/, '');
    try {
      for (const host of expandHostList(line)) seen.add(host);
    } catch (e) {
      if (e instanceof HostListError) throw new HostListError(e.reason, raw, e.column, i + 1);
      throw e;
    }
    if (seen.size > MAX_HOSTS) throw new HostListError(`more than ${MAX_HOSTS} hosts`, raw, 1, i + 1);
  }
  return [...seen];
}

/** Top-level elements; a comma with nothing before (or after) it is an empty element. */
function splitElements(text: string): Element[] {
  const out: Element[] = [];
  let start = -1;
  let open = -1;
  let sinceComma = false;
  let lastComma = -1;
  const close = (i: number) => {
    if (start >= 0) out.push({ text: text.slice(start, i), start });
    if (start >= 0) sinceComma = true;
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (open >= 0) {
      if (c === ']') open = -1;
      else if (c === '[') throw new HostListError('bracket inside brackets', text, i + 1);
      else if (SPACE.test(c)) throw new HostListError('whitespace inside brackets', text, i + 1);
      continue;
    }
    if (c === ',' || SPACE.test(c)) {
      close(i);
      if (c === ',' && !sinceComma) throw new HostListError('empty element', text, i + 1);
      if (c === ',') [sinceComma, lastComma] = [false, i];
      continue;
    }
    if (c === '[') open = i;
    if (start < 0) start = i;
  }
  if (open >= 0) throw new HostListError('unclosed bracket', text, open + 1);
  close(text.length);
  if (lastComma >= 0 && !sinceComma) throw new HostListError('empty element', text, lastComma + 1);
  return out;
}

function expandElement(text: string, el: Element): string[] {
  checkShape(text, el);
  const segments = parseSegments(text, el);
  const count = segments.reduce((n, s) => ('values' in s ? n * s.values.length : n), 1);
  if (count > MAX_HOSTS) throw new HostListError(`more than ${MAX_HOSTS} hosts`, text, el.start + 1);
  let names = [''];
  for (const s of segments) names = 'literal' in s ? names.map((n) => n + s.literal) : names.flatMap((n) => s.values.map((v) => n + v));
  return names;
}

/** `user@host`: one `@` at most, neither part empty, neither beginning with `-` or `.`. */
function checkShape(text: string, el: Element): void {
  const at = el.text.indexOf('@');
  if (at >= 0 && el.text.indexOf('@', at + 1) >= 0)
    throw new HostListError('more than one "@"', text, el.start + el.text.indexOf('@', at + 1) + 1);
  if (at === 0 || at === el.text.length - 1) throw new HostListError('empty user or host around "@"', text, el.start + at + 1);
  for (const begin of at >= 0 ? [0, at + 1] : [0]) {
    if (el.text[begin] === '-' || el.text[begin] === '.')
      throw new HostListError(`a name may not begin with "${el.text[begin]}"`, text, el.start + begin + 1);
  }
}

function parseSegments(text: string, el: Element): Segment[] {
  const segments: Segment[] = [];
  let literal = '';
  for (let i = 0; i < el.text.length; i++) {
    const c = el.text[i];
    if (c === '[') {
      const end = el.text.indexOf(']', i);
      if (literal === '' && segments.length > 0) throw new HostListError('two bracket groups next to each other', text, el.start + i + 1);
      if (literal !== '') segments.push({ literal });
      literal = '';
      segments.push({ values: rangeValues(text, el.text.slice(i + 1, end), el.start + i + 1) });
      i = end;
    } else if (c === ']') {
      throw new HostListError('"]" without "["', text, el.start + i + 1);
    } else if (!HOST_CHAR.test(c)) {
      throw new HostListError(
        `character ${JSON.stringify(c)} not allowed (letters, digits, . _ @ : - and [ranges])`,
        text,
        el.start + i + 1,
      );
    } else {
      literal += c;
    }
  }
  if (literal !== '') segments.push({ literal });
  return segments;
}

/** `1-4,7`, `01-64`, `5`: values in the order written; `offset` is the 0-based position of the body. */
function rangeValues(text: string, body: string, offset: number): string[] {
  const values: string[] = [];
  let at = offset;
  for (const part of body.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new HostListError(part === '' ? 'empty range' : `bad range "${part}" (digits, a-b, comma-separated)`, text, at + 1);
    const [lo, hi] = [BigInt(m[1]), BigInt(m[2] ?? m[1])];
    if (hi < lo) throw new HostListError(`reversed range ${part}`, text, at + 1);
    if (hi - lo >= BigInt(MAX_HOSTS)) throw new HostListError(`more than ${MAX_HOSTS} hosts`, text, at + 1);
    for (let v = lo; v <= hi; v++) values.push(v.toString().padStart(m[1].length, '0'));
    at += part.length + 1;
  }
  return values;
}
