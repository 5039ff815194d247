// Reads an nccl-tests output as text: nccl-tests' own lines (NVIDIA/nccl-tests src/util.cu and, before
// 2.14, src/common.cu: the version line, "Using devices", the table, the footer) among NCCL's INFO lines,
// MPI's warnings and a launcher's prefixes. One pass over the lines, each looked at once with anchored
// patterns; what is kept is capped (rows, ranks, problems), and a cap that is hit is said.
import { Columns, headerColumns, inferredColumns, readRow } from './columns';
import { isNcclLogLine, lineText, LineText, words } from './lineText';
import type { NcclTestsDevice, NcclTestsLayout, NcclTestsProblem, NcclTestsRow, NcclTestsRun } from './types';
import { ncclVersionOnLine, releaseOfCode } from './version';

export const NCCL_TESTS_CAPS = { lineChars: 64 * 1024, rows: 10_000, devices: 65_536, problems: 200, errors: 50 } as const;

const VERSION = /^nccl-tests version (\S{1,32})(?: \([0-9a-f]{1,40}\))? nccl-headers=(\d{1,9}) nccl-library=(\d{1,9})/;
const DEVICE =
  /^Rank +(\d{1,7}) +(?:Group +(\d{1,7}) +)?(?:Pid +(\d{1,10}) +)?on +(\S{1,1024}) +device +(\d{1,5}) +\[([^\]]{0,128})\] ?(.{0,1024})$/;
const CONFIG = /^nThread \d+ nGpus (\d+) minBytes (\d+) maxBytes (\d+)/;
const OUT_OF_BOUNDS = /^Out of bounds values *: *(\d{1,12}) (OK|FAILED)/;
const AVERAGE = /^Avg bus bandwidth *: *(-?\d[\d.]{0,30}(?:e[+-]?\d{1,4})?)/;
const INNER_TAG = /(?<=.)\[\d{1,7},\d{1,7}\]<std(?:out|err)>:/g;
const FAILURE = /Test (?:NCCL|CUDA|\w{1,16}) failure|Test failure /;

class TextRunBuilder {
  test: string | null = null;
  testsVersion: string | null = null;
  code: number | null = null;
  config: NcclTestsRun['config'] = null;
  columns: Columns | null = null;
  layout: NcclTestsLayout | null = null;
  readonly devices: NcclTestsDevice[] = [];
  readonly results: NcclTestsRow[] = [];
  readonly problems: NcclTestsProblem[] = [];
  readonly errors: string[] = [];
  outOfBounds: NcclTestsRun['out_of_bounds'] = null;
  average: number | null = null;
  concluded = false;
  truncated = false;
  /** A second run began (its header after this run's rows): the rest is not this run's. */
  ended = false;

  problem(p: NcclTestsProblem): void {
    if (this.problems.length < NCCL_TESTS_CAPS.problems) this.problems.push(p);
    else this.truncated = true;
  }

  error(text: string): void {
    if (this.errors.length < NCCL_TESTS_CAPS.errors) this.errors.push(text.trim());
  }

  /** A line of nccl-tests' own text (after its prefix and `#`). */
  line(lt: LineText, text: string, line: number, last: boolean): void {
    const body = lt.body.trim();
    if (body === '' || this.meta(body)) return;
    if (lt.hash) {
      if (body.startsWith('error:')) this.error(body);
      return;
    }
    if (FAILURE.test(text)) this.error(text);
    else if (body.charCodeAt(0) >= 48 && body.charCodeAt(0) <= 57) this.row(body, text, line, last);
    else if (this.test === null) this.test = testNameIn(body);
  }

  /** Header, version, devices, config and footer lines; true when the line was one. */
  private meta(body: string): boolean {
    const version = VERSION.exec(body);
    if (version) {
      if (this.results.length > 0) this.ended = true;
      this.testsVersion = version[1];
      this.code = Number(version[3]);
      return true;
    }
    if (body.startsWith('Collective test starting:') || body.startsWith('nThread ')) {
      if (this.results.length > 0) return (this.ended = true);
      if (body.startsWith('nThread ')) this.config = configOf(body);
      else this.test = words(body)[3] ?? null;
      return true;
    }
    if (body.startsWith('Collective test concluded:')) return (this.concluded = true);
    if (body.startsWith('Rank ')) return this.device(body);
    if (body.startsWith('size ') || body.startsWith('bytes ')) return this.header(body);
    return this.footer(body);
  }

  private header(body: string): boolean {
    const columns = headerColumns(body);
    if (!columns) return false;
    if (this.results.length > 0) {
      this.ended = true;
      return true;
    }
    this.columns = columns;
    this.layout = columns.layout;
    return true;
  }

