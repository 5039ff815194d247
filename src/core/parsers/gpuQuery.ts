// Parser for `nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits]`.
// The field list is a parameter because the probe may ask for more than the default; when the
// output carries its header line (`--format=csv`), the header decides the columns instead.

import { Parsed, fail, ok, quote, readLines } from './result';
import { SmiError, detectSmiError } from './nvidiaSmiCommon';

const WHAT = 'nvidia-smi --query-gpu';

export const DEFAULT_GPU_QUERY_FIELDS: readonly string[] = ['index', 'name', 'pci.bus_id', 'driver_version'];

export interface GpuQueryRow {
  /** 1-based line number of the row in the input. */
  readonly line: number;
  readonly index?: number;
  readonly name?: string;
  readonly pciBusId?: string;
  readonly driverVersion?: string;
  /** Every column as printed (`[N/A]`, `[Not Supported]` kept), keyed by canonical field name. */
  readonly fields: Readonly<Record<string, string>>;
}

export interface GpuQuery {
  /**
   * `ok` when rows were read (possibly none); otherwise nvidia-smi printed an error instead of
   * CSV: `driver-unreachable` (driver not loaded), `no-devices` (driver fine, no GPU),
   * `nvml-init-failed` (e.g. driver/library version mismatch). Then `gpus` is empty.
   */
  readonly status: 'ok' | SmiError['kind'];
  /** nvidia-smi's own message when status is not `ok`. */
  readonly smiError?: SmiError;
  /** The columns, in order, as canonical field names (from the header when there is one). */
  readonly columns: readonly string[];
  readonly hadHeader: boolean;
  readonly gpus: readonly GpuQueryRow[];
}

// The header prints canonical names even when the query used an alias (gpu_name → name).
const ALIASES: Readonly<Record<string, string>> = {
  gpu_name: 'name',
  gpu_bus_id: 'pci.bus_id',
  gpu_uuid: 'uuid',
  gpu_serial: 'serial',
};
// A header cell: a field name, optionally followed by its unit, e.g. "memory.total [MiB]".
const HEADER_CELL = /^([a-z][a-z0-9_.]*)(?: \[[^\]]+\])?$/i;
const BUS_ID = /^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

export function parseGpuQuery(text: string, fields: readonly string[] = DEFAULT_GPU_QUERY_FIELDS): Parsed<GpuQuery> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') end--;
  let start = 0;
  while (start < end && lines[start].trim() === '') start++;
  if (start >= end) return fail(1, `${WHAT}: empty input; expected CSV rows of ${fields.join(', ')}`);

  const smiError = detectSmiError(lines);
  if (smiError) return ok({ status: smiError.kind, smiError, columns: [], hadHeader: false, gpus: [] });
  const invalidField = checkInvalidField(lines[start], start + 1);
  if (invalidField) return invalidField;

  const header = headerColumns(lines[start]);
  const columns = header ?? fields.map(canonical);
  if (columns.length === 0) return fail(start + 1, `${WHAT}: the field list is empty`);
  const first = header ? start + 1 : start;
  // nvidia-smi never prints a bare header: with no GPU it prints "No devices were found".
  if (first >= end) return fail(start + 1, `${WHAT}: the header is not followed by any GPU row; the output was cut off`);
  const gpus: GpuQueryRow[] = [];
  for (let i = first; i < end; i++) {
    const row = parseRow(lines[i], i + 1, columns);
    if (!row.ok) return row;
    gpus.push(row.value);
  }
  return ok({ status: 'ok', columns, hadHeader: header !== undefined, gpus });
}

function canonical(field: string): string {
  const name = field.trim();
  return ALIASES[name] ?? name;
}

/** nvidia-smi answers an unknown field with `Field "x" is not a valid field to query.` */
function checkInvalidField(line: string, lineNo: number): Parsed<never> | undefined {
  if (!/is not a valid field to query/.test(line)) return undefined;
  return fail(lineNo, `${WHAT}: nvidia-smi rejected the field list: ${quote(line.trim(), 100)}`);
}

/** The header's field names when the line is a header (every cell a field name), else undefined. */
function headerColumns(line: string): string[] | undefined {
  const cells = line.split(',').map((c) => c.trim());
  const names: string[] = [];
  for (const cell of cells) {
    const match = HEADER_CELL.exec(cell);
    if (!match) return undefined;
    names.push(canonical(match[1]));
  }
  // A one-word data row ("Default") also matches the cell pattern; a real header names a dotted
  // or underscored field, or one of the plain names nvidia-smi has.
  return names.some((n) => /[._]/.test(n) || PLAIN_FIELDS.has(n)) ? names : undefined;
}

const PLAIN_FIELDS = new Set(['index', 'name', 'uuid', 'serial', 'count', 'timestamp', 'pstate']);

function parseRow(line: string, lineNo: number, columns: readonly string[]): Parsed<GpuQueryRow> {
  if (line.trim() === '') {
    return fail(lineNo, `${WHAT}: unexpected blank line between rows; expected ${columns.length} comma-separated fields`);
  }
  const cells = line.split(',').map((c) => c.trim());
  if (cells.length !== columns.length) {
    return fail(
      lineNo,
      `${WHAT}: expected ${columns.length} comma-separated fields (${columns.join(', ')}), found ${cells.length} in ${quote(line)}`,
    );
  }
  const values: Record<string, string> = {};
  columns.forEach((column, i) => (values[column] = cells[i]));
  return typedRow(values, lineNo, line);
}

function typedRow(values: Record<string, string>, lineNo: number, line: string): Parsed<GpuQueryRow> {
  const index = values['index'];
  if (index !== undefined && !/^\d+$/.test(index)) {
    return fail(lineNo, `${WHAT}: expected a GPU index (a whole number) in the index column, found ${quote(index)} in ${quote(line)}`);
  }
  const busId = values['pci.bus_id'];
  if (busId !== undefined && !BUS_ID.test(busId)) {
    return fail(lineNo, `${WHAT}: expected a PCI bus id like 00000000:07:00.0 in the pci.bus_id column, found ${quote(busId)}`);
  }
  return ok({
    line: lineNo,
    ...(index !== undefined && { index: Number(index) }),
    ...(values['name'] !== undefined && { name: values['name'] }),
    ...(busId !== undefined && { pciBusId: busId }),
    ...(values['driver_version'] !== undefined && { driverVersion: values['driver_version'] }),
    fields: values,
  });
}
