// The NCCL environment variables that change a GPUDirect RDMA verdict, read the way NCCL reads them:
// integers through ncclLoadParam (src/misc/param.cc: strtoll, base 0, no error for trailing text: `00`,
// `0x0` and `0abc` are 0), levels through ncclGetLevel (src/graph/paths.cc: a path name, else an
// old-style number; NCCL_P2P_DISABLE through strtol, only 1 disables), device lists through
// parseStringList/matchIfList (src/misc/utils.cc).
import { PathType } from './pathType';
import { NcclRules } from './rules';
import { t } from '../../l10n';

export interface IbHcaEntry {
  readonly prefix: string;
  /** -1: any port, as parseStringList leaves it when none is given. */
  readonly port: number;
}

export interface IbHcaFilter {
  /** `^` first: the list names devices to leave out. */
  readonly exclude: boolean;
  /** `=` (after `^`, if any): names must match exactly instead of as prefixes. */
  readonly exact: boolean;
  readonly entries: readonly IbHcaEntry[];
}

export interface NcclEnv {
  /** NCCL_NET_GDR_LEVEL as NCCL understood it; null: unset or not understood (NCCL keeps its default). */
  readonly gdrLevel: PathType | null;
  readonly gdrC2c: number | null;
  readonly pxnDisable: number | null;
  readonly pxnC2c: number | null;
  readonly gdrRead: number | null;
  readonly dmabufEnable: number | null;
  readonly ibHca: IbHcaFilter | null;
  /**
   * NCCL_P2P_DISABLE=1 (PATH_LOC) or NCCL_P2P_LEVEL: GPU pairs beyond it talk through the CPU
   * (ncclTopoCheckP2p, ncclTopoComputePaths "Divert all traffic through the CPU"); null: NCCL's default.
   */
  readonly p2pLevel: PathType | null;
  /** NCCL_IB_DISABLE: any nonzero value leaves NET/IB out (net_ib/init.cc ncclIbInit), so NCCL uses sockets. */
  readonly ibDisable: number | null;
  /** NCCL_TOPO_FILE: NCCL reads its topology from this XML file (src/graph/topo.cc ncclTopoGetSystem). */
  readonly topoFile: string | null;
  /** NCCL_NET_PLUGIN: the plugin library (libnccl-net-<name>.so), or "none" (src/plugin/net.cc). */
  readonly netPlugin: string | null;
  /** NCCL_NET: the network by name ("IB", "Socket", a plugin's). */
  readonly net: string | null;
  /** The variables as the user gave them (only the ones above). */
  readonly given: Readonly<Record<string, string>>;
  /** Values NCCL would ignore or read differently from how they look, in words. */
  readonly problems: readonly string[];
}

export const NCCL_ENV_NAMES = [
  'NCCL_NET_GDR_LEVEL',
  'NCCL_NET_GDR_C2C',
  'NCCL_PXN_DISABLE',
  'NCCL_PXN_C2C',
  'NCCL_NET_GDR_READ',
  'NCCL_DMABUF_ENABLE',
  'NCCL_IB_HCA',
  'NCCL_P2P_DISABLE',
  'NCCL_P2P_LEVEL',
  'NCCL_IB_DISABLE',
  'NCCL_TOPO_FILE',
  'NCCL_NET_PLUGIN',
  'NCCL_NET',
  // The RoCE GID NCCL picks (gidIndex.ts).
  'NCCL_IB_GID_INDEX',
  'NCCL_IB_ADDR_FAMILY',
  'NCCL_IB_ROCE_VERSION_NUM',
  // The RoCE traffic class and service level NCCL marks its packets with (roceFabric.ts).
  'NCCL_IB_TC',
  'NCCL_IB_SL',
] as const;

/** `levelsOldToNew` in ncclGetLevel: the numbers NCCL_NET_GDR_LEVEL took before path names. */
const OLD_LEVELS: readonly PathType[] = ['LOC', 'PIX', 'PXB', 'PHB', 'SYS', 'SYS'];

