// Parser for `numactl -H` / `numactl --hardware` (same output). The layout comes from numactl's
// hardware(): "available: N nodes (list)", then per node "node X cpus: …", "node X size: N MB",
// "node X free: N MB", then "node distances:" with a header row and one row per node.
// Node ids need not be contiguous (POWER9 prints 0, 8 and 252-255 for GPU memory): distances are
// therefore indexed by position in `nodes`, distances[i][j] being from nodes[i] to nodes[j].
import { parseCpuList } from './cpuList';
import { type Parsed, fail, firstContentLine, ok, quote, readLines } from './result';

export interface NumaNode {
  readonly id: number;
  /** CPUs of the node; [] for a memory-only node (GPU memory on Grace Hopper / POWER9, HBM, CXL). */
  readonly cpus: number[];
  readonly sizeMb: number;
  readonly freeMb: number;
}

export interface Numactl {
  /** false for the one-line output "No NUMA available on this system" (kernel without NUMA). */
  readonly numaAvailable: boolean;
  readonly nodes: NumaNode[];
  /** Square, in the order of `nodes`; [] when numactl printed "No distance information available." */
  readonly distances: number[][];
}

interface Step<T> {
  readonly value: T;
  /** Index of the first line not consumed. */
  readonly next: number;
}

const WHAT = 'numactl';
const NO_NUMA = 'No NUMA available on this system';
const NO_DISTANCES = 'No distance information available.';
const HEADER = /^available: (\d+) nodes? \(([^)]*)\)$/;
const CPUS_LINE = /^node (\d+) cpus:(.*)$/;
const MEMORY_LINE = /^node (\d+) (size|free): (\d+) MB$/;
/** A line holding only CPU numbers: a published copy wrapped a long "cpus:" line (mail, narrow terminal). */
const CPU_CONTINUATION = /^[\d ]+$/;

/** Parses `numactl -H` output, including the "No NUMA available on this system" answer. */
export function parseNumactl(text: string): Parsed<Numactl> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value.map((line) => line.trim());
  const start = firstContentLine(lines);
  if (start < 0) return fail(1, `${WHAT}: input is empty; expected numactl -H output starting with "available:"`);
  if (lines[start] === NO_NUMA) {
    const end = expectEnd(lines, start + 1);
    return end.ok ? ok({ numaAvailable: false, nodes: [], distances: [] }) : end;
  }
  const ids = readHeader(lines[start], start + 1);
  if (!ids.ok) return ids;
  const nodes: NumaNode[] = [];
  let next = start + 1;
  for (const id of ids.value) {
    const node = readNode(lines, next, id);
    if (!node.ok) return node;
    nodes.push(node.value.value);
    next = node.value.next;
  }
  const distances = readDistances(lines, next, ids.value);
  if (!distances.ok) return distances;
  const end = expectEnd(lines, distances.value.next);
  return end.ok ? ok({ numaAvailable: true, nodes, distances: distances.value.value }) : end;
}

/** "available: 6 nodes (0,8,252-255)" → [0, 8, 252, 253, 254, 255]. */
function readHeader(line: string, lineNo: number): Parsed<number[]> {
  const match = HEADER.exec(line);
  if (match === null) {
    return fail(lineNo, `${WHAT}: expected "available: N nodes (…)" as the first line, found ${quote(line)}`);
  }
  const ids = parseCpuList(match[2]);
  if (!ids.ok) return fail(lineNo, `${WHAT}: node list: ${ids.reason.replace(/CPU/g, 'node')}`);
  if (ids.value.length !== Number(match[1])) {
    return fail(lineNo, `${WHAT}: header says ${match[1]} nodes but lists ${ids.value.length} (${match[2]})`);
  }
  return ok(ids.value);
}

function readNode(lines: readonly string[], i: number, id: number): Parsed<Step<NumaNode>> {
  const cpus = readCpus(lines, i, id);
  if (!cpus.ok) return cpus;
  const size = readMemory(lines, cpus.value.next, id, 'size');
  if (!size.ok) return size;
  const free = readMemory(lines, size.value.next, id, 'free');
  if (!free.ok) return free;
  const node = { id, cpus: cpus.value.value, sizeMb: size.value.value, freeMb: free.value.value };
  return ok({ value: node, next: free.value.next });
}

