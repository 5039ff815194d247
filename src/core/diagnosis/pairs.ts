// GPU↔NIC verdicts: for every GPU, the NIC port(s) NCCL gives it, the path class NCCL ends up with
// (PXN through an NVLink peer, P2C on Grace…), whether NCCL uses GPUDirect RDMA for its sends and
// receives, why, and how to confirm it, under the NCCL release and environment the user runs
// (topology/nccl/model.ts decides; topology/nccl/explain.ts words it). Plus where to pin the process.
import { formatCpuList, parseCpuList } from '../parsers/cpuList';
import { Numactl } from '../parsers/numactl';
import { TopoGpu, Topology } from '../parsers/topo';
import { confirmText, verdictSentence } from '../topology/nccl/explain';
import { tokenPath } from '../topology/nccl/fromMatrix';
import { GdrDecision } from '../topology/nccl/checkGdr';
import { GpuVerdict, HostVerdict, TopoFileNote, ncclHostVerdict } from '../topology/nccl/model';
import { PathType } from '../topology/nccl/pathType';
import { formatNcclVersion } from '../topology/nccl/version';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { hostTopology } from './hostTopology';
import { ncclIbHcaValue } from './ibHca';
import { NcclAssumptions } from './ncclAssumptions';
import type { NcclEnvOrigin } from './ncclHostConfig';
import { matrixModelInput, ncclModelInput } from './ncclInput';
import { t } from '../l10n';

export interface PairNic {
  /** Column name in the matrix (`NIC0`, or the device itself on older drivers); the device when the matrix lacks it. */
  readonly nic: string;
  /** RDMA device (`mlx5_0`); null when nothing names it. */
  readonly device: string | null;
  /** The port NCCL uses; null when the probe read no port. */
  readonly port: number | null;
  /** Whether that port is PORT_ACTIVE; null when its state was not read. */
  readonly portActive: boolean | null;
}

export interface GpuNicPair {
  readonly gpu: string;
  /** The NIC port(s) NCCL gives this GPU (ties kept, channel 0's first); [] when it has none. */
  readonly nics: PairNic[];
  /** The matrix's token between the GPU and the first NIC (`PXB`); its NCCL path class without a matrix; null without NICs. */
  readonly link: string | null;
  /** `link` was worked out from the sysfs PCI tree: `nvidia-smi topo -m` was not read (topology/pcie/distance.ts). */
  readonly linkDerived: boolean;
  /** NCCL's path class after its own adjustments: PIX, PXB, P2C (Grace C2C), PXN (through `proxyGpu`), PHB, SYS. */
  readonly ncclPath: PathType | null;
  /** For PXN: the GPU that relays this GPU's sends to the NIC over NVLink. */
  readonly proxyGpu: string | null;
  /** NUMA node(s) to pin to, as printed by topo (`3`, `0-3`) or derived from numactl; null when unknown. */
  readonly numaNode: string | null;
  /** CPU list to pin to; null when unknown. */
  readonly cpus: string | null;
  readonly cpuSource: 'topo' | 'numactl' | null;
  /**
   * NCCL uses GPUDirect RDMA in both directions; false when it does not in one of them; null (unknown) when the answer
   * rests on a fact that was not read (`missing` says which, and how to read it).
   */
  readonly gdr: boolean | null;
  /** Present only when sends and receives differ (GDR read rule); null: that direction is unknown. */
  readonly send?: boolean | null;
  readonly receive?: boolean | null;
  /** The unread facts an unknown verdict rests on, each with how to read it; [] when the verdict is decided. */
  readonly missing: readonly MissingFact[];
  /** Why, in NCCL's terms, citing the function. */
  readonly reason: string;
  /** How to see it in NCCL's own log. */
  readonly confirm: string;
  /**
   * `NCCL_IB_HCA` value (`=mlx5_0:1`) for a job on this GPU alone: its ports, named as the whole host's value names
   * them; null without one.
   */
  readonly ncclIbHca: string | null;
  /** The NCCL release the verdict was computed for. */
  readonly ncclAssumed: string;
  /** The network NCCL uses: NET/IB, a network plugin (AWS EFA), or TCP sockets, which never use GPUDirect RDMA. */
  readonly network: 'IB' | 'Socket' | 'plugin';
}

/** A fact NCCL's decision needs that the probe did not read. */
export interface MissingFact {
  readonly fact: GdrDecision['unknown'][number];
  /** What it is, in words. */
  readonly what: string;
  /** The command (or file) that reads it. */
  readonly read: string;
}

export function gpuNicPairs(
  ctx: RuleContext,
  nccl: NcclAssumptions,
  origins: Readonly<Record<string, NcclEnvOrigin>> = {},
): { pairs: GpuNicPair[]; verdict: HostVerdict | null } {
  const host = hostTopology(ctx.report);
  const verdict = ncclHostVerdict(ncclModelInput(ctx), nccl.version, nccl.env, nccl.gpus ?? null);
  if (!verdict) return { pairs: [], verdict: null };
  const numactl = factOf(ctx.report, 'numactl');
  const notes = [hostSettingsText(verdict, origins), jobText(verdict, nccl.gpus ?? null)].filter((n) => n !== '').join(' ');
  const pairs = verdict.gpus.map((gv) => {
    const pair = pairOf(gv, verdict, host?.topology, numactl, host?.derived === true);
    return { ...pair, reason: `${pair.reason} ${notes}` };
  });
  return { pairs, verdict };
}

