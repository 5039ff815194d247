// Parser for what perftest's ib_write_bw prints (linux-rdma/perftest src/write_bw.c and
// src/perftest_parameters.c print_report_bw / print_full_bw_report; docs/perftest.md §2):
//
//   ---------------------------------------------------------------------------------------
//                       RDMA_Write BW Test
//    Dual-port       : OFF		Device         : mlx5_0
//    ...
//    #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
//    65536      5000             98.33              98.32  		   0.187536
//
// One row per message size (`-a` prints 2 B … 8 MiB, a fixed `-s` one row; the server prints only
// the last). The unit is the header's: Gb/sec with --report_gbits, else MiB/sec (MB/sec before
// perftest 4.5-0.20), both 2^20 bytes. With -D the peak is not measured and printed as 0.00.
// Around the table come CUDA lines (`Picking device No. 0`, `device name = [NVIDIA A100…]`,
// `Calling ibv_reg_dmabuf_mr(…)`) and, when something fails, perftest's own error lines
// (`Couldn't allocate MR with error=14`, `CUDA DMA-BUF cannot be used without CUDA`): the first of
// them is what it failed on. A row that starts like one but does not read is a located ParseError.
import { fail, ok, Parsed, quote, readLines } from './result';

export type PerftestUnit = 'Gb/sec' | 'MiB/sec' | 'MB/sec';

export interface PerftestRow {
  readonly bytes: number;
  readonly iterations: number;
  /** In the header's unit; 0 when not measured (-D). */
  readonly peak: number;
  readonly average: number;
  readonly msgRateMpps: number | null;
  /** 1-based line. */
  readonly line: number;
}

export interface PerftestRun {
  /** `RDMA_Write BW Test`; null when the banner was not printed (it failed before). */
  readonly test: string | null;
  /** `Device : mlx5_0` of the banner. */
  readonly device: string | null;
  /** `Link type : IB` / `Ethernet`. */
  readonly linkType: string | null;
  readonly unit: PerftestUnit | null;
  readonly rows: PerftestRow[];
  /** BW average of the last row (the largest message size) in Gb/s; null without a row. */
  readonly averageGbps: number | null;
  /** The CUDA device it picked and its name, when it ran with --use_cuda; null otherwise. */
  readonly cuda: CudaPick | null;
  /** perftest's own error lines, first (the cause) first. */
  readonly errors: { readonly line: number; readonly text: string }[];
  /** It printed its usage (`Usage:`, option lines): asked with --help, or given a flag it refuses. */
  readonly usage: boolean;
}

export interface CudaPick {
  readonly device: number | null;
  readonly name: string | null;
  readonly dmabuf: boolean;
  /**
   * `BB:DD` of the picked device, from perftest's own listing (`CUDA device 3: PCIe address is 5D:00`,
   * src/cuda_memory.c init_gpu: bus and device number, no domain); null where it printed none.
   */
  readonly pcieAddress: string | null;
}

export interface PerftestHelp {
  /** `--use_cuda=<cuda device id>`: built with CUDA. */
  readonly cuda: boolean;
  /** `--use_cuda_bus_id=<cuda full BUS id>` (perftest 4.5-0.2 and later): the GPU named by its PCI address. */
  readonly cudaBusId: boolean;
  /** `--use_cuda_dmabuf`: built with CUDA dma-buf support (CUDA ≥ 11.7 headers, rdma-core ≥ 34). */
  readonly cudaDmabuf: boolean;
}

