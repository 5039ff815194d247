// `show_gids` (MLNX_OFED/DOCA's script): the RDMA ports' GID tables as sysfs holds them —
// /sys/class/infiniband/<dev>/ports/<n>/gids/<i>, gid_attrs/types/<i>, gid_attrs/ndevs/<i> — one row per
// populated entry. The probe reads the same files itself (probe/pciSysfs.ts); both give GidEntry.
import { deviceNameProblem } from './deviceName';
import { Parsed, fail, ok, quote, readLines } from './result';

export interface GidEntry {
  readonly device: string;
  readonly port: number;
  readonly index: number;
  /** As sysfs prints it: eight groups of four hex digits (`fe80:0000:…:03ec`). */
  readonly gid: string;
  /** RoCE version from gid_attrs/types (`IB/RoCE v1` → 1, `RoCE v2` → 2); null when not readable. */
  readonly roceVersion: 1 | 2 | null;
  /** The netdev of the entry (gid_attrs/ndevs); null when none. */
  readonly netdev: string | null;
}

const WHAT = 'show_gids';
const GID = /^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/;
const ROW = /^(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(?:(\d+\.\d+\.\d+\.\d+)\s+)?(v1|v2)\s*(\S*)\s*$/;

export function parseShowGids(text: string): Parsed<{ gids: GidEntry[]; found: number | null }> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  const head = lines.findIndex((l) => l.trim() !== '');
  if (head < 0 || !/^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$/.test(lines[head])) {
    return fail(head + 1 || 1, `${WHAT}: expected the header "DEV PORT INDEX GID IPv4 VER DEV", found ${quote(lines[head] ?? '')}`);
  }
  const gids: GidEntry[] = [];
  let found: number | null = null;
  for (let i = head + 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || /^-+(\s+-+)*\s*$/.test(line)) continue;
    const n = /^n_gids_found=(\d+)\s*$/.exec(line);
    if (n) {
      found = Number(n[1]);
      continue;
    }
    const m = ROW.exec(line);
    if (!m || !GID.test(m[4]))
      return fail(i + 1, `${WHAT}: expected "<dev> <port> <index> <gid> [IPv4] v1|v2 <netdev>", found ${quote(line)}`);
    const badName = deviceNameProblem(m[1]);
    if (badName !== null) return fail(i + 1, `${WHAT}: ${badName}`);
    gids.push({
      device: m[1],
      port: Number(m[2]),
      index: Number(m[3]),
      gid: m[4],
      roceVersion: m[6] === 'v1' ? 1 : 2,
      netdev: m[7] || null,
    });
  }
  if (found !== null && found !== gids.length)
    return fail(lines.length, `${WHAT}: n_gids_found=${found} but ${gids.length} rows were listed`);
  return ok({ gids, found });
}

/** gid_attrs/types/<i> as the kernel prints it (drivers/infiniband/core/cache.c: "IB/RoCE v1", "RoCE v2"). */
export function roceVersionOf(type: string): 1 | 2 | null {
  const t = type.trim();
  if (t === 'IB/RoCE v1' || t === 'RoCE v1') return 1;
  if (t === 'RoCE v2') return 2;
  return null;
}