/** Which job the verdict is for: every GPU of the host unless the user named the job's GPUs. */
function jobText(hv: HostVerdict, jobGpus: readonly number[] | null): string {
  if (jobGpus === null) return t('For a job on every GPU of this host ({0}; --gpus names a smaller one).', hv.gpus.length);
  return t("For a job on {0} of this host (NCCL's topology holds only the job's GPUs).", hv.gpus.map((g) => g.gpu.name).join(', '));
}

/** The settings NCCL takes from the host's nccl.conf files, with file and line: the verdict follows them. */
function hostSettingsText(hv: HostVerdict, origins: Readonly<Record<string, NcclEnvOrigin>>): string {
  const set = Object.entries(origins)
    .filter(([name, o]) => o.from !== 'environment' && hv.env.given[name] !== undefined)
    .map(([name, o]) => `${name}=${JSON.stringify(hv.env.given[name]).slice(1, -1)} (${o.from}${o.line === null ? '' : `:${o.line}`})`);
  return set.length === 0 ? '' : t('Set on the host, and followed here (NVIDIA/nccl src/misc/param.cc initEnv): {0}.', set.join(', '));
}

/** Verdicts from a saved matrix alone: ports, NIC-side support and the GPUs' models are unknown, and said to be. */
export function pairsFromTopology(topo: Topology, nccl: NcclAssumptions): GpuNicPair[] {
  const verdict = ncclHostVerdict(matrixModelInput(topo), nccl.version, nccl.env);
  return verdict ? verdict.gpus.map((gv) => pairOf(gv, verdict, topo, undefined)) : [];
}

function pairOf(gv: GpuVerdict, hv: HostVerdict, topo: Topology | undefined, numactl: Numactl | undefined, derived = false): GpuNicPair {
  const column = (device: string) => topo?.nics.find((n) => (n.device ?? n.name) === device)?.name ?? device;
  const ordered = gv.primary ? [gv.primary, ...gv.uses.filter((u) => u !== gv.primary)] : [];
  const nics = ordered.map((u) => ({
    nic: column(u.net.device),
    device: u.net.device,
    port: u.net.active === null ? null : u.net.port,
    portActive: u.net.active,
  }));
  const first = ordered[0];
  const printed = first ? (topo?.links[gv.gpu.name]?.[column(first.net.device)] ?? null) : null;
  const token = first ? (printed ?? first.direct) : null;
  // No NIC at all is a decided "no"; a NIC whose path was not read is unknown.
  const none = gv.unknownPaths ? null : false;
  const send = first ? first.send.enabled : none;
  const receive = first ? first.receive.enabled : none;
  const topoGpu = topo?.gpus.find((g) => g.name === gv.gpu.name);
  return {
    gpu: gv.gpu.name,
    nics,
    link: token,
    linkDerived: derived && printed !== null,
    ncclPath: first?.path ?? null,
    proxyGpu: first?.proxyGpu ?? null,
    ...(topoGpu ? pinning(topoGpu, numactl) : { numaNode: null, cpus: null, cpuSource: null }),
    gdr: send === false || receive === false ? false : send === null || receive === null ? null : true,
    ...(send !== receive ? { send, receive } : {}),
    missing: missingFacts(
      first ? [first.send, first.receive].flatMap((d) => (d.enabled === null ? d.unknown : [])) : none === null ? ['path'] : [],
      hv.topoFile,
      hv.network === 'plugin',
    ),
    reason: verdictSentence(gv, hv),
    confirm: confirmText(gv, hv),
    network: hv.network,
    ncclIbHca: ncclIbHcaValue(ordered.map((u) => u.net)),
    ncclAssumed: formatNcclVersion(hv.rules.version),
  };
}

function missingFacts(unknown: readonly GdrDecision['unknown'][number][], topoFile: TopoFileNote | null, plugin = false): MissingFact[] {
  const file = topoFile?.path ?? 'NCCL_TOPO_FILE';
  const model = 'nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv (or nvidia-smi -q)';
  const words: Record<GdrDecision['unknown'][number], Omit<MissingFact, 'fact'>> = {
    'nic-support': plugin
      ? pluginFact()
      : {
          what: t('whether the NIC side supports GPUDirect RDMA (a peer-memory client NCCL recognises, or dma-buf)'),
          read: t(
            'ls /sys/kernel/mm/memory_peers/*/version /sys/module/nvidia_peermem/version; for dma-buf: modinfo nvidia (license "Dual MIT/GPL": the open modules) and uname -r (5.12 or later)',
          ),
        },
    'gpu-support': { what: t('whether the GPU supports GPUDirect RDMA (its model: GeForce and TITAN do not)'), read: model },
    'compute-capability': { what: t("the GPU's compute capability (its model)"), read: model },
    path: {
      what: t('the PCI path between the GPU and the NIC'),
      read: t('readlink -f /sys/bus/pci/devices/<bus id> of the GPU and of the NIC, or nvidia-smi topo -m'),
    },
    'topo-file': {
      what: t('the XML topology NCCL loads instead of sysfs ({0})', file) + topoFileWhy(topoFile),
      read: t(
        'cat {0} (gdr-doctor reads the NCCL_TOPO_FILE that nccl.conf names and virtualTopology.xml; a file named only in the job environment is not read)',
        file,
      ),
    },
  };
  return [...new Set(unknown)].map((fact) => ({ fact, ...words[fact] }));
}

