// NCCL's connection lines: which transport each channel between two ranks uses. Formats, as printed
// by src/transport/{net,p2p,shm,coll_net}.cc:
//   2.4      "Ring %02d : %d -> %d [send] via NET/%s/%d%s"            (ranks only; P2P/SHM "%d[%d]")
//   2.5–2.6  "Ring %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s"  (busId in hex)
//   2.7–2.11 "Channel %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s%s"   ("/Shared" from 2.8)
//   2.12+    "Channel %02d/%d : …" (connIndex), PXN sends "via NET/%s/%d(%d)%s%s" (the proxy rank)
//   2.18.3+  "%d[%d]" is the NVML device instead of the busId
//   2.27+    "/GDRDMA(PCI)" when GPUDirect RDMA goes through PCIe on a C2C system
//   P2P      "via P2P/IPC", "P2P/CUMEM" (2.18+), "P2P/direct pointer", "P2P/indirect/%d[%d]", "P2P/MNNVL",
//            each optionally "/read" and "/CE"; SHM "via direct shared memory" (≤ 2.13), "via SHM/%s/%s"
//            (2.14+), "via SHM/direct" (2.30)
//   CollNet  "Coll %02d : %d [send] via COLLNET/%s/%d%s" (2.7–2.11), "CollNet %02d[/%1d] : %d [send] …" (2.12+)
import type { NcclConnection, NcclEndpoint, NcclMessage, NcclNetPath } from './ncclLogTypes';

const CONNECTION =
  /^(Ring|Channel|CollNet|Coll) (\d+)(?:\/(\d+))? : (\d+)(?:\[([0-9a-fA-F]+)\])?(?: -> (\d+)(?:\[([0-9a-fA-F]+)\])?)?(?: \[(send|receive)\])? via (.+)$/;
// The net's name may hold spaces and slashes ("AWS Libfabric", "NCCL RDMA Plugin v6"): read from the end.
const NET_VIA = /^(?:NET|COLLNET)\/(.+)\/(\d+)(?:\((\d+)\))?(\/GDRDMA)?(\(PCI\))?(\/Shared)?$/;

/** The connection a message describes, or null when it is not a connection line. `text` is trimmed (classifyMessage). */
export function parseConnection(text: string): NcclMessage | null {
  if (!(text.startsWith('Channel ') || text.startsWith('Ring ') || text.startsWith('Coll'))) return null;
  const m = CONNECTION.exec(text);
  if (!m) return null;
  const via = m[9];
  const connection: NcclConnection = {
    style: m[1] as NcclConnection['style'],
    channel: Number(m[2]),
    connIndex: m[3] === undefined ? null : Number(m[3]),
    from: endpoint(m[4], m[5]),
    to: m[6] === undefined ? null : endpoint(m[6], m[7]),
    direction: (m[8] as 'send' | 'receive' | undefined) ?? null,
    transport: transportOf(via),
    via,
    net: netPath(via),
  };
  return { kind: 'connection', ...connection };
}

function endpoint(rank: string, tag: string | undefined): NcclEndpoint {
  return { rank: Number(rank), tag: tag ?? null };
}

function transportOf(via: string): string {
  if (via.startsWith('direct shared memory')) return 'SHM';
  const slash = via.indexOf('/');
  return slash > 0 ? via.slice(0, slash) : via;
}

function netPath(via: string): NcclNetPath | null {
  if (!via.startsWith('NET/') && !via.startsWith('COLLNET/')) return null;
  const m = NET_VIA.exec(via);
  if (!m) return null;
  return {
    name: m[1],
    dev: Number(m[2]),
    proxyRank: m[3] === undefined ? null : Number(m[3]),
    gdr: m[4] !== undefined,
    gdrPci: m[5] !== undefined,
    shared: m[6] !== undefined,
  };
}