function readCpus(lines: readonly string[], i: number, id: number): Parsed<Step<number[]>> {
  const expected = `"node ${id} cpus:"`;
  if (i >= lines.length) return endedEarly(lines, expected);
  const match = CPUS_LINE.exec(lines[i]);
  if (match === null || Number(match[1]) !== id) {
    return fail(i + 1, `${WHAT}: expected ${expected}, found ${quote(lines[i])}`);
  }
  let text = match[2];
  let next = i + 1;
  while (next < lines.length && lines[next] !== '' && CPU_CONTINUATION.test(lines[next])) text += ` ${lines[next++]}`;
  const cpus: number[] = [];
  for (const token of text.split(' ')) {
    if (token === '') continue;
    if (!/^\d+$/.test(token)) return fail(i + 1, `${WHAT}: node ${id}: expected CPU numbers, found ${quote(token)}`);
    cpus.push(Number(token));
  }
  return ok({ value: cpus, next });
}

function readMemory(lines: readonly string[], i: number, id: number, kind: 'size' | 'free'): Parsed<Step<number>> {
  const expected = `"node ${id} ${kind}: N MB"`;
  if (i >= lines.length) return endedEarly(lines, expected);
  const match = MEMORY_LINE.exec(lines[i]);
  if (match === null || Number(match[1]) !== id || match[2] !== kind) {
    return fail(i + 1, `${WHAT}: expected ${expected}, found ${quote(lines[i])}`);
  }
  return ok({ value: Number(match[3]), next: i + 1 });
}

function readDistances(lines: readonly string[], i: number, ids: readonly number[]): Parsed<Step<number[][]>> {
  if (i >= lines.length) return endedEarly(lines, '"node distances:"');
  if (lines[i] === NO_DISTANCES) return ok({ value: [], next: i + 1 });
  if (lines[i] !== 'node distances:') {
    return fail(i + 1, `${WHAT}: expected "node distances:", found ${quote(lines[i])}`);
  }
  const header = `node ${ids.join(' ')}`;
  if (i + 1 >= lines.length) return endedEarly(lines, `the distance header "${header}"`);
  if (lines[i + 1].split(/\s+/).join(' ') !== header) {
    return fail(i + 2, `${WHAT}: expected the distance header "${header}", found ${quote(lines[i + 1])}`);
  }
  const rows: number[][] = [];
  for (let r = 0; r < ids.length; r++) {
    const row = readDistanceRow(lines, i + 2 + r, ids[r], ids.length);
    if (!row.ok) return row;
    rows.push(row.value);
  }
  return ok({ value: rows, next: i + 2 + ids.length });
}

/** "  0:  10  20" → [10, 20], checking the row's node id and its length. */
function readDistanceRow(lines: readonly string[], i: number, id: number, size: number): Parsed<number[]> {
  if (i >= lines.length) return endedEarly(lines, `the distance row for node ${id}`);
  const [label, ...cells] = lines[i].split(/\s+/);
  if (label !== `${id}:`) return fail(i + 1, `${WHAT}: expected the distance row "${id}: …", found ${quote(lines[i])}`);
  if (cells.length !== size || !cells.every((cell) => /^\d+$/.test(cell))) {
    return fail(i + 1, `${WHAT}: distance row for node ${id} must hold ${size} numbers, found ${quote(lines[i])}`);
  }
  return ok(cells.map(Number));
}

/** Only blank lines may follow the last part. */
function expectEnd(lines: readonly string[], i: number): Parsed<true> {
  for (let j = i; j < lines.length; j++) {
    if (lines[j] !== '') return fail(j + 1, `${WHAT}: unexpected text after the end of numactl -H output: ${quote(lines[j])}`);
  }
  return ok(true);
}

function endedEarly<T>(lines: readonly string[], expected: string): Parsed<T> {
  const last = Math.max(1, lines.length);
  return fail(last, `${WHAT}: input ends after line ${last}; expected ${expected} (output cut off?)`);
}
