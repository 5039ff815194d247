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

// One alternative per token; at each position the first that matches wins (`/GDRDMA(PCI)` before `/GDRDMA`).
const VIA_TOKEN =
  /(?<gdrdmaPci>\/GDRDMA\(PCI\))|(?<gdrdma>\/GDRDMA)|(?<shared>\/Shared)|(?<pxn>\(\d+\))|(?<p2pCumem>P2P\/CUMEM)|(?<p2pIpc>P2P\/IPC)|(?<p2pDirect>P2P\/direct pointer)|(?<p2pOther>P2P\/\w+)|(?<p2pRead>\/read)|(?<p2pCe>\/CE)|(?<shm>SHM(?:\/\w+)*|direct shared memory)|(?<netSocket>NET\/Socket)|(?<netIb>NET\/IB(?=\/))|(?<collnet>COLLNET)|(?<netPlugin>NET\/[^/]+)/g;

const TOKEN_OF_GROUP: Record<string, TransportToken> = {
  gdrdmaPci: 'gdrdma-pci',
  gdrdma: 'gdrdma',
  shared: 'shared',
  pxn: 'pxn',
  p2pCumem: 'p2p-cumem',
  p2pIpc: 'p2p-ipc',
  p2pDirect: 'p2p-direct',
  p2pOther: 'p2p-other',
  p2pRead: 'p2p-read',
  p2pCe: 'p2p-ce',
  shm: 'shm',
  netSocket: 'net-socket',
  netIb: 'net-ib',
  collnet: 'collnet',
  netPlugin: 'net-plugin',
};

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
  for (const m of message.slice(via + 5).matchAll(VIA_TOKEN)) {
    const start = via + 5 + (m.index ?? 0);
    const end = start + m[0].length;
    if (offset < start) return null;
    if (offset < end) {
      const group = Object.entries(m.groups ?? {}).find(([, v]) => v !== undefined)?.[0];
      return group === undefined ? null : { start, end, key: TOKEN_OF_GROUP[group] };
    }
  }
  return null;
}
