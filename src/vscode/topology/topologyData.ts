// Turns a parsed topology (and, for a diagnosed host, its GPU↔NIC verdicts) into the one message
// the webview draws. The words come from the core: a host's verdicts and their sentences from the
// diagnosis (topology/nccl/explain.ts), a matrix token's rule from topology/nccl/linkRule.ts. A saved
// matrix without a host gets verdicts from the same model, from the matrix alone. No VS Code import.
import { DEFAULT_NCCL, GpuNicPair, NcclAssumptions, SuggestedEnv, pairsFromTopology, shortVerdict } from '../../core/diagnosis';
import { shellAssignment } from '../../core/shellText';
import type { Topology } from '../../core/parsers/topo';
import { topologyGraph } from '../../core/topology/graph';
import { classifyLink, knownLinkTypes, linkMeaning } from '../../core/topology/linkTypes';
import { linkRule } from '../../core/topology/nccl/linkRule';
import type { ProofReport } from '../../core/prove';
import { pct } from '../../core/prove/verdict';
import { speedWidth } from '../../core/topology/pcie/link';
import type { PcieTree } from '../../core/topology/pcie/tree';
import { linkWords, nodeWords } from '../../core/topology/pcie/words';
import type {
  BridgeMark,
  GpuDetail,
  LinkClassName,
  LinkExplanation,
  PcieTreeData,
  ProofDetail,
  TopologyData,
} from '../../protocol/topology';
import { t } from '../../core/l10n';
import { dateTime } from '../displayLocale';

export interface TopologySource {
  readonly title: string;
  readonly source: string;
  readonly topology: Topology;
  /** From a diagnosis: verdicts that also know ports, NIC-side support and sysfs. */
  readonly pairs?: readonly GpuNicPair[];
  readonly suggestedEnv?: SuggestedEnv;
  /** The NCCL release and environment to explain by; default the newest modelled. */
  readonly nccl?: NcclAssumptions;
  /** The host's last GPUDirect RDMA proof. */
  readonly proof?: ProofReport;
  /** The real PCIe tree from sysfs; absent or null: the graph is inferred from the matrix. */
  readonly tree?: PcieTree | null;
  /** `topology` was derived from that tree because `nvidia-smi topo -m` was not read. */
  readonly derived?: boolean;
  /** GPUs joined to their Grace CPU by NVLink-C2C; absent: read from the matrix's GPU NUMA IDs. */
  readonly c2cGpus?: readonly string[];
  /** Notes on single bridges of the tree (ACS on, …). */
  readonly bridgeMarks?: readonly BridgeMark[];
}

export function topologyData(input: TopologySource): TopologyData {
  const { topology } = input;
  const nccl = input.nccl ?? DEFAULT_NCCL;
  const pairs = new Map((input.pairs ?? pairsFromTopology(topology, nccl)).map((p) => [p.gpu, p]));
  return {
    title: input.title,
    source: input.source,
    gpus: topology.gpus.map((gpu) => ({
      ...gpuDetail(topology, gpu.name, pairs.get(gpu.name), input.pairs === undefined),
      proof: proofDetail(input.proof, gpu.name),
    })),
    nics: topology.nics.map((n) => ({ name: n.name, device: n.device })),
    columns: topology.columns,
    cells: topology.columns.map((row) => topology.columns.map((column) => topology.links[row]?.[column] ?? null)),
    explanations: explanations(topology, nccl),
    graph: {
      ...topologyGraph(topology),
      tree: input.tree ? treeData(input.tree, nccl, input.bridgeMarks ?? []) : null,
      c2cGpus: [...(input.c2cGpus ?? topology.gpus.filter((g) => /^\d+$/.test((g.gpuNumaId ?? '').trim())).map((g) => g.name))],
    },
    env: Object.entries(input.suggestedEnv?.env ?? {}).map(([name, value]) => ({ name, value, shell: shellAssignment(name, value) })),
    derived: input.derived === true,
  };
}

function treeData(tree: PcieTree, nccl: NcclAssumptions, marks: readonly BridgeMark[]): PcieTreeData {
  return {
    nodes: tree.nodes.map((node) => {
      const words = nodeWords(node, nccl.version, nccl.env);
      return {
        id: node.id,
        kind: node.kind,
        parent: node.parent,
        ...words,
        numaNode: node.numaNode === null ? null : String(node.numaNode),
        column: node.column,
        bridges: [...(node.bdf ? [node.bdf] : []), ...node.ports],
        link: node.link
          ? {
              text: speedWidth(node.link.speed, node.link.width),
              max: speedWidth(node.link.maxSpeed, node.link.maxWidth),
              degraded: node.link.degraded,
              explanation: linkWords(node, node.link),
            }
          : null,
      };
    }),
    marks: [...marks],
  };
}

