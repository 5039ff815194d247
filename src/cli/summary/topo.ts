import { DEFAULT_NCCL, GpuNicPair, pairsFromTopology, pathLabel, shortVerdict } from '../../core/diagnosis';
import { TopoGpu, Topology } from '../../core/parsers/topo';
import { classifyLink, knownLinkTypes, linkMeaning } from '../../core/topology/linkTypes';
import { linkRule } from '../../core/topology/nccl/linkRule';
// `t` names the topology in this file.
import { t as l10n } from '../../core/l10n';

/** Shown for a cell whose row the output did not print. */
const NOT_PRINTED = '-';

const GPU_FIELD_BY_COLUMN: Record<string, keyof Omit<TopoGpu, 'name'>> = {
  'CPU Affinity': 'cpuAffinity',
  'NUMA Affinity': 'numaAffinity',
  'GPU NUMA ID': 'gpuNumaId',
};

/** The matrix re-printed aligned, what each link type in it means, then NCCL's verdict for each GPU (matrix alone). */
export function summarizeTopo(t: Topology): string {
  const lines = [`nvidia-smi topo -m: ${l10n('{0} GPU(s), {1} NIC(s)', t.gpus.length, t.nics.length)}`, ''];
  lines.push(...alignedMatrix(t));
  const aliases = t.nics.filter((nic) => nic.name !== nic.device);
  if (aliases.length > 0) lines.push(l10n('NICs: {0}', aliases.map((nic) => `${nic.name} = ${nic.device ?? l10n('(not in a NIC Legend)')}`).join(', ')));
  lines.push('', l10n('Link types in this matrix:'), ...linkTypeLines(t));
  if (t.nics.length > 0) {
    lines.push('', l10n('NCCL {0}\'s NIC per GPU (from the matrix alone: ports, peer memory and GPU models not read):', `${DEFAULT_NCCL.version.major}.${DEFAULT_NCCL.version.minor}`));
    lines.push(...pairsFromTopology(t, DEFAULT_NCCL).map(pairLine));
  }
  else lines.push('', l10n('No NIC columns: nothing for GPUDirect RDMA to use.'));
  return lines.join('\n');
}

function alignedMatrix(t: Topology): string[] {
  const infoColumns = t.infoColumns.filter((c) => c in GPU_FIELD_BY_COLUMN);
  const gpuByName = new Map(t.gpus.map((gpu) => [gpu.name, gpu]));
  const table: string[][] = [['', ...t.columns, ...infoColumns]];
  for (const row of t.columns) {
    const cells = t.columns.map((column) => t.links[row]?.[column] ?? NOT_PRINTED);
    const gpu = gpuByName.get(row);
    const info = infoColumns.map((c) => (gpu ? (gpu[GPU_FIELD_BY_COLUMN[c]] ?? '') : ''));
    table.push([row, ...cells, ...info]);
  }
  const widths = table[0].map((_, j) => Math.max(...table.map((r) => r[j].length)));
  const printed = table.map((r) => r.map((cell, j) => cell.padEnd(widths[j])).join('  ').trimEnd());
  const missing = t.columns.some((row) => t.columns.some((c) => t.links[row]?.[c] === null));
  return missing ? [...printed, l10n('({0} = the output has no row for this device)', NOT_PRINTED)] : printed;
}

function linkTypeLines(t: Topology): string[] {
  const gpuNames = new Set(t.gpus.map((gpu) => gpu.name));
  // token → whether it links a GPU and a NIC somewhere (only there does GPUDirect RDMA apply)
  const used = new Map<string, boolean>();
  for (const row of t.columns) {
    for (const column of t.columns) {
      const token = t.links[row]?.[column];
      if (token === null || token === undefined) continue;
      const gpuNic = gpuNames.has(row) !== gpuNames.has(column);
      used.set(token, gpuNic || (used.get(token) ?? false));
    }
  }
  const tokens = [...used.keys()].sort(byLegendOrder);
  const width = Math.max(...tokens.map((token) => token.length));
  return tokens.map((token) => {
    const gdr = used.get(token) ? `. ${linkRule(token, DEFAULT_NCCL.version).sentence}` : '';
    return `  ${token.padEnd(width)}  ${linkMeaning(token)}${gdr}`;
  });
}

function pairLine(p: GpuNicPair): string {
  const nics = p.nics.map((n) => n.device ?? n.nic).join(', ') || l10n('none');
  return `  ${p.gpu}: ${nics} (${pathLabel(p)}) — ${shortVerdict(p)}`;
}

/** Legend order (X, NV#, PIX … SYS, SOC), NV<n> by link count, unknown tokens last by name. */
function byLegendOrder(a: string, b: string): number {
  const order = knownLinkTypes().map((info) => info.legendToken);
  const rank = (token: string) => {
    const link = classifyLink(token);
    const index = order.indexOf(link.legendToken);
    return [index < 0 ? order.length : index, link.nvlinkCount ?? 0] as const;
  };
  const [ra, na] = rank(a);
  const [rb, nb] = rank(b);
  return ra - rb || na - nb || a.localeCompare(b);
}
