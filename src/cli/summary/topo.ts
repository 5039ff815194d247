import { TopoGpu, Topology } from '../../core/parsers/topo';
import { LinkClass, NCCL_DEFAULT_NET_GDR_LEVEL, classifyLink, knownLinkTypes, linkMeaning } from '../../core/topology/linkTypes';
import { NearestNic, nearestNics } from '../../core/topology/nearestNic';

/** Shown for a cell whose row the output did not print. */
const NOT_PRINTED = '-';

const GPU_FIELD_BY_COLUMN: Record<string, keyof Omit<TopoGpu, 'name'>> = {
  'CPU Affinity': 'cpuAffinity',
  'NUMA Affinity': 'numaAffinity',
  'GPU NUMA ID': 'gpuNumaId',
};

/** The matrix re-printed aligned, what each link type in it means, then each GPU's nearest NIC(s). */
export function summarizeTopo(t: Topology): string {
  const lines = [`nvidia-smi topo -m: ${t.gpus.length} GPU(s), ${t.nics.length} NIC(s)`, ''];
  lines.push(...alignedMatrix(t));
  const aliases = t.nics.filter((nic) => nic.name !== nic.device);
  if (aliases.length > 0) lines.push(`NICs: ${aliases.map((nic) => `${nic.name} = ${nic.device ?? '(not in a NIC Legend)'}`).join(', ')}`);
  lines.push('', 'Link types in this matrix:', ...linkTypeLines(t));
  if (t.nics.length > 0) lines.push('', 'Nearest NIC per GPU:', ...nearestNics(t).map(nearestNicLine));
  else lines.push('', 'No NIC columns: nothing for GPUDirect RDMA to use.');
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
  return missing ? [...printed, `(${NOT_PRINTED} = the output has no row for this device)`] : printed;
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
    const gdr = used.get(token) ? `; GPU↔NIC: ${gdrVerdict(classifyLink(token))}` : '';
    return `  ${token.padEnd(width)}  ${linkMeaning(token)}${gdr}`;
  });
}

function gdrVerdict(link: LinkClass): string {
  const setting = `NCCL_NET_GDR_LEVEL=${NCCL_DEFAULT_NET_GDR_LEVEL}`;
  if (link.ncclDefaultUsesGdr === true) return `NCCL's default (${setting}) uses GPUDirect RDMA`;
  if (link.ncclDefaultUsesGdr === false) {
    return `NCCL's default (${setting}) does not use GPUDirect RDMA (it would with NCCL_NET_GDR_LEVEL=${link.ncclPath})`;
  }
  return 'unknown whether NCCL uses GPUDirect RDMA over it';
}

function nearestNicLine(nearest: NearestNic): string {
  const nics = nearest.nics.map((n) => (n.device && n.device !== n.nic ? `${n.nic} (${n.device})` : n.nic)).join(', ');
  const gdr = nearest.ncclDefaultUsesGdr === true ? 'GPUDirect RDMA with NCCL defaults'
    : nearest.ncclDefaultUsesGdr === false ? 'no GPUDirect RDMA with NCCL defaults' : 'GPUDirect RDMA unknown';
  return `  ${nearest.gpu}: ${nics} via ${nearest.link} (${gdr})`;
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