  private device(body: string): boolean {
    const m = DEVICE.exec(body);
    if (!m) return false;
    if (this.devices.length >= NCCL_TESTS_CAPS.devices) return (this.truncated = true);
    this.devices.push({
      rank: Number(m[1]),
      group: m[2] === undefined ? null : Number(m[2]),
      pid: m[3] === undefined ? null : Number(m[3]),
      hostname: m[4],
      device: Number(m[5]),
      device_hex: m[6],
      device_info: m[7].trim(),
    });
    return true;
  }

  private footer(body: string): boolean {
    const oob = OUT_OF_BOUNDS.exec(body);
    if (oob) {
      this.outOfBounds = { count: Number(oob[1]), okay: oob[2] === 'OK' };
      return true;
    }
    const avg = AVERAGE.exec(body);
    if (avg) {
      this.average = Number(avg[1]);
      this.concluded = true;
      return true;
    }
    return body.startsWith('Using devices') || body.startsWith('(B)') || body.startsWith('Reducing maxBytes');
  }

  private row(body: string, text: string, line: number, last: boolean): void {
    if (!this.columns) {
      this.columns = inferredColumns(body);
      if (this.columns) this.layout = 'inferred';
    }
    if (!this.columns) {
      if (words(body, 3).length >= 3)
        this.problem({ line, kind: 'garbled', text, why: 'a result row before any table header, in no known layout' });
      return;
    }
    const r = readRow(this.columns, body, line);
    if (r.ok) {
      if (this.results.length < NCCL_TESTS_CAPS.rows) this.results.push(r.row);
      else this.truncated = true;
    } else
      this.problem({
        line,
        kind: last ? 'cut' : r.kind,
        text,
        why: last && r.kind === 'garbled' ? `the input ends inside this row: ${r.why}` : r.why,
      });
  }
}

function configOf(body: string): NcclTestsRun['config'] {
  const m = CONFIG.exec(body);
  return m ? { ngpus: Number(m[1]), minimum_bytes: Number(m[2]), maximum_bytes: Number(m[3]) } : null;
}

/** `all_reduce_perf` from a command line in the paste (`… /build/all_reduce_perf_mpi -b 8 …`, `EXEC_CMD=…`). */
export function testNameIn(text: string): string | null {
  const at = text.indexOf('_perf');
  if (at < 0) return null;
  let start = at;
  while (start > 0 && /[a-z_]/.test(text[start - 1])) start--;
  const after = text.slice(at + 5, at + 9);
  const name = text.slice(start, at + 5);
  return /^[a-z]+(?:_[a-z]+)*_perf$/.test(name) && (after === '' || /^(?:_mpi|\s)/.test(after)) ? name : null;
}

/** Reads the whole text; lines are split as an editor splits them (LF, CRLF, CR). */
export function readNcclTestsText(text: string, maxChars: number): NcclTestsRun {
  const b = new TextRunBuilder();
  const input = text.length > maxChars ? text.slice(0, maxChars) : text;
  b.truncated = input.length < text.length;
  let start = 0;
  let line = 0;
  while (start < input.length && !b.ended) {
    let end = start;
    while (end < input.length && input.charCodeAt(end) !== 10 && input.charCodeAt(end) !== 13) end++;
    const whole = input.slice(start, Math.min(end, start + NCCL_TESTS_CAPS.lineChars));
    line++;
    const last = end >= input.length && !b.truncated;
    // mpirun --tag-output tags what it reads, not lines: a line split between two reads gets the tag again in its middle.
    const clean = whole.includes(']<std') ? whole.replace(INNER_TAG, '') : whole;
    b.code ??= ncclVersionOnLine(clean);
    if (!isNcclLogLine(clean)) b.line(lineText(clean), whole, line, last);
    start = end + (input.charCodeAt(end) === 13 && input.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
  return finish(b, line);
}

function finish(b: TextRunBuilder, lines: number): NcclTestsRun {
  return {
    source: 'text',
    test: b.test,
    nccl_tests_version: b.testsVersion,
    nccl_version: b.code,
    nccl_release: b.code === null ? null : releaseOfCode(b.code),
    layout: b.layout,
    config: b.config,
    devices: b.devices,
    hosts: [...new Set(b.devices.map((d) => d.hostname))],
    results: b.results,
    out_of_bounds: b.outOfBounds,
    average_bus_bandwidth: b.average,
    errors: b.errors,
    problems: b.problems,
    concluded: b.concluded,
    lines,
    truncated: b.truncated,
  };
}
