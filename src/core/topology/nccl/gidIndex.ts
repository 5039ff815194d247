// Which GID a RoCE port's connections use, as NCCL picks it (src/transport/net_ib/connect.cc
// ncclIbGetGidIndex and ncclUpdateGidIndex; src/transport/net_ib.cc before 2.23): before 2.21 the index
// is NCCL_IB_GID_INDEX, default 0; from 2.21 the default is -1 and NCCL walks the table from index 0,
// moving to an entry of the wanted address family (NCCL_IB_ADDR_FAMILY, default AF_INET), then to a
// configured, non-link-local entry of the wanted RoCE version (NCCL_IB_ROCE_VERSION_NUM, default 2),
// reading each entry's version from /sys/class/infiniband/<dev>/ports/<n>/gid_attrs/types/<i>
// (ncclIbRoceGetVersionNum). Before 2.26 an entry whose type cannot be read (an empty slot of a sparse
// table) makes that read fail and the connection with it; 2.26 skips it.
import type { GidEntry } from '../../parsers/showGids';
import { NcclVersion, atLeast } from './version';

export type GidKind = 'link-local' | 'ipv4' | 'ipv6' | 'unconfigured';

export interface GidChoice {
  /** The index NCCL uses, or null when its selection fails. */
  readonly index: number | null;
  /** The entry at that index, when the table has one. */
  readonly entry: GidEntry | null;
  /** How NCCL came to it, in words, with the function. */
  readonly how: string;
}

const ZERO = '0000:0000:0000:0000:0000:0000:0000:0000';
const FAILS_BEFORE_2_26 = 'NCCL before 2.26 fails the connection ("read failed in ncclIbRoceGetVersionNum")';

function words(gid: string): number[] {
  return gid.split(':').map((w) => parseInt(w, 16));
}

/** getGidAddrFamily: an IPv4-mapped address (::ffff:a.b.c.d, or its ff0e multicast form) is AF_INET. */
function isIpv4(gid: string): boolean {
  const w = words(gid);
  const mapped = w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff;
  const multicast = w[0] === 0xff0e && w.slice(1, 5).every((x) => x === 0) && w[5] === 0xffff;
  return mapped || multicast;
}

export function gidKind(gid: string): GidKind {
  const w = words(gid);
  const trailer = w.slice(2).some((x) => x !== 0);
  // configuredGid: all zero, or fe80:: with nothing after the prefix, is not configured.
  if (gid === ZERO || (w[0] === 0xfe80 && w[1] === 0 && !trailer)) return 'unconfigured';
  if (w[0] === 0xfe80 && w[1] === 0) return 'link-local';
  return isIpv4(gid) ? 'ipv4' : 'ipv6';
}

/** validGid: configured and not link-local — an address routers forward. */
export function routable(gid: string): boolean {
  const k = gidKind(gid);
  return k === 'ipv4' || k === 'ipv6';
}

export interface GidEnv {
  readonly NCCL_IB_GID_INDEX?: string;
  readonly NCCL_IB_ADDR_FAMILY?: string;
  readonly NCCL_IB_ROCE_VERSION_NUM?: string;
}

/** The GID a RoCE port uses under this NCCL release and environment; `table` holds the port's populated entries. */
export function ncclGidChoice(table: readonly GidEntry[], version: NcclVersion, env: GidEnv): GidChoice {
  const at = (i: number) => table.find((g) => g.index === i) ?? null;
  const given =
    env.NCCL_IB_GID_INDEX !== undefined && /^-?\d+$/.test(env.NCCL_IB_GID_INDEX.trim()) ? Number(env.NCCL_IB_GID_INDEX.trim()) : null;
  if (!atLeast(version, 2, 21)) {
    const index = given ?? 0;
    return { index, entry: at(index), how: `NCCL before 2.21 uses NCCL_IB_GID_INDEX, default 0 (net_ib.cc)` };
  }
  if (given !== null && given >= 0) return { index: given, entry: at(given), how: 'NCCL_IB_GID_INDEX is set' };
  const family = env.NCCL_IB_ADDR_FAMILY?.trim() === 'AF_INET6' ? 'ipv6' : 'ipv4';
  const wanted =
    env.NCCL_IB_ROCE_VERSION_NUM !== undefined && /^\d+$/.test(env.NCCL_IB_ROCE_VERSION_NUM.trim())
      ? Number(env.NCCL_IB_ROCE_VERSION_NUM.trim())
      : 2;
  const last = table.reduce((m, g) => Math.max(m, g.index), 0);
  const gidAt = (i: number) => at(i)?.gid ?? ZERO;
  const famOf = (gid: string) => (isIpv4(gid) ? 'ipv4' : 'ipv6');
  let index = 0;
  for (let cand = 1; cand <= last; cand++) {
    const cur = gidAt(index);
    const next = gidAt(cand);
    if (famOf(next) !== famOf(cur) && famOf(next) === family) {
      index = cand;
      continue;
    }
    if (famOf(next) !== family || !routable(next)) continue;
    // ncclIbRoceGetVersionNum on both entries: an unreadable type fails the whole selection before 2.26.
    const curVersion = at(index)?.roceVersion ?? null;
    const candVersion = at(cand)?.roceVersion ?? null;
    if ((curVersion === null || candVersion === null) && !atLeast(version, 2, 26)) {
      return {
        index: null,
        entry: null,
        how: `ncclIbRoceGetVersionNum cannot read gid_attrs/types/${curVersion === null ? index : cand} (an empty slot): ${FAILS_BEFORE_2_26}`,
      };
    }
    if ((curVersion !== candVersion || !routable(cur)) && candVersion === wanted) index = cand;
  }
  return {
    index,
    entry: at(index),
    how: `NCCL ${family === 'ipv4' ? 'AF_INET' : 'AF_INET6'}, RoCE v${wanted} auto-selection (ncclIbGetGidIndex)`,
  };
}

/** The entry a RoCE job should use: a routable RoCE v2 GID, IPv4 first (NCCL's own default family). */
export function bestGid(table: readonly GidEntry[]): GidEntry | null {
  const v2 = table.filter((g) => g.roceVersion === 2 && routable(g.gid));
  return v2.find((g) => gidKind(g.gid) === 'ipv4') ?? v2[0] ?? null;
}
