// Parser for `nvidia-smi topo -m` (also `-mp`): the device matrix, the affinity columns and the
// legends, for every driver generation described in docs/topo-matrix.md.
//
// Decisions:
// - The header decides the columns. Rows are read against it: after the row name, one link cell
//   per device column, then the trailing (affinity) values.
// - Text before the header (a shell prompt, a warning, a title such as "NVIDIA Topology:") is
//   skipped. The header is the first line whose first word is a GPU name and whose second word is
//   not a link token; if the first such line is a matrix row instead, the header is missing.
// - The matrix ends at a blank line, `Legend:`, other text, or the end of input. Every GPU column
//   must have its row, or the output was cut off. Non-GPU (NIC) rows must be all present or all
//   absent (a copy that kept only the GPU rows); their absent cells are null.
// - Trailing values come from the row's tab fields; where a copy expanded the tabs, the fields are
//   rebuilt from the 8-column tab stops (topoRow.ts), so an empty affinity stays "" either way.
// - Values are kept as printed: a column the output does not have is null, an empty cell is "".
// - Limitation: prose before the header whose first word is `GPU0` would be taken for the header.
import { Parsed, fail, firstContentLine, ok, quote, readLines } from './result';
import { TopoHeader, classifyHeaderCandidate, splitHeader } from './topoHeader';
import { TopoLegendEntry, readLegends } from './topoLegend';
import { TopoRowCells, splitRow } from './topoRow';
import { isGpuName, isNicAlias } from './topoWords';

export type { TopoLegendEntry } from './topoLegend';

export interface TopoGpu {
  readonly name: string;
  /** As printed (`0-31,64-95`, `""`, `N/A`); null when the output has no such column. */
  readonly cpuAffinity: string | null;
  readonly numaAffinity: string | null;
  readonly gpuNumaId: string | null;
}

export interface TopoNic {
  /** The column name: `NIC0`, or the RDMA device itself on older drivers. */
  readonly name: string;
  /** RDMA device name (`mlx5_0`); null when a `NICn` column has no `NIC Legend:` entry. */
  readonly device: string | null;
}

/** `links[row][column]`: the link token as printed, or null where the output has no such row. */
export type TopoLinks = Record<string, Record<string, string | null>>;

export interface Topology {
  readonly gpus: TopoGpu[];
  readonly nics: TopoNic[];
  readonly links: TopoLinks;
  /** Device columns in printed order. */
  readonly columns: string[];
  /** Trailing columns as printed, e.g. `CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID`. */
  readonly infoColumns: string[];
  /** The `Legend:` block as printed (empty when the output has none). */
  readonly legend: TopoLegendEntry[];
}

const COMMAND = 'nvidia-smi topo -m';
/** Far above any real host (tens of devices); bounds the work a hostile header can cause. */
const MAX_DEVICE_COLUMNS = 512;
const MAX_HEADER_WORDS = MAX_DEVICE_COLUMNS + 64;
/** Upper-case letters and digits: today's tokens and plausible future ones (`C2C`, `P2C`). */
const LINK_TOKEN = /^[A-Z][A-Z0-9]{0,7}$/;
/** Cells of `nvidia-smi topo -p2p`, a different command with the same matrix shape. */
const P2P_STATUS = new Set(['OK', 'CNS', 'GNS', 'TNS', 'NS', 'U']);

type Rows = Map<string, TopoRowCells>;

/**
 * SGR sequences (`ESC[4m` … `ESC[0m`): newer drivers underline the header even into a pipe or a file
 * (a GB200 NVL72 tray's output, test/fixtures/topo). They carry no text; other escapes stay and fail.
 */