const WHAT = 'ib_write_bw output';
// perftest_parameters.c usage(): `Usage:` then option lines such as `  -d, --ib-dev=<dev> …`, `      --use_cuda=<cuda device id> …`.
const USAGE = /^(Usage:$|(-\w, )?--[a-z][\w-]*(=<[^>]+>)?\s)/;
const RESULT_HEADER = /^\s*#bytes\s+#iterations\s+BW peak\[([^\]]+)\]\s+BW average\[([^\]]+)\]/;
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)(?:\s+(\d+(?:\.\d+)?))?(?:\s+[\d.]+)*\s*$/;
const UNITS: Readonly<Record<PerftestUnit, number>> = { 'Gb/sec': 1, 'MiB/sec': ((1 << 20) * 8) / 1e9, 'MB/sec': ((1 << 20) * 8) / 1e9 };
// perftest's own failure messages (fprintf(stderr, …) across src/*.c), and what the shell or the
// dynamic loader says when it dies; "Conflicting CPU frequency values" is a warning, not one of them.
// A line is an error when any of these matches at its start.
const GENERIC_ERROR = /^(Couldn't |Could not |Failed|failed |Unable to |ERRNO: |Segmentation fault|Completion with error)/;
const DEVICE_ERROR =
  /^(CUDA DMA-BUF cannot|DMA-BUF is not supported|Unsupported memory type|No IB devices found|No such device|There are no available device)/;
const SETUP_ERROR = /^(OFED stack does not support|Parser function exited|cu[A-Za-z_]+\(?\)? ?(returned|error=))/;
const SHELL_ERROR = /^(.*: (unrecognized|invalid|unknown) option|.*error while loading shared libraries)/;
const ERROR = [GENERIC_ERROR, DEVICE_ERROR, SETUP_ERROR, SHELL_ERROR];

export function parsePerftest(text: string): Parsed<PerftestRun> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const run = {
    test: null as string | null,
    device: null as string | null,
    linkType: null as string | null,
    unit: null as PerftestUnit | null,
  };
  const rows: PerftestRow[] = [];
  const errors: { line: number; text: string }[] = [];
  let cuda: CudaPick | null = null;
  const listed = new Map<number, string>();
  let inTable = false;
  let usage = false;
  for (const [i, raw] of read.value.entries()) {
    const line = raw.trim();
    if (ERROR.some((re) => re.test(line))) {
      errors.push({ line: i + 1, text: line });
      continue;
    }
    if (USAGE.test(line)) {
      usage = true;
      continue;
    }
    const address = /^CUDA device (\d{1,4}): PCIe address is ([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})$/.exec(line);
    if (address && listed.size < 4096) listed.set(Number(address[1]), address[2].toUpperCase());
    cuda = cudaLine(line, cuda, listed);
    const header = RESULT_HEADER.exec(raw);
    if (header) {
      const unit = unitOf(header[2]);
      if (unit === null)
        return fail(i + 1, `${WHAT}: unknown bandwidth unit ${quote(header[2])} in the result header; expected Gb/sec, MiB/sec or MB/sec`);
      run.unit = unit;
      inTable = true;
      continue;
    }
    if (inTable && /^-{10,}$/.test(line)) inTable = false;
    if (inTable && /^\d/.test(line)) {
      const row = rowOf(raw, i + 1);
      if (!row)
        return fail(i + 1, `${WHAT}: expected a result row (#bytes, #iterations, BW peak, BW average, MsgRate), found ${quote(raw)}`);
      rows.push(row);
      continue;
    }
    banner(raw, run);
  }
  // Nothing perftest prints (a shell's "command not found", another tool's output): not a run to read.
  if (run.test === null && run.device === null && run.unit === null && cuda === null && errors.length === 0 && !usage) {
    return fail(1, `${WHAT}: no perftest banner, result table, CUDA line, usage or perftest error line; expected what ib_write_bw prints`);
  }
  const last = rows[rows.length - 1];
  const averageGbps = last && run.unit ? round(last.average * UNITS[run.unit]) : null;
  return ok({ ...run, rows, averageGbps, cuda, errors, usage });
}

/** Reads the lines of `ib_write_bw --help` (all, or only those naming CUDA). */
export function parsePerftestHelp(text: string): PerftestHelp {
  return { cuda: /--use_cuda=/.test(text), cudaBusId: /--use_cuda_bus_id=/.test(text), cudaDmabuf: /--use_cuda_dmabuf\b/.test(text) };
}

function unitOf(text: string): PerftestUnit | null {
  const t = text.trim();
  return t === 'Gb/sec' || t === 'MiB/sec' || t === 'MB/sec' ? t : null;
}

function rowOf(raw: string, line: number): PerftestRow | null {
  const m = ROW.exec(raw);
  if (!m) return null;
  return {
    bytes: Number(m[1]),
    iterations: Number(m[2]),
    peak: Number(m[3]),
    average: Number(m[4]),
    msgRateMpps: m[5] === undefined ? null : Number(m[5]),
    line,
  };
}

/** The banner's `Key : value` pairs, two per line where perftest prints two. */
function banner(raw: string, run: { test: string | null; device: string | null; linkType: string | null }): void {
  const line = raw.trim();
  if (run.test === null && /^[A-Za-z_]+ (Bidirectional )?BW Test$/.test(line)) run.test = line;
  const device = /Device\s*:\s*(\S+)/.exec(raw);
  if (device && run.device === null) run.device = device[1];
  const link = /^\s*Link type\s*:\s*(\S+)/.exec(raw);
  if (link && run.linkType === null) run.linkType = link[1];
}

function cudaLine(line: string, cuda: CudaPick | null, listed: ReadonlyMap<number, string>): CudaPick | null {
  const base: CudaPick = cuda ?? { device: null, name: null, dmabuf: false, pcieAddress: null };
  const picked = /^Picking (?:device No\.|GPU number) (\d+)$/.exec(line);
  if (picked) return { ...base, device: Number(picked[1]), pcieAddress: listed.get(Number(picked[1])) ?? null };
  const named = /device name = \[(.*)\]$/.exec(line);
  if (named) return { ...base, name: named[1] };
  if (/^(initializing CUDA|Using DMA-BUF|using DMA-BUF|Calling ibv_reg_dmabuf_mr)/.test(line)) {
    return { ...base, dmabuf: base.dmabuf || /dmabuf|DMA-BUF/.test(line) };
  }
  return cuda;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