export function readNcclEnv(vars: Readonly<Record<string, string>>, rules: NcclRules): NcclEnv {
  const problems: string[] = [];
  const given: Record<string, string> = {};
  for (const name of Object.keys(vars)) {
    if ((NCCL_ENV_NAMES as readonly string[]).includes(name)) given[name] = vars[name];
    else problems.push(t('{0} does not change a GPUDirect RDMA verdict here and is ignored', name));
  }
  const int = (name: string) => (given[name] === undefined || given[name] === '' ? null : strtoll(given[name]));
  return {
    gdrLevel: readLevel('NCCL_NET_GDR_LEVEL', given.NCCL_NET_GDR_LEVEL, rules, problems),
    gdrC2c: int('NCCL_NET_GDR_C2C'),
    pxnDisable: int('NCCL_PXN_DISABLE'),
    pxnC2c: int('NCCL_PXN_C2C'),
    gdrRead: int('NCCL_NET_GDR_READ'),
    dmabufEnable: int('NCCL_DMABUF_ENABLE'),
    ibHca: given.NCCL_IB_HCA === undefined ? null : parseIbHca(given.NCCL_IB_HCA),
    p2pLevel: readP2pLevel(given, rules, problems),
    ibDisable: int('NCCL_IB_DISABLE'),
    topoFile: given.NCCL_TOPO_FILE === undefined ? null : given.NCCL_TOPO_FILE,
    netPlugin: given.NCCL_NET_PLUGIN ?? null,
    net: given.NCCL_NET ?? null,
    given,
    problems,
  };
}

/** ncclGetLevel(…, "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"): strtol(NCCL_P2P_DISABLE) == 1 is PATH_LOC, else the level. */
function readP2pLevel(given: Readonly<Record<string, string>>, rules: NcclRules, problems: string[]): PathType | null {
  const disable = given.NCCL_P2P_DISABLE;
  if (disable !== undefined && strtoll(disable) === 1) return 'LOC';
  return readLevel('NCCL_P2P_LEVEL', given.NCCL_P2P_LEVEL, rules, problems);
}

export const EMPTY_NCCL_ENV: NcclEnv = {
  gdrLevel: null,
  gdrC2c: null,
  pxnDisable: null,
  pxnC2c: null,
  gdrRead: null,
  dmabufEnable: null,
  ibHca: null,
  p2pLevel: null,
  ibDisable: null,
  topoFile: null,
  netPlugin: null,
  net: null,
  given: {},
  problems: [],
};

/** ncclGetLevel: a path name up to SYS in this release's order, else a leading digit's old-style number. */
function readLevel(name: string, text: string | undefined, rules: NcclRules, problems: string[]): PathType | null {
  if (text === undefined) return null;
  const names = rules.order.slice(0, rules.order.indexOf('SYS') + 1);
  const named = names.find((n) => n === text);
  if (named) return named;
  if (/^[0-9]/.test(text)) return OLD_LEVELS[Math.min(Math.max(strtoll(text), 0), OLD_LEVELS.length - 1)];
  problems.push(
    // The value may come from a host's nccl.conf (a CR, an escape): shown escaped.
    t(
      '{0}={1} is not a level NCCL accepts (it takes {2} or 0-5): NCCL ignores it and keeps its default',
      name,
      JSON.stringify(text).slice(1, -1),
      names.join(', '),
    ) + (text === 'NODE' ? t("; nvidia-smi's NODE is PHB in NCCL") : ''),
  );
  return null;
}

/** strtoll(str, NULL, 0): leading blanks, a sign, 0x hex / 0 octal / decimal digits; 0 when none. */
export function strtoll(text: string): number {
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (!m) return 0;
  const digits = m[2];
  const value = /^0[xX]/.test(digits)
    ? parseInt(digits.slice(2), 16)
    : digits.length > 1 && digits.startsWith('0')
      ? parseInt(digits, 8)
      : Number(digits);
  return m[1] === '-' ? -value : value;
}

/** NCCL_IB_HCA: `[^][=]name[:port],…` (net_ib init: searchNot, searchExact, parseStringList). */
export function parseIbHca(text: string): IbHcaFilter {
  let rest = text;
  const exclude = rest.startsWith('^');
  if (exclude) rest = rest.slice(1);
  const exact = rest.startsWith('=');
  if (exact) rest = rest.slice(1);
  const entries = rest.split(',').flatMap((entry) => {
    const [prefix, port] = entry.split(':');
    if (!prefix) return [];
    return [{ prefix, port: port === undefined || port === '' ? -1 : Math.trunc(strtoll(port)) }];
  });
  return { exclude, exact, entries };
}

/** Whether NCCL keeps device:port under NCCL_IB_HCA (matchIfList, then the `^` inversion). */
export function ibHcaKeeps(filter: IbHcaFilter | null, device: string, port: number): boolean {
  if (filter === null) return true;
  // An empty list matches every device (matchIfList), so a bare `^` leaves none.
  const matched =
    filter.entries.length === 0 ||
    filter.entries.some((e) => (filter.exact ? device === e.prefix : device.startsWith(e.prefix)) && (e.port === -1 || e.port === port));
  return matched !== filter.exclude;
}
