// The graph's sentences that join what the extension sent (each tree part's explanation, a token's NCCL
// rule, a GPU's verdict): what a hovered or focused node, line or legend entry is and means for
// GPUDirect RDMA.
import type { TopologyData } from '../protocol/topology';
import type { EdgeWords } from './graphEdges';
import type { GraphNode } from './graphModel';

export function edgeWords(data: TopologyData): EdgeWords {
  const rule = (token: string) => data.explanations.find((e) => e.token === token)?.gdrVerdict ?? '';
  return {
    hub: (members, token) =>
      `NVLink ${token}: each of ${members.join(', ')} reaches every other directly (an NVSwitch fabric or an all-to-all mesh), drawn as one hub ` +
      `instead of ${(members.length * (members.length - 1)) / 2} lines. ${rule(token.split('–')[0])}`.trim(),
    nvlink: (a, b, token) => `${a} ↔ ${b}: NVLink ${token}. ${rule(token)}`.trim(),
    c2c: (gpu) =>
      `${gpu} ↔ its Grace CPU: NVLink-C2C, the GPU's coherent link to its own CPU. NCCL 2.27 and later reach a NIC on that CPU's PCIe over it ` +
      'as P2C and, with NCCL_NET_GDR_C2C on (their default), use GPUDirect RDMA there; nvidia-smi prints SYS or NODE for those pairs ' +
      '(src/graph/paths.cc ncclTopoComputePaths, ncclTopoCheckGdr).',
    sys: (a, b) =>
      `${cpuName(a)} ↔ ${cpuName(b)}: the interconnect between NUMA nodes (QPI/UPI, Infinity Fabric, Grace-to-Grace) — SYS. ${rule('SYS')}`.trim(),
    samecpu: (cpu) => `Through ${cpuName(cpu)}: both ends hang off this CPU's host bridges (drawn in two parts), so the path crosses the CPU (NODE or PHB). ${rule('NODE')}`.trim(),
    pxn: (gpu, proxy) =>
      `${gpu} → ${proxy} over NVLink: PXN. NCCL relays ${gpu}'s network sends through ${proxy}, which is nearer the NIC, and judges GPUDirect ` +
      `RDMA by ${proxy}'s path (src/graph/paths.cc ncclTopoComputePaths).`,
  };
}

function cpuName(id: string): string {
  return id.replace(/^(cpu|numa):/, 'CPU ');
}

/** A node's own words, its link to its parent, its marks, and for a GPU or NIC what NCCL does with it. */
export function nodeText(data: TopologyData, node: GraphNode): string {
  const parts = [node.explanation];
  if (node.link) parts.push(node.link.explanation);
  for (const mark of node.marks) parts.push(`${mark.label}: ${mark.explanation}`);
  const gpu = data.gpus.find((g) => g.name === node.column);
  if (gpu) parts.push(`${gpu.verdict}. ${gpu.reason}`);
  else if (node.kind === 'nic' && node.column !== null) {
    const users = data.gpus.filter((g) => g.nearestNicColumns.includes(node.column as string)).map((g) => g.name);
    parts.push(users.length > 0 ? `NCCL gives it to ${users.join(', ')}.` : 'NCCL gives it to no GPU (another NIC is nearer, faster, or this one has no usable port).');
  }
  return parts.join(' ');
}

/** The legend under the graph: what each kind of line and mark means. */
export const GRAPH_LEGEND: readonly { readonly swatch: string; readonly label: string; readonly explanation: string }[] = [
  { swatch: 'pcie-edge', label: 'PCIe link (speed, width)', explanation: 'A PCIe link between a device and the bridge above it, with the speed and width it runs at now (sysfs current_link_speed/width).' },
  { swatch: 'pcie-edge degraded', label: 'below its maximum ⚠', explanation: 'A PCIe link trained below the device\'s maximum speed or width: GPUDirect RDMA over it gets only part of the bandwidth. A GPU lowers its speed (not its width) when idle.' },
  { swatch: 'hub-bar', label: 'NVLink hub', explanation: 'GPUs that all reach each other over NVLink (an NVSwitch or an all-to-all mesh), drawn as one bar each GPU joins.' },
  { swatch: 'nvlink-edge', label: 'NVLink', explanation: 'A direct NVLink between two GPUs that are not part of a full mesh.' },
  { swatch: 'c2c-edge', label: 'NVLink-C2C', explanation: 'A Grace superchip\'s GPU-to-CPU link: NCCL reaches NICs on that CPU as P2C.' },
  { swatch: 'route-edge', label: 'NCCL\'s route (selected GPU)', explanation: 'The path the selected GPU\'s network traffic takes to the NIC NCCL gives it, as NCCL decides it.' },
  { swatch: 'pxn-edge', label: 'PXN hop', explanation: 'PXN: NCCL first moves the data over NVLink to a peer GPU nearer the NIC, which sends it.' },
  { swatch: 'sys-edge', label: 'between CPUs (SYS)', explanation: 'The route crosses the interconnect between NUMA nodes: NCCL never uses GPUDirect RDMA over SYS by default.' },
  { swatch: 'mark', label: 'marked bridge', explanation: 'A bridge with a note (for example ACS redirecting peer-to-peer traffic to the root complex); focus it to read the note.' },
];
