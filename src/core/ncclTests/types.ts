// What nccl-tests printed (or wrote with -J), in the names nccl-tests' own JSON uses (NVIDIA/nccl-tests
// src/util.cu: jsonRankInfo, writeBenchmarkLinePreamble, writeBenchmarkLineBody, writeResultFooter).
// Plain JSON: `gdr-doctor parse nccl-tests --json` prints it as it is. What a table left out stays
// null; a row that was cut or garbled is listed in `problems`, never filled in.

/** One rank from "# Using devices" (the -J file's config.devices). */
export interface NcclTestsDevice {
  readonly rank: number;
  /** Absent before nccl-tests 2.13 (no `Group` word): null. */
  readonly group: number | null;
  /** Absent in the 2017 layout: null. */
  readonly pid: number | null;
  readonly hostname: string;
  /** The CUDA device number. */
  readonly device: number;
  /** The bus id as printed: `0000:1b:00` (2.14+) or `0x1b` (older: the bus number only). */
  readonly device_hex: string;
  readonly device_info: string;
}

/** One direction of a row: out-of-place or in-place. */
export interface NcclTestsPerf {
  /** Microseconds (`time`; `cputime` with -C). */
  readonly time: number;
  /** GB/s. */
  readonly alg_bw: number;
  readonly bus_bw: number;
  /** Wrong elements (the `#wrong` column); null when not checked (`N/A`, -c 0) or in the old layout. */
  readonly nwrong: number | null;
  /** The old layout's `error` column (largest deviation, `%5.0le`); absent in the new layout. */
  readonly error?: number | null;
}

export interface NcclTestsRow {
  readonly size: number;
  readonly count: number;
  readonly type: string;
  /** Null where the test prints no redop column (all_gather, sendrecv before 2.13). */
  readonly redop: string | null;
  /** -1 when the op has none; null where the layout prints no root column (before 2.13). */
  readonly root: number | null;
  readonly out_of_place: NcclTestsPerf | null;
  readonly in_place: NcclTestsPerf | null;
  /** 1-based line of the input the row came from. */
  readonly line: number;
}

/** A line that looked like a result row but could not be read whole: reported, never guessed. */
export interface NcclTestsProblem {
  readonly line: number;
  readonly kind: 'cut' | 'garbled';
  readonly text: string;
  readonly why: string;
}

/** `new`: `root` and `#wrong` columns (nccl-tests 2.13+); `old`: the `error` column; `inferred`: rows without a header. */
export type NcclTestsLayout = 'new' | 'old' | 'inferred';

export interface NcclTestsRun {
  readonly source: 'text' | 'json';
  /** `all_reduce_perf`, from "Collective test starting" (2.16+), the JSON's args or a command line in the paste. */
  readonly test: string | null;
  /** `2.19.6`, from "# nccl-tests version …". */
  readonly nccl_tests_version: string | null;
  /** NCCL_VERSION_CODE of the library (nccl-library=, the JSON's nccl_version, or NCCL's own "NCCL version" line). */
  readonly nccl_version: number | null;
  /** The same as `2.28.9`. */
  readonly nccl_release: string | null;
  readonly layout: NcclTestsLayout | null;
  /** From the "nThread … nGpus …" line. */
  readonly config: { readonly ngpus: number | null; readonly minimum_bytes: number | null; readonly maximum_bytes: number | null } | null;
  readonly devices: NcclTestsDevice[];
  /** Distinct hostnames of `devices` (the nodes, as the ranks named them). */
  readonly hosts: string[];
  readonly results: NcclTestsRow[];
  readonly out_of_bounds: { readonly count: number; readonly okay: boolean } | null;
  /** "# Avg bus bandwidth" (GB/s); null when the output stops before it. */
  readonly average_bus_bandwidth: number | null;
  /** "# error: …" lines, and the ranks' "Test NCCL failure …" lines (the first 50). */
  readonly errors: string[];
  readonly problems: NcclTestsProblem[];
  /** "# Collective test concluded" (2.16+) or the average line was seen: the run ended normally. */
  readonly concluded: boolean;
  /** Lines read, and whether the input was cut short at the cap. */
  readonly lines: number;
  readonly truncated: boolean;
}
