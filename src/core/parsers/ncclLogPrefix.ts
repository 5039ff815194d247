// Finds NCCL's header in a log line, wherever a launcher put it: NCCL writes
//   host:pid:tid [dev] NCCL INFO <message>
//   host:pid:tid [dev] <function or file>:<line> NCCL WARN <message>      (2.4 – 2.29)
//   host:pid:tid [dev] <file>:<line> (<function>) NCCL WARN <message>     (2.30)
//   host:pid:tid [dev] <ms since init> <function>:<line> NCCL TRACE <message>
// (src/misc/utils.cc in 2.4, src/debug.cc from 2.5: ncclDebugLog), optionally after a timestamp
// of its own (NCCL_DEBUG_TIMESTAMP_FORMAT, 2.26+). Launchers and loggers add their own prefixes
// before it: Slurm `srun -l` (`0: `), Open MPI `--tag-output` (`[1,0]<stdout>:`), torchrun
// (`[rank0]:`, `[default0]:`), log collectors' timestamps. Two processes writing at once can put a
// second header in the middle of a line: each header starts a message of its own.
import type { NcclLevel } from './ncclLogTypes';

export interface NcclHeader {
  /** 0-based column where the header starts. */
  readonly column: number;
  readonly messageColumn: number;
  /** The message, up to the next header on the same line or the end of the line. */
  readonly message: string;
  readonly host: string | null;
  readonly pid: number | null;
  readonly tid: number | null;
  readonly dev: number | null;
  readonly level: NcclLevel;
  readonly origin: string | null;
  /** Another header follows on the same line: this message was cut by another writer. */
  readonly cut: boolean;
}

// The host is what NCCL's getHostName() leaves: the name up to its first dot, or NCCL_HOSTID.
// The look-behind keeps a launcher's text glued in front of it out of the host name where it can.
const FULL_HEADER =
  /(?<![\w.-])([\w.-]+):(\d+):(\d+) \[(\d+)\] (?:\d+\.\d+ )?(?:(\S+:\d+)(?: \(([^)]*)\))? )?NCCL (INFO|WARN|TRACE)(?= |$) ?/g;
// A header whose host:pid:tid was cut off by the poster or a filter: `[0] NCCL INFO …`, `NCCL INFO …`.
const BARE_HEADER = /(?:^|(?<=[\s:>\]|]))(?:\[(\d+)\] )?NCCL (INFO|WARN)(?= |$) ?/;
// printf'd by NCCL ≤ 2.22 without a header on rank 0; by 2.30 as a VERSION line without host. Not
// when it ends a sentence of someone else's (PyTorch: "unhandled system error …, NCCL version 2.18.1").
const VERSION_LINE = /(?<!, )NCCL version \d+\.\d+\.\d+\S*\s*$/;

const NO_PROCESS = { host: null, pid: null, tid: null, origin: null, cut: false } as const;

/** The NCCL headers on one line, in order; empty when the line is not NCCL's. */
export function findHeaders(text: string): NcclHeader[] {
  if (!text.includes('NCCL ')) return [];
  const full = fullHeaders(text);
  // A bare header can also start a line that other processes' full headers follow (lines run together).
  const bare = bareHeader(text, full.length > 0 ? full[0].column : text.length);
  if (bare) return [bare, ...full];
  if (full.length > 0) return full;
  const version = VERSION_LINE.exec(text);
  if (!version) return [];
  return [{ ...NO_PROCESS, column: version.index, messageColumn: version.index, message: text.slice(version.index), dev: null, level: 'VERSION' }];
}

function bareHeader(text: string, end: number): NcclHeader | null {
  const m = BARE_HEADER.exec(end < text.length ? text.slice(0, end) : text);
  if (!m) return null;
  const messageColumn = m.index + m[0].length;
  const level = m[2] as NcclLevel;
  return { ...NO_PROCESS, column: m.index, messageColumn, message: text.slice(messageColumn, end), dev: num(m[1]), level, cut: end < text.length };
}

function fullHeaders(text: string): NcclHeader[] {
  const matches = [...text.matchAll(FULL_HEADER)];
  return matches.map((m, i) => {
    const messageColumn = m.index + m[0].length;
    const last = i + 1 === matches.length;
    return {
      column: m.index,
      messageColumn,
      message: text.slice(messageColumn, last ? text.length : matches[i + 1].index),
      host: m[1],
      pid: Number(m[2]),
      tid: Number(m[3]),
      dev: Number(m[4]),
      level: m[7] as NcclLevel,
      origin: m[5] === undefined ? null : m[6] === undefined ? m[5] : `${m[5]} (${m[6]})`,
      cut: !last,
    };
  });
}

function num(text: string | undefined): number | null {
  return text === undefined ? null : Number(text);
}