/** On a plugin's network (EFA) the plugin tells NCCL whether it can register GPU memory. */
function pluginFact(): Omit<MissingFact, 'fact'> {
  return {
    what: t('whether the network plugin can register GPU memory (aws-ofi-nccl: FI_HMEM through the efa driver, or dma-buf)'),
    read: t("fi_info -p efa -c FI_HMEM (an FI_HMEM provider); NCCL's log with NCCL_DEBUG=INFO shows the plugin's own answer"),
  };
}

function topoFileWhy(note: TopoFileNote | null): string {
  if (!note?.why) return '';
  return `: ${note.why === 'not-read' ? t('not read') : note.why === 'truncated' ? t('longer than gdr-doctor reads') : note.why}`;
}

/** For an unknown verdict: what was not read and how to read it, one sentence; '' when nothing is missing. */
export function missingText(p: GpuNicPair): string {
  if (p.missing.length === 0) return '';
  return t('Unknown, not read: {0}.', p.missing.map((m) => t('{0} (read it with: {1})', m.what, m.read)).join('; '));
}

/** The verdict in a few words, the same everywhere it is shown short (CLI, Hosts tree, topology panel). */
export function shortVerdict(p: GpuNicPair): string {
  if (p.network === 'plugin' && p.gdr === null) return t('GDR: the network plugin decides');
  if (p.gdr === null && p.send !== false && p.receive !== false) return t('GDR unknown');
  if (p.network === 'Socket') return t('no GDR: TCP sockets');
  if (p.nics.length === 0) return t('no GDR: no usable NIC');
  if (p.send === false && p.receive === true) return t('GDR receives only');
  if (p.send === true && p.receive === false) return t('GDR sends only');
  if (p.send === false && p.receive === null) return t('GDR sends no, receives unknown');
  if (p.send === null && p.receive === false) return t('GDR receives no, sends unknown');
  if (!p.gdr) return t('GDR no');
  return p.proxyGpu ? t('GDR yes via {0} (PXN)', p.proxyGpu) : p.ncclPath === 'P2C' ? t('GDR yes (C2C)') : t('GDR yes');
}

/**
 * The path as shown beside the NIC: the matrix token (`, derived` when from the PCI tree), and NCCL's class where NCCL
 * sees another one.
 */
export function pathLabel(p: GpuNicPair): string {
  if (p.link === null) return '-';
  const token = p.linkDerived ? `${p.link}, ${t('derived')}` : p.link;
  const plain = tokenPath(p.link);
  return p.ncclPath === null || p.ncclPath === plain ? token : `${token} → NCCL ${p.ncclPath}`;
}

/** topo's affinity columns; numactl fills in what they leave out (N/A, empty, an old driver without them). */
function pinning(gpu: TopoGpu, numactl: Numactl | undefined): Pick<GpuNicPair, 'numaNode' | 'cpus' | 'cpuSource'> {
  const shown = (v: string | null) => (v !== null && v.trim() !== '' && v.trim() !== 'N/A' ? v.trim() : null);
  const cpus = shown(gpu.cpuAffinity);
  let numaNode = shown(gpu.numaAffinity);
  const nodes = numactl?.nodes ?? [];
  if (numaNode === null && cpus !== null) numaNode = nodesHolding(cpus, nodes);
  if (cpus !== null) return { numaNode, cpus, cpuSource: 'topo' };
  const ids = numaNode === null ? null : parseCpuList(numaNode);
  const chosen = ids?.ok ? nodes.filter((n) => ids.value.includes(n.id)) : [];
  const fromNuma = chosen.flatMap((n) => n.cpus);
  return fromNuma.length > 0
    ? { numaNode, cpus: formatCpuList(fromNuma), cpuSource: 'numactl' }
    : { numaNode, cpus: null, cpuSource: null };
}

/** The NUMA node(s) whose CPUs cover an affinity list exactly, or null. */
function nodesHolding(cpuText: string, nodes: Numactl['nodes']): string | null {
  const cpus = parseCpuList(cpuText);
  if (!cpus.ok || cpus.value.length === 0) return null;
  const ids = nodes.filter((n) => n.cpus.some((c) => cpus.value.includes(c))).map((n) => n.id);
  const covered = nodes.filter((n) => ids.includes(n.id)).flatMap((n) => n.cpus);
  return ids.length > 0 && covered.length === cpus.value.length ? formatCpuList(ids) : null;
}
