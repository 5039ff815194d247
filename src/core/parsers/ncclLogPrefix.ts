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
import { splitRayRepeat } from './ncclLogRay';
import type { NcclLevel, NcclLineHead } from './ncclLogTypes';

/** A header found on a line: NCCL's part of the record (its line number comes from the reader) and the message. */
export type NcclHeader = Omit<NcclLineHead, 'line' | 'rayFolded'> & {
  /** The message, up to the next header on the same line or the end of the line. */
  readonly message: string;
};

// Each header is found from its `NCCL <LEVEL>` word, then read backwards: a log line is searched once
// with indexOf, and the header regex runs on the few characters before that word only.
const LEVELS: readonly NcclLevel[] = ['INFO', 'WARN', 'TRACE'];
// What may precede ` NCCL <LEVEL>`: `host:pid:tid [dev] `, then NCCL's time (TRACE), then its origin
// (WARN/TRACE: `file:line` or `function:line`, `(function)` after it in 2.30). The host is what
// NCCL's getHostName() leaves: the name up to its first dot, or NCCL_HOSTID; the look-behind keeps
// a launcher's text glued in front of it out of the host name where it can.
const FULL_TAIL = /(?<![\w.-])([\w.-]+):(\d+):(\d+) \[(\d+)\] (?:\d+\.\d+ )?(?:(\S+:\d+)(?: \(([^)]*)\))? )?$/;
/** The header can start this far before its level word (host names are at most 255 bytes). */
const MAX_HEADER_CHARS = 400;
// A header whose host:pid:tid was cut off by the poster or a filter: `[0] NCCL INFO …`, `NCCL INFO …`.
const BARE_TAIL = /(?:^|[\s:>\]|])(\[(\d+)\] )?$/;
// printf'd by NCCL ≤ 2.22 without a header on rank 0; by 2.30 as a VERSION line without host. Not
// when it ends a sentence of someone else's (PyTorch: "unhandled system error …, NCCL version 2.18.1").
// The version is the line's last word: found with lastIndexOf, then read from there only (sticky), so
// no pattern retries every split of a long run of digits.
const VERSION_WORDS = 'NCCL version ';
const VERSION_NUMBER = /\d+\.\d+\.\d/y;

/**
 * A message is read up to this many characters. NCCL formats each line, header and message, into a
 * 1,024-byte buffer (`char buffer[1024]` in ncclDebugLog: src/misc/utils.cc 2.4, src/debug.cc 2.5 –
 * 2.30.7), so a longer message is someone else's text or several run together: what is past this is
 * not looked at, and the message counts as cut.
 */
export const MAX_MESSAGE_CHARS = 1024;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The NCCL headers on one line, in order; empty when the line is not NCCL's. */
export function findHeaders(text: string): NcclHeader[] {
  let at = text.indexOf('NCCL ');
  if (at < 0) return [];
  const found: Mutable<NcclHeader>[] = [];
  // No header holds "NCCL " (a host name, pid, tid, origin have no space): each is looked for after
  // the previous one only, so the windows the header regex searches add up to the line, not 400 per word.
  let after = 0;
  for (; at >= 0; after = at + 5, at = text.indexOf('NCCL ', after)) {
    const level = levelAt(text, at + 5);
    const header = level === null ? null : headerAt(text, at, level, after);
    if (header === null) continue;
    const previous = found[found.length - 1];
    if (previous !== undefined) {
      previous.message = text.slice(previous.messageColumn, header.column);
      previous.cut = true;
    }
    found.push(header);
  }
  return (found.length > 0 ? found : versionLine(text)).map(capMessage);
}

function capMessage(h: Mutable<NcclHeader>): NcclHeader {
  if (h.message.length > MAX_MESSAGE_CHARS) {
    h.message = h.message.slice(0, MAX_MESSAGE_CHARS);
    h.cut = true;
  }
  return h;
}

function levelAt(text: string, i: number): NcclLevel | null {
  for (const level of LEVELS) {
    if (text.startsWith(level, i) && (i + level.length === text.length || text.charCodeAt(i + level.length) === 32)) return level;
  }
  return null;
}

/** The header whose level word starts at `at` (its message up to the line's end), or null when the text there is someone else's. */
function headerAt(text: string, at: number, level: NcclLevel, after: number): Mutable<NcclHeader> | null {
  const start = Math.max(after, at - MAX_HEADER_CHARS);
  const before = text.slice(start, at);
  let messageColumn = at + 5 + level.length;
  if (text[messageColumn] === ' ') messageColumn++;
  const full = FULL_TAIL.exec(before);
  if (full) {
    return {
      column: start + full.index,
      messageColumn,
      message: text.slice(messageColumn),
      host: full[1],
      pid: Number(full[2]),
      tid: Number(full[3]),
      dev: Number(full[4]),
      level,
      origin: full[5] === undefined ? null : full[6] === undefined ? full[5] : `${full[5]} (${full[6]})`,
      cut: false,
    };
  }
  if (level === 'TRACE') return null;
  const bare = BARE_TAIL.exec(before);
  if (!bare) return null;
  const column = at - (bare[1]?.length ?? 0);
  const dev = bare[2] === undefined ? null : Number(bare[2]);
  return {
    column,
    messageColumn,
    message: text.slice(messageColumn),
    host: null,
    pid: null,
    tid: null,
    dev,
    level,
    origin: null,
    cut: false,
  };
}

function versionLine(text: string): Mutable<NcclHeader>[] {
  const column = text.lastIndexOf(VERSION_WORDS);
  if (column < 0 || text.startsWith(', ', column - 2)) return [];
  const number = column + VERSION_WORDS.length;
  VERSION_NUMBER.lastIndex = number;
  // Only the version may follow, or Ray's "[repeated Nx across cluster]" after it.
  const rest = splitRayRepeat(text.slice(number)).message.trimEnd();
  if (!VERSION_NUMBER.test(text) || /\s/.test(rest)) return [];
  return [
    {
      column,
      messageColumn: column,
      message: text.slice(column),
      host: null,
      pid: null,
      tid: null,
      dev: null,
      level: 'VERSION',
      origin: null,
      cut: false,
    },
  ];
}
