// NCCL's GPU↔NIC decision for one host, in one place: the usable NIC ports, the path table (sysfs,
// else the matrix), ncclTopoComputePaths' adjustments, then for each GPU the NICs NCCL gives it and
// ncclTopoCheckGdr for its sends and receives. Pure: the caller reads the facts (diagnosis/ncclInput.ts).
import type { PciSysfs } from '../../probe/pciSysfs';
import type { Topology } from '../../parsers/topo';
import { CpuInfo, NvLink } from './bandwidth';
import { GdrContext, GdrDecision, checkGdr } from './checkGdr';
import { computePaths } from './computePaths';
import { NcclEnv, ibHcaKeeps, readNcclEnv } from './env';
import { tableFromMatrix } from './fromMatrix';
import { tableFromSysfs } from './fromSysfs';
import { tableFromTopoFile } from './fromTopoFile';
import { NetworkChoice, NetworkKind, chooseNetwork } from './network';
import { HostTopoFiles, TopoFileChoice, VIRTUAL_TOPOLOGY_FILE, chooseTopoFile } from './topoFile';
import { localNetOf, localOf } from './local';
import { PathTable, TableGpu, TableNet } from './pathTable';
import { PathType, pathRank } from './pathType';
import { NcclRules, ncclRules } from './rules';
import { NcclVersion } from './version';
import { t } from '../../l10n';

export interface HostPort {
  readonly device: string;
  readonly port: number;
  /** PORT_ACTIVE; null when the probe did not read the state (the port is then assumed usable). */
  readonly active: boolean | null;
  readonly linkLayer: 'IB' | 'RoCE' | 'other' | null;
  readonly speedMbps: number | null;
}

export interface NcclModelInput {
  readonly topology: Topology | null;
  readonly sysfs: PciSysfs | null;
  readonly gpus: readonly TableGpu[];
  readonly nvlinks: readonly NvLink[];
  /** Every port in NCCL's device order (ibv_get_device_list, as ibv_devinfo prints it); null when unknown. */
  readonly ports: readonly HostPort[] | null;
  readonly cpu: CpuInfo;
  /** The network plugin libraries NCCL can load (libnccl-net*.so); null when not read. */
  readonly pluginLibraries: readonly string[] | null;
  /** XML topology files read on the host (virtualTopology.xml, NCCL_TOPO_FILE); null when the probe did not look. */
  readonly topoFiles: HostTopoFiles | null;
  /** Each RDMA device's NIC on the bus as NCCL names it (device 0, function 0), from sysfs; empty when unread. */
  readonly nicBusIds: ReadonlyMap<string, string | null>;
  /** NIC-side GPUDirect RDMA support as the release and environment see it (peer-memory files it checks, or dma-buf). */
  readonly nicSupport: (rules: NcclRules, env: NcclEnv) => boolean | null;
}

export interface NicUse {
  readonly net: TableNet;
  /** The path class NCCL ends up with (PXN, P2C, PIX…). */
  readonly path: PathType;
  /** The path before PXN and the no-GDR detour: what the hardware gives this GPU. */
  readonly direct: PathType;
  readonly proxyGpu: string | null;
  readonly send: GdrDecision;
  readonly receive: GdrDecision;
}

/** A NIC port nearer than the ones used that NCCL leaves out. */
export interface SkippedNic {
  readonly net: TableNet;
  readonly direct: PathType;
  readonly why: 'port-not-active' | 'not-ib-or-roce' | 'ib-hca' | 'ib-disabled';
}

export interface GpuVerdict {
  readonly gpu: TableGpu;
  /** NCCL's local NICs for this GPU (ncclTopoGetLocal after ncclTopoComputePaths), ties kept. */
  readonly uses: readonly NicUse[];
  /** The one channel 0 uses (ncclTopoGetLocalNet), an entry of `uses`. */
  readonly primary: NicUse | null;
  readonly skipped: readonly SkippedNic[];
  /** Some usable NIC's path from this GPU could not be read (not in the matrix, or a C2C GPU's SYS cell). */
  readonly unknownPaths: boolean;
}

export interface HostVerdict {
  readonly rules: NcclRules;
  readonly env: NcclEnv;
  /** The network NCCL uses: NET/IB, a network plugin (EFA), or TCP sockets, which never use GPUDirect RDMA. */
  readonly network: NetworkKind;
  /** How it was chosen: the plugin's devices and libraries, why sockets. */
  readonly networkChoice: NetworkChoice;
  readonly source: 'sysfs' | 'topo-file' | 'matrix';
  /** The XML topology NCCL loads instead of sysfs (used, unread, or named but absent); null when none. */
  readonly topoFile: TopoFileNote | null;
  /** Why the sysfs table was not used, when it was not. */
  readonly sysfsMissing: string | null;
  /** The ports NCCL keeps, in its device order. */
  readonly nets: readonly TableNet[];
  readonly gpus: readonly GpuVerdict[];
}

