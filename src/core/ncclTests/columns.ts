// The result table's columns, read from its header line the way nccl-tests prints it (src/util.cu
// writeResultHeader: `size count type redop root` then per direction `time algbw busbw #wrong`, with
// -I 1 also `i_min i_max i_p99 i_cv%`, -C `cputime`, -T a trailing `timestamp`; before 2.13 each test
// printed its own header with an `error` column and no `root`, all_gather and sendrecv without `redop`;
// the 2017 layout says `bytes N type op … res`). A row is read against those columns: every value is
// checked, and a row with fewer values than columns is reported as cut, never filled in.
import { words } from './lineText';
import type { NcclTestsLayout, NcclTestsPerf, NcclTestsRow } from './types';

type PreColumn = 'size' | 'count' | 'type' | 'redop' | 'root';

interface Group {
  readonly width: number;
  readonly algbw: number;
  readonly busbw: number;
  /** Index of `#wrong` (new) or `error`/`res` (old) in the group; -1: none. */
  readonly check: number;
  readonly checkKind: 'wrong' | 'error' | null;
}

export interface Columns {
  readonly pre: readonly PreColumn[];
  readonly groups: readonly Group[];
  readonly layout: NcclTestsLayout;
  /** A trailing `timestamp` (-T): its value is two words, and rows carry more words than columns. */
  readonly trailing: boolean;
}

const PRE_NAMES: Readonly<Record<string, PreColumn>> = {
  size: 'size',
  bytes: 'size',
  count: 'count',
  N: 'count',
  type: 'type',
  redop: 'redop',
  op: 'redop',
  root: 'root',
};
const CHECK_NAMES: Readonly<Record<string, 'wrong' | 'error'>> = { '#wrong': 'wrong', error: 'error', res: 'error' };

/** The columns a header line names, or null when the words are not nccl-tests' header. */
export function headerColumns(text: string): Columns | null {
  const w = words(text);
  const firstTime = w.findIndex((x) => x === 'time' || x === 'cputime');
  if (firstTime < 3 || (w[0] !== 'size' && w[0] !== 'bytes')) return null;
  const pre = w.slice(0, firstTime).map((x) => PRE_NAMES[x]);
  if (pre.some((p) => p === undefined)) return null;
  const groups: Group[] = [];
  let trailing = false;
  for (let i = firstTime; i < w.length;) {
    let end = i + 1;
    while (end < w.length && w[end] !== 'time' && w[end] !== 'cputime') end++;
    const names = w.slice(i, end);
    if (names[names.length - 1] === 'timestamp') {
      trailing = true;
      names.pop();
    }
    const group = groupOf(names);
    if (!group) return null;
    groups.push(group);
    i = end;
  }
  if (groups.length === 0 || groups.length > 2) return null;
  const layout = groups.some((g) => g.checkKind === 'error') ? 'old' : 'new';
  return { pre: pre as PreColumn[], groups, layout, trailing };
}

function groupOf(names: readonly string[]): Group | null {
  const algbw = names.indexOf('algbw');
  const busbw = names.indexOf('busbw');
  if (algbw < 0 || busbw < 0) return null;
  const check = names.findIndex((n) => CHECK_NAMES[n] !== undefined);
  return { width: names.length, algbw, busbw, check, checkKind: check < 0 ? null : CHECK_NAMES[names[check]] };
}

/**
 * The columns of a table pasted without its header, from a row's words (nccl-tests 2.13+: 13 words;
 * before: 12 with `redop` or `root`, 11 without either); null when the words fit no layout.
 */
export function inferredColumns(text: string): Columns | null {
  const w = words(text);
  const pre: PreColumn[] = ['size', 'count', 'type'];
  if (w.length === 13) pre.push('redop', 'root');
  else if (w.length === 12) pre.push(INT.test(w[3] ?? '') ? 'root' : 'redop');
  else if (w.length !== 11) return null;
  const checkKind = EXPONENT.test(w[w.length - 1] ?? '') ? 'error' : 'wrong';
  const group: Group = { width: 4, algbw: 1, busbw: 2, check: 3, checkKind };
  const columns: Columns = { pre, groups: [group, group], layout: 'inferred', trailing: false };
  return readRow(columns, text, 0).ok ? columns : null;
}

