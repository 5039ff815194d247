import { formatCpuList } from '../../core/parsers/cpuList';
import { Numactl, NumaNode } from '../../core/parsers/numactl';
import { t } from '../../core/l10n';

/** One line per NUMA node (CPUs, memory size and free), then the distance matrix. */
export function summarizeNumactl(value: Numactl): string {
  if (!value.numaAvailable) {
    return `numactl: ${t('No NUMA available on this system (kernel without NUMA support; the host is treated as one node)')}`;
  }
  const lines = [`numactl: ${t('{0} NUMA node(s)', value.nodes.length)}`];
  for (const node of value.nodes) {
    lines.push(`  ${t('node {0}: {1}', node.id, describeNode(node))}`);
  }
  if (value.distances.length === 0) {
    lines.push(t('Distances: not available'));
    return lines.join('\n');
  }
  const ids = value.nodes.map((node) => String(node.id));
  const width = Math.max(3, ...ids.map((id) => id.length), ...value.distances.flat().map((d) => String(d).length));
  const cell = (text: string): string => text.padStart(width);
  lines.push(t('Distances:'));
  lines.push(`  ${' '.repeat(width + 1)} ${ids.map(cell).join(' ')}`);
  value.distances.forEach((row, i) => lines.push(`  ${cell(ids[i])}: ${row.map((d) => cell(String(d))).join(' ')}`));
  return lines.join('\n');
}

function describeNode(node: NumaNode): string {
  const memory = t('{0} MB, {1} MB free', node.sizeMb, node.freeMb);
  if (node.cpus.length > 0) return t('CPUs {0} ({1}), {2}', formatCpuList(node.cpus), node.cpus.length, memory);
  // CPU-less nodes hold GPU memory (Grace Hopper, POWER9), HBM or CXL; 0 MB means not onlined (yet).
  return node.sizeMb > 0 ? t('no CPUs (memory-only node), {0}', memory) : t('no CPUs, no memory (placeholder node)');
}
