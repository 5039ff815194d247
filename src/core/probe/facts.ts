// Turns command results into typed facts, one per command id, with the parsers of src/core/parsers
// and the probe's own small ones. Facts are keyed by command id (three commands share the modinfo
// kind). A parse error stays a value, with the command id and line; nothing throws.
import { GpuQuery, parseGpuQuery } from '../parsers/gpuQuery';
import { IbvDevinfo, parseIbvDevinfo } from '../parsers/ibvDevinfo';
import { Lscpu, parseLscpu } from '../parsers/lscpu';
import { Lsmod, parseLsmod } from '../parsers/lsmod';
import { Modinfo, parseModinfo } from '../parsers/modinfo';
import { Numactl, parseNumactl } from '../parsers/numactl';
import { NvidiaVersion, parseNvidiaVersion } from '../parsers/nvidiaVersion';
import { OfedInfo, parseOfedInfo } from '../parsers/ofedInfo';
import { OsRelease, parseOsRelease } from '../parsers/osRelease';
import { Parsed } from '../parsers/result';
import { SmiQuery, parseSmiQuery } from '../parsers/smiQuery';
import { Topology, parseTopo } from '../parsers/topo';
import { ProbeCommandId } from './commands';
import { CommandResult } from './frames';
import { HostFileText, NcclConfFile, parseNcclConf, parseNcclTopoFiles } from './ncclConfig';
import { FiInfoEntry, parseFiInfo, parseNetPlugins } from './netPlugin';
import { PciAcs, parsePciAcs } from './pciAcs';
import { PciSysfs, parsePciSysfs } from './pciSysfs';
import { RoceQos, parseRoceQos } from './roceQos';
import { Dmi, MemoryPeer, ModulesLoadFile, SysModule, parseDmi, parseMemoryPeers, parseModulesLoad, parseSysModules } from './headedFiles';
import {
  CommandOutput,
  IommuGroups,
  KallsymsPeer,
  KernelParam,
  KernelRelease,
  SudoCheck,
  parseCmdline,
  parseIommuGroups,
  parseKallsymsPeer,
  parseNvPeerMemService,
  parseRunNvidiaDriver,
  parseSudoCheck,
  parseUname,
} from './hostChecks';

export interface FactTypes {
  topo: Topology;
  gpus: GpuQuery;
  'smi-q': SmiQuery;
  lscpu: Lscpu;
  numactl: Numactl;
  lsmod: Lsmod;
  'modinfo-nvidia-peermem': Modinfo;
  'modinfo-nv-peer-mem': Modinfo;
  'modinfo-nvidia': Modinfo;
  ibv: IbvDevinfo;
  ofed: OfedInfo;
  uname: KernelRelease;
  'os-release': OsRelease;
  'nvidia-version': NvidiaVersion;
  cmdline: { params: KernelParam[] };
  'memory-peers': { peers: MemoryPeer[] };
  'sys-module-peermem': { modules: SysModule[] };
  'modules-load': { files: ModulesLoadFile[] };
  'etc-modules': { files: ModulesLoadFile[] };
  'run-nvidia-driver': { present: boolean; entries: string[] };
  'sudo-n': SudoCheck;
  'kallsyms-peer': KallsymsPeer;
  'nv-peer-mem-service': { enabled: string; active: string };
  'iommu-groups': IommuGroups;
  'pci-sysfs': PciSysfs;
  'pci-acs': PciAcs;
  dmi: Dmi;
  'nccl-conf': { files: NcclConfFile[] };
  'nccl-topo': { files: HostFileText[] };
  'nccl-net-plugin': { libraries: string[] };
  'fi-info': { entries: FiInfoEntry[] };
  'roce-qos': RoceQos;
}

export interface ProbeFact<T> {
  readonly commandId: string;
  /** A value, or the parse error with its 1-based line in the command's output. */
  readonly parsed: Parsed<T>;
  /** The output was cut (cap, timeout, lost connection): a value may be partial. A failed exit shows in the command. */
  readonly partial: boolean;
}

/** A fact for every command that ran far enough to read; absent when missing, not run, or not readable. */
export type ProbeFacts = { [K in ProbeCommandId]?: ProbeFact<FactTypes[K]> };