const INT = /^-?\d{1,19}$/;
const NUMBER = /^-?(?:\d{1,30}(?:\.\d{0,30})?|\.\d{1,30})(?:[eE][+-]?\d{1,4})?$/;
const EXPONENT = /^-?\d(?:\.\d+)?[eE][+-]?\d{1,4}$/;
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

export type RowRead =
  { readonly ok: true; readonly row: NcclTestsRow } | { readonly ok: false; readonly kind: 'cut' | 'garbled'; readonly why: string };

/** A row read against the columns; `line` is its 1-based line number. */
export function readRow(columns: Columns, text: string, line: number): RowRead {
  const w = words(text);
  const expected = columns.pre.length + columns.groups.reduce((s, g) => s + g.width, 0);
  const bad = w.slice(0, expected).findIndex((value, i) => !valid(columns, i, value));
  if (bad >= 0) return { ok: false, kind: 'garbled', why: `column ${bad + 1} (${columnName(columns, bad)}) is ${JSON.stringify(w[bad])}` };
  if (w.length < expected) return { ok: false, kind: 'cut', why: `it ends after ${w.length} of ${expected} columns` };
  if (w.length > expected && !columns.trailing) return { ok: false, kind: 'garbled', why: `${w.length} values for ${expected} columns` };
  const pre = (name: PreColumn) => {
    const i = columns.pre.indexOf(name);
    return i < 0 ? null : w[i];
  };
  let at = columns.pre.length;
  const perf = columns.groups.map((g) => {
    const p = perfOf(g, w.slice(at, at + g.width));
    at += g.width;
    return p;
  });
  const root = pre('root');
  const row: NcclTestsRow = {
    size: Number(pre('size')),
    count: Number(pre('count')),
    type: pre('type') ?? '',
    redop: pre('redop'),
    root: root === null ? null : Number(root),
    out_of_place: perf[0],
    in_place: perf.length === 2 ? perf[1] : null,
    line,
  };
  return row.size > Number.MAX_SAFE_INTEGER || row.count > Number.MAX_SAFE_INTEGER
    ? { ok: false, kind: 'garbled', why: 'a size beyond what can be represented' }
    : { ok: true, row };
}

function perfOf(g: Group, w: readonly string[]): NcclTestsPerf {
  const check = g.check < 0 || w[g.check] === 'N/A' ? null : Number(w[g.check]);
  const base = { time: Number(w[0]), alg_bw: Number(w[g.algbw]), bus_bw: Number(w[g.busbw]) };
  return g.checkKind === 'error' ? { ...base, nwrong: null, error: check } : { ...base, nwrong: check };
}

function valid(columns: Columns, i: number, value: string): boolean {
  if (i < columns.pre.length) {
    const name = columns.pre[i];
    if (name === 'size' || name === 'count') return /^\d{1,20}$/.test(value);
    if (name === 'root') return INT.test(value);
    return NAME.test(value);
  }
  return NUMBER.test(value) || (value === 'N/A' && isCheckColumn(columns, i));
}

/** The group and position of word `i`, for messages and the N/A check. */
function locate(columns: Columns, i: number): { group: Group; index: number } | null {
  let at = columns.pre.length;
  for (const group of columns.groups) {
    if (i < at + group.width) return { group, index: i - at };
    at += group.width;
  }
  return null;
}

function isCheckColumn(columns: Columns, i: number): boolean {
  const spot = locate(columns, i);
  return spot !== null && spot.index === spot.group.check;
}

function columnName(columns: Columns, i: number): string {
  if (i < columns.pre.length) return columns.pre[i];
  const spot = locate(columns, i);
  if (!spot) return '?';
  const { group, index } = spot;
  const side = columns.groups.indexOf(group) === 0 ? 'out-of-place' : 'in-place';
  const what =
    index === 0 ? 'time' : index === group.algbw ? 'algbw' : index === group.busbw ? 'busbw' : index === group.check ? 'check' : 'value';
  return `${side} ${what}`;
}
