// What several rule groups need to agree on, read once from the facts: which peer-memory module is
// loaded, registered, installed and persisted, whether OFED is there, and who owns the driver.
// Every answer is three-valued: `null` means the probe could not tell, and rules stay silent on it.
import { findModule } from '../parsers/lsmod';
import { driverMajor } from '../parsers/smiQuery';
import { sameModule } from '../probe/headedFiles';
import { ProbeReport } from '../probe/runProbe';
import { commandOf, factOf } from './evidence';

export const NEW_MODULE = 'nvidia_peermem';
export const LEGACY_MODULE = 'nv_peer_mem';

export interface PeermemState {
  readonly newLoaded: boolean | null;
  readonly legacyLoaded: boolean | null;
  /** Registered peer-memory clients (`nv_mem`, `nv_mem_nc`); null when not read. */
  readonly registered: readonly string[] | null;
  /** `modinfo` found the module file for the running kernel; null when it could not say. */
  readonly newExists: boolean | null;
  readonly legacyExists: boolean | null;
  /** The legacy `nv_peer_mem` service is enabled (starts at boot). */
  readonly legacyServiceEnabled: boolean | null;
  readonly legacyServiceActive: boolean | null;
  /** The modules-load.d / /etc/modules files that name a module, by module; null when neither was read. */
  readonly persistedBy: { readonly new: string[]; readonly legacy: string[] } | null;
  /** `ib_register_peer_memory_client` is in /proc/kallsyms. */
  readonly symbolExported: boolean | null;
  /** The modules /proc/kallsyms shows exporting it (`ib_core`, `ib_uverbs`); empty when not read or not shown. */
  readonly symbolExporters: readonly string[];
  /**
   * nvidia_peermem's module file depends on a module exporting the peer-memory API (built against OFED's symbols:
   * `ib_core` with older MLNX_OFED, `ib_uverbs` with recent MLNX_OFED and DOCA-OFED); false for the stub the driver
   * builds without them, which depends on none and whose init always returns -EINVAL; null when modinfo did not say.
   */
  readonly newBuiltAgainstOfed: boolean | null;
}

export interface HostState {
  readonly peermem: PeermemState;
  /** `ofed_info -s` names an MLNX_OFED/DOCA-OFED install; false when the command is missing. */
  readonly ofedPresent: boolean | null;
  /** The GPU Operator's driver container owns the modules (`/run/nvidia/driver` exists). */
  readonly operatorManaged: boolean;
  /** Major branch of the NVIDIA driver (`595`), from whichever output shows it. */
  readonly driverBranch: number | null;
  /** ib_core is loaded (lsmod): only then does /proc/kallsyms show what the running ib_core exports. */
  readonly ibCoreLoaded: boolean | null;
}

export function readHostState(report: ProbeReport): HostState {
  return {
    peermem: readPeermem(report),
    ofedPresent: readOfed(report),
    operatorManaged: factOf(report, 'run-nvidia-driver')?.present === true,
    driverBranch: readDriverBranch(report),
    ibCoreLoaded: inLsmod(report, 'ib_core'),
  };
}

function readPeermem(report: ProbeReport): PeermemState {
  const service = factOf(report, 'nv-peer-mem-service');
  const kallsyms = factOf(report, 'kallsyms-peer');
  return {
    newLoaded: isLoaded(report, NEW_MODULE),
    legacyLoaded: isLoaded(report, LEGACY_MODULE),
    registered: factOf(report, 'memory-peers')?.peers.map((p) => p.name) ?? null,
    newExists: moduleExists(report, 'modinfo-nvidia-peermem'),
    legacyExists: moduleExists(report, 'modinfo-nv-peer-mem'),
    // "" = systemd knows no such unit; `enabled-runtime` starts it at this boot only, but starts it.
    legacyServiceEnabled: service ? service.enabled === 'enabled' || service.enabled === 'enabled-runtime' : null,
    legacyServiceActive: service ? service.active === 'active' : null,
    persistedBy: readPersistence(report),
    symbolExported: kallsyms ? kallsyms.exported : null,
    symbolExporters: kallsyms?.exporters ?? [],
    newBuiltAgainstOfed: builtAgainstOfed(report, kallsyms?.exporters ?? []),
  };
}

/** lsmod, else /sys/module (a module with a `live` initstate is loaded). */
function isLoaded(report: ProbeReport, module: string): boolean | null {
  const lsmod = factOf(report, 'lsmod');
  const sys = factOf(report, 'sys-module-peermem');
  const inSys = sys ? sys.modules.some((m) => sameModule(m.name, module)) : null;
  const inLsmod = lsmod ? findModule(lsmod, module) !== undefined : null;
  if (inLsmod === true || inSys === true) return true;
  if (inLsmod === false || inSys === false) return false;
  return null;
}

function inLsmod(report: ProbeReport, module: string): boolean | null {
  const lsmod = factOf(report, 'lsmod');
  return lsmod ? findModule(lsmod, module) !== undefined : null;
}

