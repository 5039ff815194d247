// The graph's sentences that join what the extension sent (each tree part's explanation, a token's NCCL
// rule, a GPU's verdict): what a hovered or focused node, line or legend entry is and means for
// GPUDirect RDMA.
import { t } from '@vscode/l10n';
import type { TopologyData } from '../protocol/topology';
import type { EdgeWords } from './graphEdges';
import { Explained, firstSentence } from './explain';
import type { GraphNode } from './graphModel';

export function edgeWords(data: TopologyData): EdgeWords {
  const rule = (token: string) => data.explanations.find((e) => e.token === token)?.gdrVerdict ?? '';
  return {
    hub: (members, token) => ({
      lead: t(
        'NVLink {0}: each of {1} reaches every other directly (an NVSwitch fabric or an all-to-all mesh), drawn as one hub instead of {2} lines.',
        token,
        members.join(', '),
        (members.length * (members.length - 1)) / 2,
      ),
      why: rule(token.split('–')[0]),
    }),
    nvlink: (a, b, token) => ({ lead: `${a} ↔ ${b}: NVLink ${token}.`, why: rule(token) }),
    c2c: (gpu) =>
      firstSentence(
        t(
          "{0} ↔ its Grace CPU: NVLink-C2C, the GPU's coherent link to its own CPU. NCCL 2.27 and later reach a NIC on that CPU's PCIe over it as P2C and, with NCCL_NET_GDR_C2C on (their default), use GPUDirect RDMA there; nvidia-smi prints SYS or NODE for those pairs (src/graph/paths.cc ncclTopoComputePaths, ncclTopoCheckGdr).",
          gpu,
        ),
      ),
    sys: (a, b) => ({
      lead: t('{0} ↔ {1}: the interconnect between NUMA nodes (QPI/UPI, Infinity Fabric, Grace-to-Grace) — SYS.', cpuName(a), cpuName(b)),
      why: rule('SYS'),
    }),
    samecpu: (cpu) => ({
      lead: t(
        "Through {0}: both ends hang off this CPU's host bridges (drawn in two parts), so the path crosses the CPU (NODE or PHB).",
        cpuName(cpu),
      ),
      why: rule('NODE'),
    }),
    pxn: (gpu, proxy) =>
      firstSentence(
        t(
          "{0} → {1} over NVLink: PXN. NCCL relays {0}'s network sends through {1}, which is nearer the NIC, and judges GPUDirect RDMA by {1}'s path (src/graph/paths.cc ncclTopoComputePaths).",
          gpu,
          proxy,
        ),
      ),
  };
}

function cpuName(id: string): string {
  return id.replace(/^(cpu|numa):/, 'CPU ');
}

/**
 * A node's words, the verdict first: for a GPU, what happens to its traffic on this host (the cell of its
 * NIC) and what to do; for a NIC, which GPUs NCCL gives it; then what the part is, its link and marks;
 * NCCL's rule and reasoning, with their sources, last.
 */
export function nodeText(data: TopologyData, node: GraphNode): Explained {
  const parts = [node.explanation];
  if (node.link) parts.push(node.link.explanation);
  for (const mark of node.marks) parts.push(`${mark.label}: ${mark.explanation}`);
  const body = parts.join(' ');
  const gpu = data.gpus.find((g) => g.name === node.column);
  if (gpu) {
    const cell = data.gdrCells.find((c) => c.gpu === gpu.name && c.nic === gpu.nearestNicColumns[0]);
    return {
      lead: `${gpu.name}: ${cell ? cell.why : `${gpu.verdict}.`}`,
      body,
      why: [gpu.reason, gpu.confirm].filter((x) => x !== '').join(' '),
    };
  }
  if (node.kind === 'nic' && node.column !== null) {
    const users = data.gpus.filter((g) => g.nearestNicColumns.includes(node.column as string)).map((g) => g.name);
    const lead =
      users.length > 0
        ? t('NCCL gives it to {0}.', users.join(', '))
        : t('NCCL gives it to no GPU (another NIC is nearer, faster, or this one has no usable port).');
    return { lead, body };
  }
  return { lead: node.explanation, body: parts.slice(1).join(' '), why: node.why };
}

export interface GraphLegendEntry {
  readonly swatch: string;
  readonly label: string;
  readonly explanation: string;
}

/** The legend under the graph: what each kind of line and mark means (built when drawn: the display language's words). */
export function graphLegend(): GraphLegendEntry[] {
  return [
    {
      swatch: 'pcie-edge',
      label: t('PCIe link (speed, width)'),
      explanation: t(
        'A PCIe link between a device and the bridge above it, with the speed and width it runs at now (sysfs current_link_speed/width).',
      ),
    },
    {
      swatch: 'pcie-edge degraded',
      label: t('below its maximum ⚠'),
      explanation: t(
        "A PCIe link trained below the device's maximum speed or width: GPUDirect RDMA over it gets only part of the bandwidth. A GPU lowers its speed (not its width) when idle.",
      ),
    },
    {
      swatch: 'hub-bar',
      label: t('NVLink hub'),
      explanation: t('GPUs that all reach each other over NVLink (an NVSwitch or an all-to-all mesh), drawn as one bar each GPU joins.'),
    },
    { swatch: 'nvlink-edge', label: 'NVLink', explanation: t('A direct NVLink between two GPUs that are not part of a full mesh.') },
    {
      swatch: 'c2c-edge',
      label: 'NVLink-C2C',
      explanation: t("A Grace superchip's GPU-to-CPU link: NCCL reaches NICs on that CPU as P2C."),
    },
    {
      swatch: 'route-edge',
      label: t("NCCL's route (selected GPU)"),
      explanation: t("The path the selected GPU's network traffic takes to the NIC NCCL gives it, as NCCL decides it."),
    },
    {
      swatch: 'pxn-edge',
      label: t('PXN hop'),
      explanation: t('PXN: NCCL first moves the data over NVLink to a peer GPU nearer the NIC, which sends it.'),
    },
    {
      swatch: 'sys-edge',
      label: t('between CPUs (SYS)'),
      explanation: t('The route crosses the interconnect between NUMA nodes: NCCL never uses GPUDirect RDMA over SYS by default.'),
    },
    {
      swatch: 'mark',
      label: t('marked bridge'),
      explanation: t(
        'A bridge with a note (for example ACS redirecting peer-to-peer traffic to the root complex), its link drawn red; focus it to read the note.',
      ),
    },
    {
      swatch: 'node gpu gdr-on',
      label: t('GPU with GPUDirect RDMA'),
      explanation: t("NCCL moves this GPU's network data straight between its memory and the NIC it gives it."),
    },
    {
      swatch: 'node gpu gdr-off far',
      label: t('GPU without GPUDirect RDMA ⚠'),
      explanation: t("NCCL stages this GPU's network data through host memory: focus the GPU for why."),
    },
    {
      swatch: 'node gpu gdr-unknown',
      label: t('GPUDirect RDMA unknown ?'),
      explanation: t("What this GPU's verdict rests on was not read: focus the GPU for what is missing."),
    },
    {
      swatch: 'node nic chosen',
      label: t('NIC NCCL gives a GPU'),
      explanation: t('A NIC that NCCL gives at least one GPU (its nearest usable one): the others carry none of their traffic.'),
    },
    {
      swatch: 'node gpu selected',
      label: t('selected GPU'),
      explanation: t('The GPU whose route is drawn and whose details are shown beside: click another GPU, or pick it in the list.'),
    },
  ];
}
