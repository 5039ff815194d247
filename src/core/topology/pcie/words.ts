// The words the topology panel shows for each part of the PCIe tree (tree.ts): a short label, the ids,
// and what the part means for GPUDirect RDMA under the NCCL release the user runs (nccl/linkRule.ts
// gives each distance's rule). Written here so the panel and any other view say the same.
import { linkRule } from '../nccl/linkRule';
import { NcclVersion } from '../nccl/version';
import { PcieLink, linkText } from './link';
import { PcieNode } from './tree';
import { t } from '../../l10n';

export interface NodeWords {
  readonly label: string;
  /** Ids and addresses, one line. */
  readonly detail: string;
  /** What it is and what it means for GPUDirect RDMA. */
  readonly explanation: string;
  /** NCCL's rule for the distances it stands for, with its source (shown last); '' for a device. */
  readonly why: string;
}

/** PCI vendor ids of the parts found between GPUs and NICs (the PCI ID Repository's names). */
const VENDORS: Record<string, string> = {
  '0x10de': 'NVIDIA',
  '0x15b3': 'Mellanox',
  '0x1000': 'Broadcom / LSI',
  '0x10b5': 'Broadcom / PLX',
  '0x11f8': 'Microchip',
  '0x8086': 'Intel',
  '0x1022': 'AMD',
  '0x1014': 'IBM',
};

export function nodeWords(node: PcieNode, version: NcclVersion, env: Readonly<Record<string, string>> = {}): NodeWords {
  const rule = (token: string) => linkRule(token, version, env).sentence;
  const numa = node.numaNode === null ? t('NUMA node unknown') : t('NUMA node {0}', node.numaNode);
  switch (node.kind) {
    case 'cpu':
      return {
        label: node.numaNode === null ? 'CPU' : `CPU ${node.numaNode}`,
        detail: numa,
        explanation: t(
          'The CPU of {0} and its root complexes. A GPU and a NIC under two host bridges of this node are NODE apart; across NUMA nodes, SYS.',
          numa,
        ),
        why: `${rule('NODE')} ${rule('SYS')}`,
      };
    case 'host-bridge':
      return {
        label: t('host bridge'),
        detail: `${node.id}, ${numa}${rootPorts(node.ports)}`,
        explanation: t(
          'PCIe host bridge {0} (a root complex of the CPU){1}, {2}. A GPU and a NIC below it but not below one switch are PHB apart.',
          node.id,
          rootPorts(node.ports),
          numa,
        ),
        why: rule('PHB'),
      };
    case 'switch':
      return {
        label: t('PCIe switch'),
        detail: `${node.bdf}${ids(node)}${downstreamPorts(node.ports)}`,
        explanation: t(
          'PCIe switch {0}{1}. A GPU and a NIC below this switch alone are PIX apart, below nested switches PXB: peer-to-peer traffic stays in the switch without crossing the CPU.',
          node.bdf ?? '?',
          `${ids(node)}${downstreamPorts(node.ports)}`,
        ),
        why: rule('PIX'),
      };
    default:
      return leafWords(node, numa);
  }
}

function leafWords(node: PcieNode, numa: string): NodeWords {
  const kind = node.kind === 'gpu' ? 'GPU' : node.kind === 'nvswitch' ? 'NVSwitch' : node.kind === 'nic' ? t('RDMA NIC') : t('PCI device');
  const rdma = node.rdma.length > 0 ? node.rdma.join(', ') : null;
  const label =
    node.kind === 'nic' ? (rdma ?? node.bdf ?? '?') : (node.column ?? (node.kind === 'nvswitch' ? 'NVSwitch' : (node.bdf ?? '?')));
  const name = node.kind === 'nic' && node.column !== null && node.column !== rdma ? `${node.column} (${rdma})` : label;
  const link = node.link ? t(', link {0}', linkText(node.link)) : '';
  return {
    label,
    detail: `${node.bdf}${ids(node)}`,
    explanation: t('{0} {1} at {2}, {3}{4}.', kind, name, `${node.bdf}${ids(node)}`, numa, link),
    why: '',
  };
}

/** What the link between a node and its parent is, and what a degraded one means. */
export function linkWords(node: PcieNode, link: PcieLink): string {
  const of = `${node.kind === 'switch' ? t('switch {0}', node.bdf ?? '?') : (node.column ?? node.bdf)}${node.via ? t(' to port {0}', node.via) : ''}`;
  const head = t(
    'PCIe link of {0}: {1} ({2}, x{3}; maximum {4}, x{5}).',
    of ?? '?',
    linkText(link),
    link.speed || t('speed unreadable'),
    link.width ?? '?',
    link.maxSpeed || '?',
    link.maxWidth ?? '?',
  );
  if (!link.degraded) return `${head} ${t('Running at its maximum.')}`;
  const why =
    link.speedOnly && node.kind === 'gpu'
      ? t(
          'A GPU lowers its link speed when idle to save power: read it again under load (nvidia-smi -q, "PCIe Generation Current"). A lower width is never an idle state.',
        )
      : t(
          'Trained below its maximum: GPUDirect RDMA traffic over it gets only part of the bandwidth — the most common hardware reason for "GPUDirect RDMA works but is slow". Check the slot (its wiring, riser, BIOS bifurcation), reseat the card, look for AER errors.',
        );
  return `${head} ${why}`;
}

function ids(node: PcieNode): string {
  if (node.vendor === '') return '';
  const vendor = VENDORS[node.vendor.toLowerCase()];
  const id = `${node.vendor.replace(/^0x/, '')}:${node.device.replace(/^0x/, '')}`;
  return ` (${vendor ? `${vendor} ` : ''}${id})`;
}

function rootPorts(list: readonly string[]): string {
  if (list.length === 0) return '';
  return list.length > 1 ? t(', root ports {0}', list.join(', ')) : t(', root port {0}', list[0]);
}

function downstreamPorts(list: readonly string[]): string {
  if (list.length === 0) return '';
  return list.length > 1 ? t(', downstream ports {0}', list.join(', ')) : t(', downstream port {0}', list[0]);
}