/**
 * The modules MLNX_OFED/DOCA-OFED export ib_register_peer_memory_client from: ib_core in older MLNX_OFED,
 * ib_uverbs in recent MLNX_OFED and DOCA-OFED (real lsmod: `ib_uverbs … 3 nvidia_peermem,rdma_ucm,mlx5_ib`,
 * NVIDIA/nccl-tests#362; kallsyms `[ib_uverbs]`, ROCm/rccl#1377).
 */
export const PEER_MEMORY_EXPORTERS: readonly string[] = ['ib_core', 'ib_uverbs'];

/**
 * kernel-open/nvidia-peermem/nvidia-peermem.c compiles its body only when conftest.sh found
 * ib_register_peer_memory_client in a Module.symvers (NV_MLNX_IB_PEER_MEM_SYMBOLS_PRESENT); that body
 * calls it, so modpost records the module exporting it under `depends:` (ib_core or ib_uverbs, whichever
 * the OFED build puts it in). The stub calls nothing and depends on none of them.
 */
function builtAgainstOfed(report: ProbeReport, exporters: readonly string[]): boolean | null {
  const info = factOf(report, 'modinfo-nvidia-peermem');
  if (!info?.found || info.fields.depends === undefined) return null;
  return info.depends.some((d) => PEER_MEMORY_EXPORTERS.includes(d) || exporters.includes(d));
}

function moduleExists(report: ProbeReport, id: 'modinfo-nvidia-peermem' | 'modinfo-nv-peer-mem'): boolean | null {
  const info = factOf(report, id);
  return info ? info.found : null;
}

function readPersistence(report: ProbeReport): PeermemState['persistedBy'] {
  const files = [...(factOf(report, 'modules-load')?.files ?? []), ...(factOf(report, 'etc-modules')?.files ?? [])];
  if (!factOf(report, 'modules-load') && !factOf(report, 'etc-modules')) return null;
  const naming = (module: string) => files.filter((f) => f.modules.some((m) => sameModule(m, module))).map((f) => f.path);
  return { new: naming(NEW_MODULE), legacy: naming(LEGACY_MODULE) };
}

function readOfed(report: ProbeReport): boolean | null {
  if (factOf(report, 'ofed')) return true;
  const c = commandOf(report, 'ofed');
  if (!c || c.state !== 'complete') return null;
  // Stopped by `timeout` (124: its exit status, also what the collect script saves): no answer, not "no OFED".
  if (c.timedOut || c.exitCode === 124) return null;
  // `ofed_info` missing (127), or present but failing: no OFED stack to speak of.
  return c.missing || (c.exitCode !== null && c.exitCode !== 0) ? false : null;
}

function readDriverBranch(report: ProbeReport): number | null {
  const version = factOf(report, 'nvidia-version');
  if (version) return version.driverBranch;
  const modinfo = factOf(report, 'modinfo-nvidia');
  const fromModinfo = modinfo?.found ? driverMajor(modinfo.fields.version) : undefined;
  const fromSmi = driverMajor(factOf(report, 'smi-q')?.driverVersion) ?? driverMajor(factOf(report, 'gpus')?.gpus[0]?.driverVersion);
  return fromModinfo ?? fromSmi ?? null;
}

/** Loaded (either module), with the loaded one's name; null when lsmod and /sys/module were both unread. */
export function anyPeermemLoaded(p: PeermemState): boolean | null {
  if (p.newLoaded === true || p.legacyLoaded === true) return true;
  if (p.newLoaded === null && p.legacyLoaded === null) return null;
  return false;
}

/** Why modprobe of the peer-memory module would fail with "Invalid argument", when that is known beforehand. */
export type PeermemLoadBlock =
  /** No OFED and the running ib_core lacks the peer-memory API: the inbox kernel stack. */
  | 'inbox-ib-core'
  /** OFED is installed but the running kernel does not export the symbol: OFED's modules are not the ones loaded. */
  | 'ofed-not-running'
  /** The nvidia_peermem file is the stub built before OFED was installed. */
  | 'built-without-ofed';

export function peermemLoadBlock(host: HostState): PeermemLoadBlock | null {
  const p = host.peermem;
  if (anyPeermemLoaded(p) !== false) return null;
  if (p.newExists === true && p.newBuiltAgainstOfed === false) return 'built-without-ofed';
  if (p.symbolExported !== false) return null;
  if (host.ofedPresent === false) return 'inbox-ib-core';
  // OFED installed and its ib_core not loaded yet: modprobe would load it first, so nothing is known to fail.
  return host.ofedPresent === true && host.ibCoreLoaded === true ? 'ofed-not-running' : null;
}

/** No peer-memory module loaded, the symbol it needs absent, and no OFED: the inbox ib_core cannot host it. */
export function inboxStackBlocksPeermem(host: HostState): boolean {
  return peermemLoadBlock(host) === 'inbox-ib-core';
}
