// What the editor's hover explains at a position of an NCCL log line: the header, a transport name in
// a connection line (GDRDMA, P2P/IPC, SHM, NET/Socket, a PXN proxy rank, /Shared…), DMABUF in an HCA
// line, or else the kind of the line. Reads that one line only, so hovering costs nothing on big logs.
import { MAX_LINE_CHARS } from '../parsers/ncclLog';
import { classifyMessage } from '../parsers/ncclLogMessages';
import { findHeaders } from '../parsers/ncclLogPrefix';
import type { NcclMessageKind } from '../parsers/ncclLogTypes';
import { Explanation, HEADER_TEXT, LINE_KIND_TEXT, NO_DEVICE_TEXT, TRANSPORT_TEXT, TransportToken } from './lineKindText';

export interface NcclLogHover {
  /** 0-based columns [start, end) of what is explained. */
  readonly start: number;
  readonly end: number;
  /** The most specific first: the token's meaning, then the line's. */
  readonly explanations: readonly Explanation[];
}

// The transport tokens of a connection line, tried in this order at each position: the first that
// matches wins (`/GDRDMA(PCI)` before `/GDRDMA`, `P2P/IPC` before any other `P2P/…`). Sticky, so each
// is tried at one position only.
const VIA_TOKENS: readonly (readonly [TransportToken, RegExp])[] = [
  ['gdrdma-pci', /\/GDRDMA\(PCI\)/y],
  ['gdrdma', /\/GDRDMA/y],
  ['shared', /\/Shared/y],
  ['pxn', /\(\d+\)/y],
  ['p2p-cumem', /P2P\/CUMEM/y],
  ['p2p-ipc', /P2P\/IPC/y],
  ['p2p-direct', /P2P\/direct pointer/y],
  ['p2p-other', /P2P\/\w+/y],
  ['p2p-read', /\/read/y],
  ['p2p-ce', /\/CE/y],
  ['shm', /SHM(?:\/\w+)*|direct shared memory/y],
  ['net-socket', /NET\/Socket/y],
  ['net-ib', /NET\/IB(?=\/)/y],
  ['collnet', /COLLNET/y],
  ['net-plugin', /NET\/[^/]+/y],
];

/** The token that starts at `at` in `text` (none is empty), with where it ends. */
function viaTokenAt(text: string, at: number): { end: number; key: TransportToken } | null {
  for (const [key, pattern] of VIA_TOKENS) {
    pattern.lastIndex = at;
    if (pattern.test(text)) return { end: pattern.lastIndex, key };
  }
  return null;
}

/** The hover at `character` (0-based) of one line of an NCCL log; null where nothing is NCCL's. */
export function ncclLogHoverAt(line: string, character: number): NcclLogHover | null {
  // As the reader reads it: a line up to MAX_LINE_CHARS, a message up to MAX_MESSAGE_CHARS (past them, no hover).
  if (character >= MAX_LINE_CHARS) return null;
  const headers = findHeaders(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line);
  const at = headers.findIndex((h, i) => character >= h.column && (i === headers.length - 1 || character < headers[i + 1].column));
  if (at < 0) return null;
  const h = headers[at];
  if (character < h.messageColumn) return { start: h.column, end: h.messageColumn, explanations: [HEADER_TEXT] };
  const end = h.messageColumn + h.message.trimEnd().length;
  if (character >= end) return null;
  const message = classifyMessage(h.message, h.level);
  const kind = message.kind;
  // The line under the cursor: a "No device found" line is explained as such, not as the NIC list it shares a kind with.
  const lineKind = message.kind === 'net-devices' && !message.found ? NO_DEVICE_TEXT : LINE_KIND_TEXT[kind];
  const token = tokenAt(h.message, character - h.messageColumn, kind);
  if (!token) return { start: h.messageColumn, end, explanations: [lineKind] };
  return { start: h.messageColumn + token.start, end: h.messageColumn + token.end, explanations: [TRANSPORT_TEXT[token.key], lineKind] };
}

function tokenAt(message: string, offset: number, kind: NcclMessageKind): { start: number; end: number; key: TransportToken } | null {
  if (kind === 'hca-gdr') {
    const at = message.indexOf('(DMABUF)');
    return at >= 0 && offset >= at && offset < at + 8 ? { start: at, end: at + 8, key: 'dmabuf' } : null;
  }
  if (kind !== 'connection') return null;
  const via = message.indexOf(' via ');
  if (via < 0 || offset < via + 5) return null;
  // Left to right as one alternation of the tokens would match them, up to the token under `offset`.
  const text = message.slice(via + 5);
  for (let i = 0; via + 5 + i <= offset && i < text.length;) {
    const token = viaTokenAt(text, i);
    if (!token) {
      i++;
      continue;
    }
    if (offset < via + 5 + token.end) return { start: via + 5 + i, end: via + 5 + token.end, key: token.key };
    i = token.end;
  }
  return null;
}