/**
 * The fact read from a command's output, looked up by the id the command came back with: a report's
 * commands carry plain strings (a saved or relayed report may hold ids this build does not read).
 */
export function factOfCommand(facts: ProbeFacts, commandId: string): ProbeFact<unknown> | undefined {
  return Object.hasOwn(READERS, commandId) ? facts[commandId as ProbeCommandId] : undefined;
}

interface FactReader<T> {
  readonly parse: (out: CommandOutput) => Parsed<T>;
  /** Read the output even after a non-zero exit (nvidia-smi and modinfo explain failures in it). */
  readonly readFailures: boolean;
}

/** Parses stdout; a command that printed only to stderr (`No IB devices found`) is read from stderr. */
function text<T>(parse: (t: string) => Parsed<T>, readFailures = false): FactReader<T> {
  return { parse: (out) => parse(out.stdout.trim() === '' && out.stderr.trim() !== '' ? out.stderr : out.stdout), readFailures };
}

const READERS: { [K in ProbeCommandId]: FactReader<FactTypes[K]> } = {
  topo: text(parseTopo, true),
  gpus: text((t) => parseGpuQuery(t), true),
  'smi-q': text(parseSmiQuery, true),
  lscpu: text(parseLscpu),
  numactl: text(parseNumactl, true),
  lsmod: text((t) => parseLsmod(t)),
  'modinfo-nvidia-peermem': text(parseModinfo, true),
  'modinfo-nv-peer-mem': text(parseModinfo, true),
  'modinfo-nvidia': text(parseModinfo, true),
  ibv: text(parseIbvDevinfo, true),
  ofed: text(parseOfedInfo),
  uname: text(parseUname),
  'os-release': text(parseOsRelease),
  'nvidia-version': text(parseNvidiaVersion),
  cmdline: text(parseCmdline),
  'memory-peers': text(parseMemoryPeers),
  'sys-module-peermem': text(parseSysModules),
  'modules-load': text(parseModulesLoad),
  'etc-modules': text(parseModulesLoad),
  'run-nvidia-driver': text(parseRunNvidiaDriver),
  'sudo-n': { parse: parseSudoCheck, readFailures: true },
  'kallsyms-peer': { parse: parseKallsymsPeer, readFailures: true },
  'nv-peer-mem-service': text(parseNvPeerMemService),
  'iommu-groups': text(parseIommuGroups),
  'pci-sysfs': text(parsePciSysfs),
  'pci-acs': text(parsePciAcs),
  dmi: text(parseDmi),
  // Raw stdout: a conf file's CR line ends and exact bytes matter (setEnvFile keeps a CR before 2.30.3).
  'nccl-conf': { parse: (out) => parseNcclConf(out.stdout), readFailures: false },
  'nccl-topo': { parse: (out) => parseNcclTopoFiles(out.stdout), readFailures: false },
  'nccl-net-plugin': text(parseNetPlugins),
  'fi-info': text(parseFiInfo),
  'roce-qos': text(parseRoceQos),
};

export function parseProbe(results: readonly CommandResult[]): ProbeFacts {
  const facts: Record<string, ProbeFact<unknown>> = {};
  for (const r of results) {
    const reader = (READERS as Record<string, FactReader<unknown> | undefined>)[r.id];
    if (!reader || !shouldRead(r, reader.readFailures)) continue;
    facts[r.id] = { commandId: r.id, parsed: reader.parse(r), partial: !r.complete || r.truncated || r.timedOut };
  }
  return facts as ProbeFacts;
}

function shouldRead(r: CommandResult, readFailures: boolean): boolean {
  if (r.state === 'not-run') return false;
  // sudo's exit code 127 is an answer (no sudo), not a missing probe command.
  if (r.missing) return r.id === 'sudo-n';
  if (r.exitCode === 0) return true;
  // Stopped by the output cap (SIGXFSZ, or a shell it ran dying of it): read as far as it went, marked partial.
  if (r.truncated) return true;
  // Cut before its exit code arrived: read what came, marked partial.
  if (r.exitCode === null) return r.stdout !== '' || r.stderr !== '';
  return readFailures;
}