export interface TopoFileNote {
  readonly path: string;
  /** used: the verdicts follow it; unread: NCCL loads it, gdr-doctor could not read it (verdicts unknown); absent: NCCL cannot open it. */
  readonly state: 'used' | 'unread' | 'absent';
  readonly via: 'NCCL_TOPO_FILE' | 'virtual';
  /** Why it was not used, in words (a parse error, a GPU or NIC it does not place). */
  readonly why: string | null;
}

export function ncclHostVerdict(
  all: NcclModelInput,
  version: NcclVersion,
  envVars: Readonly<Record<string, string>>,
  jobGpus: readonly number[] | null = null,
): HostVerdict | null {
  const rules = ncclRules(version);
  const env = readNcclEnv(envVars, rules);
  const input = jobGpus === null ? all : onlyJobGpus(all, jobGpus);
  if (input.gpus.length === 0) return null;
  const nets = allNets(input.ports, input.topology);
  const topoChoice = chooseTopoFile(input.topoFiles, env, rules);
  const built = buildTable(input, nets.nets, nets.speeds, rules, topoChoice);
  // ncclIbInit returns early for any nonzero NCCL_IB_DISABLE: NCCL falls back to NET/Socket (src/transport/net_ib/init.cc).
  const choice = chooseNetwork(input.ports, input.pluginLibraries, { ibDisable: env.ibDisable, netPlugin: env.netPlugin, net: env.net });
  const network = choice.kind;
  const usable = nets.nets.map((net, i) => usability(input.ports?.[i] ?? null, net, env, network));
  const keep = usable.flatMap((u, i) => (u === null ? [i] : []));
  const table = selectNets(built.table, keep);
  // On a plugin's network the plugin reports GPU-memory support (ptrSupport), not NCCL's peer-memory files.
  const nicOk = network === 'plugin' ? null : input.nicSupport(rules, env);
  const ctx: GdrContext = { rules, env, netSupport: table.nets.map(() => nicOk) };
  const computed = computePaths(table, ctx);
  const unread = built.topoFile?.state === 'unread';
  const gpus = input.gpus.map((_, g) => gpuVerdict(computed, table, built.table, usable, ctx, g, unread));
  const source = built.table.source;
  return {
    rules,
    env,
    network,
    networkChoice: choice,
    source,
    topoFile: built.topoFile,
    sysfsMissing: built.missing,
    nets: table.nets,
    gpus,
  };
}

function gpuVerdict(
  t: PathTable,
  direct: PathTable,
  all: PathTable,
  usable: readonly (SkippedNic['why'] | null)[],
  ctx: GdrContext,
  g: number,
  topoUnread: boolean,
): GpuVerdict {
  // NCCL loads a topology gdr-doctor could not read: any answer the paths decide is unknown.
  const decide = (n: number, read: boolean) => (topoUnread ? unknownTopology(checkGdr(t, ctx, g, n, read)) : checkGdr(t, ctx, g, n, read));
  const order = ctx.rules.order;
  const uses = localOf(t.gpuNet[g], order)
    .filter((n) => t.gpuNet[g][n].type !== 'DIS')
    .map((n): NicUse => ({
      net: t.nets[n],
      path: t.gpuNet[g][n].type,
      direct: direct.gpuNet[g][n].type,
      proxyGpu: t.gpuNet[g][n].proxy === undefined ? null : t.gpus[t.gpuNet[g][n].proxy as number].name,
      send: decide(n, true),
      receive: decide(n, false),
    }));
  const first = localNetOf(t, g, 0, ctx.rules);
  const primary = uses.find((u) => first !== null && u.net === t.nets[first]) ?? uses[0] ?? null;
  const best = Math.min(...uses.map((u) => pathRank(u.direct, order)));
  const skipped = all.nets.flatMap((net, n): SkippedNic[] => {
    const why = usable[n];
    const type = all.gpuNet[g][n].type;
    return why !== null && type !== 'DIS' && pathRank(type, order) < best ? [{ net, direct: type, why }] : [];
  });
  const unknownPaths = t.gpuNet[g].some((p) => p.type === 'DIS');
  return { gpu: t.gpus[g], uses, primary, skipped, unknownPaths };
}

/** A decision the topology could change: unknown (off for want of NIC or GPU support stays off). */
function unknownTopology(d: GdrDecision): GdrDecision {
  if (d.enabled === false && d.block !== 'distance' && d.block !== 'read-no-nvlink') return d;
  return { ...d, enabled: null, block: null, unknown: [...d.unknown, 'topo-file'] };
}

/**
 * The job's GPUs only: NCCL's topology holds the GPUs of the communicator on the host (src/graph/topo.cc
 * ncclTopoGetSystem fills its own GPU and fuses the other local ranks' XML), so a one-GPU job has no NVLink peer
 * to relay through and takes the single-GPU read exception, and PXN relays only through the job's GPUs.
 */
function onlyJobGpus(input: NcclModelInput, jobGpus: readonly number[]): NcclModelInput {
  const kept = input.gpus.filter((g) => jobGpus.includes(g.dev));
  const index = new Map(kept.map((g, i) => [input.gpus.indexOf(g), i]));
  const nvlinks = input.nvlinks.flatMap((l) => {
    const [a, b] = [index.get(l.a), index.get(l.b)];
    return a === undefined || b === undefined ? [] : [{ ...l, a, b }];
  });
  return { ...input, gpus: kept, nvlinks };
}

