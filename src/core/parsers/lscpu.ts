// Parser for `lscpu` (util-linux) summary output, in the three layouts found on real hosts:
//  - old util-linux (< 2.37): one flat list, "L1d cache:", "NUMA node0 CPU(s):";
//  - new util-linux on a terminal: keys indented under "Architecture:", "CPU(s):", "Vendor ID:" and
//    under value-less section headers ("Caches (sum of all):", "NUMA:", "Vulnerabilities:"), with long
//    values wrapped onto continuation lines that start at the value column;
//  - new util-linux into a pipe or file: flat again ("Vulnerability Meltdown:").
import { parseCpuList } from './cpuList';
import { type Parsed, fail, firstContentLine, ok, quote, readLines } from './result';

export interface Lscpu {
  /**
   * Every printed "key: value", values trimmed and wrapped lines joined. Keys are the printed keys,
   * except keys indented under a value-less section header, which get the header as a prefix
   * ("Caches (sum of all)/L1d", "NUMA/NUMA node0 CPU(s)", "Vulnerabilities/Meltdown"): the new layout
   * reuses short keys such as "L1d" there. A key printed again (big.LITTLE CPUs list one block per
   * core type) is stored as "<key> #2", "<key> #3".
   */
  readonly fields: Record<string, string>;
  readonly modelName: string | null;
  readonly cpus: number;
  /** null when absent or printed as "-" (arm64 hosts without socket information). */
  readonly sockets: number | null;
  /** null when absent; arm64 hosts may print "Core(s) per cluster" instead (kept in fields). */
  readonly coresPerSocket: number | null;
  readonly threadsPerCore: number | null;
  /** NUMA node id → its CPU list exactly as printed ("0-15,128-143"; "" for a memory-only node). */
  readonly numaNodes: Record<string, string>;
}

interface Entry {
  readonly key: string;
  readonly fieldKey: string;
  /** Value as printed including trailing spaces, so a wrapped continuation joins exactly. */
  rawValue: string;
  readonly line: number;
}

const WHAT = 'lscpu';
/** Headers the new layout prints without a value; one at the very end means the output was cut off. */
const SECTION_HEADER = /^(NUMA|Vulnerabilities|Virtualization features|Caches \(.*\))$/;
const NUMA_NODE_KEY = /^NUMA node(\d+) CPU\(s\)$/;

/** Parses `lscpu` output. See the Lscpu interface for how keys are named. */
export function parseLscpu(text: string): Parsed<Lscpu> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  const start = firstContentLine(lines);
  if (start < 0) return fail(1, `${WHAT}: input is empty; expected lscpu output starting with "Architecture:"`);
  // Every util-linux version prints Architecture first; anything else is another command's output.
  if (!/^Architecture\s*:/.test(lines[start])) {
    return fail(start + 1, `${WHAT}: expected "Architecture:" as the first line, found ${quote(lines[start])}`);
  }
  const entries = readEntries(lines, start);
  if (!entries.ok) return entries;
  return buildLscpu(entries.value, lines.length);
}

function readEntries(lines: readonly string[], start: number): Parsed<Entry[]> {
  const entries: Entry[] = [];
  let section: string | null = null;
  let valueColumn: number | null = null;
  for (let i = start; i < lines.length; i++) {
    const line = expandTabs(lines[i]);
    if (line.trim() === '') {
      valueColumn = null;
      continue;
    }
    const indent = line.length - line.trimStart().length;
    // A terminal-width wrap: the rest of the previous value, starting at (or after) its value column.
    if (valueColumn !== null && indent >= valueColumn) {
      entries[entries.length - 1].rawValue += line.slice(valueColumn);
      continue;
    }
    const colon = line.indexOf(':');
    const key = colon < 0 ? '' : line.slice(0, colon).trim();
    if (key === '') return fail(i + 1, `${WHAT}: expected a "key: value" line, found ${quote(lines[i])}`);
    const afterColon = line.slice(colon + 1);
    const rawValue = afterColon.trimStart();
    const isEmpty = rawValue.trim() === '';
    if (indent === 0) {
      const header = isEmpty ? sectionHeaderState(lines, i, key) : 'no';
      if (header === 'cut') return fail(i + 1, `${WHAT}: section ${quote(key)} has no entries; the output looks cut off`);
      section = header === 'yes' ? key : null;
      if (header === 'yes') {
        valueColumn = null;
        continue;
      }
    }
    const fieldKey = indent > 0 && section !== null ? `${section}/${key}` : key;
    entries.push({ key, fieldKey, rawValue, line: i + 1 });
    valueColumn = isEmpty ? null : colon + 1 + (afterColon.length - rawValue.length);
  }
  return ok(entries);
}