/** The colour class of a token: NV<n> are all `nvlink`; SOC is the old name of SYS. */
export function linkClassOf(token: string): LinkClassName {
  const link = classifyLink(token);
  if (link.kind === 'self' || link.kind === 'nvlink' || link.kind === 'unknown') return link.kind;
  return link.legendToken === 'SOC' ? 'sys' : (link.legendToken.toLowerCase() as LinkClassName);
}

/** Every token the matrix holds, in the legend's order, then tokens the legend does not know. */
function explanations(topology: Topology, nccl: NcclAssumptions): LinkExplanation[] {
  const tokens = new Set<string>();
  for (const row of Object.values(topology.links)) for (const t of Object.values(row)) if (t !== null && t !== '') tokens.add(t);
  const order = knownLinkTypes().map((info) => info.legendToken);
  const rank = (t: string) => {
    const i = order.indexOf(classifyLink(t).legendToken);
    return i < 0 ? order.length : i;
  };
  return [...tokens]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((token) => ({
      token,
      linkClass: linkClassOf(token),
      meaning: linkMeaning(token),
      gdrVerdict: linkRule(token, nccl.version, nccl.env).sentence,
    }));
}

function gpuDetail(topology: Topology, name: string, pair: GpuNicPair | undefined, fromMatrix: boolean): GpuDetail {
  const gpu = topology.gpus.find((g) => g.name === name);
  const shown = (v: string | null | undefined) => (v && v.trim() !== '' && v.trim() !== 'N/A' ? v.trim() : null);
  const numaNode = pair ? pair.numaNode : shown(gpu?.numaAffinity);
  const cpus = pair ? pair.cpus : shown(gpu?.cpuAffinity);
  const nics = pair?.nics ?? [];
  const caveat = fromMatrix ? t(' (From the matrix alone: NIC ports, peer memory and the GPU model were not read.)') : '';
  return {
    name,
    numaNode,
    cpus,
    link: pair?.link ?? null,
    linkDerived: pair?.linkDerived === true,
    nearestNics: nics.map((n) => nicLabel(topology, n.nic)),
    nearestNicColumns: nics.map((n) => n.nic),
    gdr: pair ? pair.gdr : null,
    verdict: pair ? shortVerdict(pair) : t('GDR unknown'),
    ncclPath: pair?.ncclPath ?? null,
    proxyGpu: pair?.proxyGpu ?? null,
    reason: `${pair?.reason ?? t('No verdict.')}${caveat}`,
    confirm: pair?.confirm ?? '',
    ncclIbHca: pair?.ncclIbHca ?? null,
    ncclIbHcaShell: pair?.ncclIbHca ? shellAssignment('NCCL_IB_HCA', pair.ncclIbHca) : null,
    pinning: numaNode !== null && /^[\d,-]+$/.test(numaNode) ? `numactl --cpunodebind=${numaNode} --membind=${numaNode}` : null,
  };
}

function nicLabel(topology: Topology, column: string): string {
  const device = topology.nics.find((n) => n.name === column)?.device;
  return device && device !== column ? `${column} (${device})` : column;
}

/** The proof of one GPU as the panel shows it; null when the proof did not measure it. */
function proofDetail(proof: ProofReport | undefined, gpu: string): ProofDetail | null {
  const g = proof?.gpus.find((x) => x.gpu === gpu);
  if (!proof || !g) return null;
  return {
    verdict: g.verdict,
    tone: g.tone,
    measured: proof.peer
      ? t('measured {0} against {1}', dateTime(new Date(proof.startedAt)), proof.peer)
      : t('measured {0}', dateTime(new Date(proof.startedAt))),
    modes: g.modes.map((m) =>
      m.status === 'ok'
        ? `${m.mode} ${t('{0} Gb/s of {1}', String(m.gbps), m.lineRateGbps ?? '?')}${m.ratio === null ? '' : ` (${pct(m.ratio)})`}`
        : `${m.mode} ${m.status}`,
    ),
  };
}