function usability(port: HostPort | null, net: TableNet, env: NcclEnv, network: NetworkKind): SkippedNic['why'] | null {
  if (network === 'Socket') return 'ib-disabled';
  if (port?.active === false) return 'port-not-active';
  // The plugin's network has only the plugin's devices (EFA); NET/IB only InfiniBand and RoCE ports.
  if (network === 'plugin') return port?.linkLayer === 'other' ? null : 'not-ib-or-roce';
  if (port?.linkLayer === 'other') return 'not-ib-or-roce';
  return ibHcaKeeps(env.ibHca, net.device, net.port) ? null : 'ib-hca';
}

/**
 * One net per port read; a NIC of the matrix whose ports were not read counts as one port 1 of unknown
 * state (a missing or partial ibv_devinfo must not hide a NIC the matrix shows).
 */
function allNets(ports: readonly HostPort[] | null, topology: Topology | null): { nets: TableNet[]; speeds: Map<string, number> } {
  const read = ports ?? [];
  const unread = (topology?.nics ?? []).map((n) => n.device ?? n.name).filter((d) => !read.some((p) => p.device === d));
  const list: HostPort[] = [...read, ...unread.map((device) => ({ device, port: 1, active: null, linkLayer: null, speedMbps: null }))];
  const nets = list.map((p) => ({
    name: `${p.device}:${p.port}`,
    device: p.device,
    port: p.port,
    nic: p.device,
    linkLayer: p.linkLayer === 'IB' || p.linkLayer === 'RoCE' ? p.linkLayer : null,
    active: p.active,
  }));
  // An unread speed is taken as the fastest one read (ports of one host are usually one model); NCCL's
  // own 10 Gb/s fallback is for NICs that report none, which is not what "not read" means.
  const fastest = Math.max(10000, ...list.map((p) => p.speedMbps ?? 0));
  const speeds = new Map(list.map((p) => [`${p.device}:${p.port}`, p.speedMbps ?? fastest] as [string, number]));
  return { nets, speeds };
}

function buildTable(
  input: NcclModelInput,
  nets: readonly TableNet[],
  speeds: ReadonlyMap<string, number>,
  rules: NcclRules,
  choice: TopoFileChoice,
): { table: PathTable; missing: string | null; topoFile: TopoFileNote | null } {
  const { order, gpuLinkCurrent } = rules;
  const topoFile = fromTopoFile(input, nets, speeds, order, choice);
  if (topoFile.table) return { table: topoFile.table, missing: null, topoFile: topoFile.note };
  let missing: string | null = input.sysfs === null ? t('sysfs was not read') : null;
  if (input.sysfs) {
    const built = tableFromSysfs(
      { sysfs: input.sysfs, gpus: input.gpus, nets, netSpeedMbps: speeds, nvlinks: input.nvlinks, cpu: input.cpu, gpuLinkCurrent },
      order,
    );
    if (!('missing' in built)) return { table: built, missing: null, topoFile: topoFile.note };
    missing = built.missing;
  }
  return { table: tableFromMatrix(input.topology, input.gpus, nets, speeds, input.cpu), missing, topoFile: topoFile.note };
}

/** The table from the XML topology NCCL loads, when there is one that places every GPU and NIC; else what to say of it. */
function fromTopoFile(
  input: NcclModelInput,
  nets: readonly TableNet[],
  speeds: ReadonlyMap<string, number>,
  order: readonly PathType[],
  choice: TopoFileChoice,
): { table: PathTable | null; note: TopoFileNote | null } {
  if (choice.kind === 'none')
    return {
      table: null,
      note: choice.skipped === null ? null : { path: choice.skipped, state: 'absent', via: 'NCCL_TOPO_FILE', why: null },
    };
  const via = choice.path === VIRTUAL_TOPOLOGY_FILE ? 'virtual' : 'NCCL_TOPO_FILE';
  if (choice.kind === 'unread') return { table: null, note: { path: choice.path, state: 'unread', via, why: choice.why } };
  const built = tableFromTopoFile(
    { xml: choice.xml, gpus: input.gpus, nets, nicBusIds: input.nicBusIds, netSpeedMbps: speeds, nvlinks: input.nvlinks, cpu: input.cpu },
    order,
  );
  // A GPU or NIC the file does not place is added from sysfs by NCCL (ncclTopoFillGpu/FillNet): not modelled, so unknown.
  if ('missing' in built) return { table: null, note: { path: choice.path, state: 'unread', via, why: built.missing } };
  return { table: built, note: { path: choice.path, state: 'used', via: choice.via, why: null } };
}

/** The table restricted to the nets NCCL keeps. */
function selectNets(t: PathTable, keep: readonly number[]): PathTable {
  return {
    ...t,
    nets: keep.map((n) => t.nets[n]),
    gpuNet: t.gpuNet.map((row) => keep.map((n) => row[n])),
    netGpu: keep.map((n) => t.netGpu[n]),
    netCpu: keep.map((n) => t.netCpu[n]),
  };
}