/**
 * Whether a value-less line at column 0 heads a section: it does when indented lines follow.
 * In the flat layouts the same shape is just an empty value ("NUMA node8 CPU(s):").
 */
function sectionHeaderState(lines: readonly string[], i: number, key: string): 'yes' | 'no' | 'cut' {
  for (let j = i + 1; j < lines.length; j++) {
    const next = expandTabs(lines[j]);
    if (next.trim() === '') continue;
    return next.startsWith(' ') ? 'yes' : 'no';
  }
  return SECTION_HEADER.test(key) ? 'cut' : 'no';
}

function buildLscpu(entries: readonly Entry[], lineCount: number): Parsed<Lscpu> {
  // A Map, then Object.fromEntries: a printed key such as "__proto__" stays an ordinary field.
  const fields = new Map<string, string>();
  const numaNodes = new Map<string, string>();
  const first = new Map<string, Entry>();
  const repeats = new Map<string, number>();
  for (const entry of entries) {
    const value = entry.rawValue.trim();
    fields.set(uniqueKey(fields, repeats, entry.fieldKey), value);
    if (!first.has(entry.key)) first.set(entry.key, entry);
    const node = NUMA_NODE_KEY.exec(entry.key);
    if (node === null) continue;
    const list = parseCpuList(value);
    if (!list.ok) return fail(entry.line, `${WHAT}: ${quote(entry.key)}: ${list.reason}`);
    numaNodes.set(String(Number(node[1])), value);
  }
  const cpuEntry = first.get('CPU(s)');
  if (cpuEntry === undefined) {
    return fail(Math.max(1, lineCount), `${WHAT}: no "CPU(s):" line found; expected complete lscpu output`);
  }
  const cpus = readCount(cpuEntry);
  if (cpus === null) return fail(cpuEntry.line, `${WHAT}: "CPU(s):" must be a number, found "-"`);
  if (!cpus.ok) return cpus;
  const counts = readCounts(first);
  if (!counts.ok) return counts;
  const model = first.get('Model name');
  return ok({
    fields: Object.fromEntries(fields),
    modelName: model === undefined ? null : model.rawValue.trim(),
    cpus: cpus.value,
    ...counts.value,
    numaNodes: Object.fromEntries(numaNodes),
  });
}

type Counts = Pick<Lscpu, 'sockets' | 'coresPerSocket' | 'threadsPerCore'>;

function readCounts(first: ReadonlyMap<string, Entry>): Parsed<Counts> {
  const read = (key: string): Parsed<number | null> => {
    const entry = first.get(key);
    const count = entry === undefined ? null : readCount(entry);
    return count === null ? ok(null) : count;
  };
  const sockets = read('Socket(s)');
  if (!sockets.ok) return sockets;
  const coresPerSocket = read('Core(s) per socket');
  if (!coresPerSocket.ok) return coresPerSocket;
  const threadsPerCore = read('Thread(s) per core');
  if (!threadsPerCore.ok) return threadsPerCore;
  return ok({ sockets: sockets.value, coresPerSocket: coresPerSocket.value, threadsPerCore: threadsPerCore.value });
}

/** A count printed as digits; "-" (unknown, arm64) gives null; anything else is an error at that line. */
function readCount(entry: Entry): Parsed<number> | null {
  const value = entry.rawValue.trim();
  if (value === '-') return null;
  if (/^\d+$/.test(value)) return ok(Number(value));
  return fail(entry.line, `${WHAT}: ${quote(entry.key)} must be a number, found ${quote(value)}`);
}

/**
 * `key`, else `key #2`, `key #3`…: the next free number per key is remembered, so k repeats of one key cost
 * k steps, not k² (a hostile output repeating one line; bench/parsers.bench.ts showed the quadratic count).
 */
function uniqueKey(fields: ReadonlyMap<string, string>, repeats: Map<string, number>, key: string): string {
  if (!fields.has(key)) return key;
  let n = repeats.get(key) ?? 2;
  while (fields.has(`${key} #${n}`)) n++;
  repeats.set(key, n + 1);
  return `${key} #${n}`;
}

/** Tabs to spaces at 8-column stops, so a copy that turned indentation into tabs keeps its columns. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
  return out;
}
