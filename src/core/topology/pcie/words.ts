// The words the topology panel shows for each part of the PCIe tree (tree.ts): a short label, the ids,
// and what the part means for GPUDirect RDMA under the NCCL release the user runs (nccl/linkRule.ts
// gives each distance's rule). Written here so the panel and any other view say the same.
import { linkRule } from '../nccl/linkRule';
import { NcclVersion } from '../nccl/version';
import { PcieLink, linkText } from './link';
import { PcieNode } from './tree';

export interface NodeWords {
  readonly label: string;
  /** Ids and addresses, one line. */
  readonly detail: string;
  /** What it is and what it means for GPUDirect RDMA. */
  readonly explanation: string;
}

/** PCI vendor ids of the parts found between GPUs and NICs (the PCI ID Repository's names). */
const VENDORS: Record<string, string> = {
  '0x10de': 'NVIDIA', '0x15b3': 'Mellanox', '0x1000': 'Broadcom / LSI', '0x10b5': 'Broadcom / PLX', '0x11f8': 'Microchip',
  '0x8086': 'Intel', '0x1022': 'AMD', '0x1014': 'IBM',
};

export function nodeWords(node: PcieNode, version: NcclVersion, env: Readonly<Record<string, string>> = {}): NodeWords {
  const rule = (token: string) => linkRule(token, version, env).sentence;
  const numa = node.numaNode === null ? 'NUMA node unknown' : `NUMA node ${node.numaNode}`;
  switch (node.kind) {
    case 'cpu':
      return {
        label: node.numaNode === null ? 'CPU' : `CPU ${node.numaNode}`, detail: numa,
        explanation: `The CPU of ${numa} and its root complexes. A GPU and a NIC under two host bridges of this node are NODE apart. ` +
          `${rule('NODE')} Across NUMA nodes they are SYS apart. ${rule('SYS')}`,
      };
    case 'host-bridge':
      return {
        label: 'host bridge', detail: `${node.id}, ${numa}${ports('root port', node.ports)}`,
        explanation: `PCIe host bridge ${node.id} (a root complex of the CPU)${ports('root port', node.ports)}, ${numa}. A GPU and a NIC below it ` +
          `but not below one switch are PHB apart. ${rule('PHB')}`,
      };
    case 'switch':
      return {
        label: 'PCIe switch', detail: `${node.bdf}${ids(node)}${ports('downstream port', node.ports)}`,
        explanation: `PCIe switch ${node.bdf}${ids(node)}${ports('downstream port', node.ports)}. A GPU and a NIC below this switch alone ` +
          `are PIX apart, below nested switches PXB: peer-to-peer traffic stays in the switch without crossing the CPU. ${rule('PIX')}`,
      };
    default:
      return leafWords(node, numa);
  }
}

function leafWords(node: PcieNode, numa: string): NodeWords {
  const kind = node.kind === 'gpu' ? 'GPU' : node.kind === 'nvswitch' ? 'NVSwitch' : node.kind === 'nic' ? 'RDMA NIC' : 'PCI device';
  const rdma = node.rdma.length > 0 ? node.rdma.join(', ') : null;
  const label = node.kind === 'nic' ? rdma ?? node.bdf ?? '?' : node.column ?? (node.kind === 'nvswitch' ? 'NVSwitch' : node.bdf ?? '?');
  const name = node.kind === 'nic' && node.column !== null && node.column !== rdma ? `${node.column} (${rdma})` : label;
  const link = node.link ? `, link ${linkText(node.link)}` : '';
  return {
    label, detail: `${node.bdf}${ids(node)}`,
    explanation: `${kind} ${name} at ${node.bdf}${ids(node)}, ${numa}${link}.`,
  };
}

/** What the link between a node and its parent is, and what a degraded one means. */
export function linkWords(node: PcieNode, link: PcieLink): string {
  const head = `PCIe link of ${node.kind === 'switch' ? `switch ${node.bdf}` : node.column ?? node.bdf}${node.via ? ` to port ${node.via}` : ''}: ` +
    `${linkText(link)} (${link.speed || 'speed unreadable'}, x${link.width ?? '?'}; maximum ${link.maxSpeed || '?'}, x${link.maxWidth ?? '?'}).`;
  if (!link.degraded) return `${head} Running at its maximum.`;
  if (link.speedOnly && node.kind === 'gpu') {
    return `${head} A GPU lowers its link speed when idle to save power: read it again under load (nvidia-smi -q, "PCIe Generation ` +
      'Current"). A lower width is never an idle state.';
  }
  return `${head} Trained below its maximum: GPUDirect RDMA traffic over it gets only part of the bandwidth — the most common hardware ` +
    'reason for "GPUDirect RDMA works but is slow". Check the slot (its wiring, riser, BIOS bifurcation), reseat the card, look for AER errors.';
}

function ids(node: PcieNode): string {
  if (node.vendor === '') return '';
  const vendor = VENDORS[node.vendor.toLowerCase()];
  const id = `${node.vendor.replace(/^0x/, '')}:${node.device.replace(/^0x/, '')}`;
  return ` (${vendor ? `${vendor} ` : ''}${id})`;
}

function ports(what: string, list: readonly string[]): string {
  if (list.length === 0) return '';
  return `, ${what}${list.length > 1 ? 's' : ''} ${list.join(', ')}`;
}