const SGR = /\x1b\[[0-9;]*m/g;

export function withoutSgr(line: string): string {
  return line.replace(SGR, '');
}

export function parseTopo(text: string): Parsed<Topology> {
  const read = readLines(text, COMMAND);
  if (!read.ok) return read;
  const lines = read.value.map(withoutSgr);
  const header = findHeader(lines);
  if (!header.ok) return header;
  const matrix = readMatrix(lines, header.value.index, header.value.header);
  if (!matrix.ok) return matrix;
  const legends = readLegends(lines.slice(matrix.value.endIndex));
  if (legends.badEntry) return fail(matrix.value.endIndex + legends.badEntry.index + 1, `${COMMAND}: ${legends.badEntry.message}`);
  return ok(assemble(header.value.header, matrix.value.rows, legends.nicDevices, legends.legend));
}

function findHeader(lines: readonly string[]): Parsed<{ index: number; header: TopoHeader }> {
  for (let i = 0; i < lines.length; i++) {
    const kind = classifyHeaderCandidate(lines[i]);
    if (kind === 'row') {
      return fail(
        i + 1,
        `${COMMAND}: expected the header line (device names, then CPU Affinity) before the matrix rows, found the row ${quote(lines[i])}`,
      );
    }
    if (kind === 'other') continue;
    const header = splitHeader(lines[i], MAX_HEADER_WORDS);
    if (typeof header === 'string') return fail(i + 1, `${COMMAND}: cannot read the header: ${header}: ${quote(lines[i])}`);
    if (header.devices.length > MAX_DEVICE_COLUMNS) {
      return fail(
        i + 1,
        `${COMMAND}: the header has ${header.devices.length} device columns, more than ${MAX_DEVICE_COLUMNS}; expected one host's matrix`,
      );
    }
    return ok({ index: i, header });
  }
  return fail(...noHeaderError(lines));
}

function noHeaderError(lines: readonly string[]): [number, string] {
  const first = firstContentLine(lines);
  if (first < 0) return [1, `${COMMAND}: input is empty; expected the matrix header line (GPU0 GPU1 … CPU Affinity)`];
  const expected = 'expected a matrix header line starting with GPU0 (e.g. "\\tGPU0\\tGPU1\\tNIC0\\tCPU Affinity")';
  return [first + 1, `${COMMAND}: ${expected}; no such line found, the text starts with ${quote(lines[first])}`];
}

function readMatrix(lines: readonly string[], headerIndex: number, header: TopoHeader): Parsed<{ rows: Rows; endIndex: number }> {
  const columns = new Set(header.devices);
  const rows: Rows = new Map();
  let i = headerIndex + 1;
  for (; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    if (trimmed === '' || trimmed.startsWith('Legend')) break;
    const name = trimmed.split(/\s/, 1)[0];
    if (!columns.has(name)) {
      if (isGpuName(name) || isNicAlias(name)) return rowFail(i, `row ${name} is not among the header's device columns`, lines[i]);
      break;
    }
    if (rows.has(name)) return rowFail(i, `row ${name} appears twice`, lines[i]);
    const cells = splitRow(lines[i], header.devices.length, header.infoColumns);
    if (typeof cells === 'string') return rowFail(i, cells, lines[i]);
    const badCell = checkLinkCells(cells, header.devices);
    if (badCell) return rowFail(i, badCell, lines[i]);
    rows.set(name, cells);
  }
  const stopLine = i < lines.length ? i + 1 : lines.length;
  const missing = missingRow(header.devices, rows);
  if (missing) {
    const found = i < lines.length ? `found ${quote(lines[i])}` : 'the input ends';
    return fail(stopLine, `${COMMAND}: the matrix is cut off: expected the row for ${missing}, ${found}`);
  }
  return ok({ rows, endIndex: i });
}

function rowFail(index: number, problem: string, line: string): Parsed<never> {
  return fail(index + 1, `${COMMAND}: ${problem}: ${quote(line)}`);
}

/** Checks every link cell of a row; returns what is wrong with the first bad one. */
function checkLinkCells(row: TopoRowCells, devices: readonly string[]): string | null {
  for (let j = 0; j < devices.length; j++) {
    const cell = row.links[j];
    const where = `row ${row.name}, column ${devices[j]}`;
    if (P2P_STATUS.has(cell))
      return `${where}: found the P2P status ${JSON.stringify(cell)}; this looks like \`nvidia-smi topo -p2p\` output, expected \`topo -m\``;
    if (!LINK_TOKEN.test(cell))
      return `${where}: expected a link type (X, NV#, PIX, PXB, PHB, NODE, SYS, SOC), found ${JSON.stringify(cell)}`;
    const self = row.name === devices[j];
    if (self && cell !== 'X') return `${where}: a device's link to itself must be X, found ${JSON.stringify(cell)}`;
    if (!self && cell === 'X') return `${where}: X (self) off the diagonal`;
  }
  return null;
}

/** The first device whose row is missing, if that means the output was cut off. */
function missingRow(devices: readonly string[], rows: Rows): string | undefined {
  const missingGpu = devices.find((d) => isGpuName(d) && !rows.has(d));
  if (missingGpu) return missingGpu;
  const nics = devices.filter((d) => !isGpuName(d));
  const nicRowsPresent = nics.some((d) => rows.has(d));
  return nicRowsPresent ? nics.find((d) => !rows.has(d)) : undefined;
}

function assemble(header: TopoHeader, rows: Rows, nicDevices: Map<string, string>, legend: TopoLegendEntry[]): Topology {
  const infoOf = (gpu: string, column: string): string | null => {
    const index = header.infoColumns.indexOf(column);
    return index < 0 ? null : (rows.get(gpu)?.info[index] ?? null);
  };
  const gpus = header.devices.filter(isGpuName).map((name) => ({
    name,
    cpuAffinity: infoOf(name, 'CPU Affinity'),
    numaAffinity: infoOf(name, 'NUMA Affinity'),
    gpuNumaId: infoOf(name, 'GPU NUMA ID'),
  }));
  const nics = header.devices
    .filter((d) => !isGpuName(d))
    .map((name) => ({
      name,
      device: isNicAlias(name) ? (nicDevices.get(name) ?? null) : name,
    }));
  const links: TopoLinks = {};
  for (const row of header.devices) {
    const cells = rows.get(row);
    const linkRow: Record<string, string | null> = {};
    header.devices.forEach((column, j) => {
      linkRow[column] = cells ? cells.links[j] : null;
    });
    links[row] = linkRow;
  }
  return { gpus, nics, links, columns: [...header.devices], infoColumns: [...header.infoColumns], legend };
}
