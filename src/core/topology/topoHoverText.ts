// The words an editor hover shows for a token of `nvidia-smi topo -m` output, as Markdown. Every
// fact comes from linkTypes.ts; every piece of document text is escaped, because a hovered file is
// untrusted input and must not inject links, images or HTML into the hover.
import { TopoNic, Topology } from '../parsers/topo';
import type { TopoLegendEntry } from '../parsers/topoLegend';
import { isGpuName } from '../parsers/topoWords';
import {
  LinkClass, LinkTypeInfo, NCCL_DEFAULT_NET_GDR_LEVEL, NVML_LEVEL, classifyLink, knownLinkTypes, linkMeaning,
} from './linkTypes';
import { nearestNics } from './nearestNic';
import type { TopoTokenAt } from './topoTokens';

const CURRENT_ERA = 'current drivers (≈ R450 and later)';
const NCCL_RULE = `NCCL's default \`NCCL_NET_GDR_LEVEL=${NCCL_DEFAULT_NET_GDR_LEVEL}\` uses GPUDirect RDMA only over PIX or PXB`;

/** Escapes every Markdown-significant ASCII punctuation character (CommonMark backslash escapes). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&:"'=$%@^]/g, '\\$&');
}

/** Markdown for the hovered token; paragraphs separated by blank lines. */
export function explainTopoToken(hit: TopoTokenAt, topology: Topology): string {
  switch (hit.kind) {
    case 'cell': return explainCell(hit.token, hit.row, hit.column, topology);
    case 'device': return explainDevice(hit.name, topology);
    case 'legend': return explainLegendLine(hit.entry);
    case 'nicLegend': return explainNicLegendLine(hit.alias, hit.device, topology);
  }
}

function explainCell(token: string, row: string, column: string, topology: Topology): string {
  const link = classifyLink(token);
  const ends = row === column
    ? `${deviceLabel(row, topology)} itself (the diagonal)`
    : `${deviceLabel(row, topology)} ↔ ${deviceLabel(column, topology)}`;
  return [
    `**${escapeMarkdown(token)}**: ${ends}`,
    `${capitalize(escapeMarkdown(linkMeaning(token)))}.`,
    cellVerdict(link, row, column),
    levels(link),
    wordings(link),
  ].filter((p) => p !== '').join('\n\n');
}

function cellVerdict(link: LinkClass, row: string, column: string): string {
  if (link.kind === 'self') return '';
  if (link.kind === 'nvlink') {
    return 'NVLink joins two GPUs; GPUDirect RDMA is about a GPU↔NIC PCIe path. NCCL may still reach a NIC through an NVLink peer GPU (PXN) and then judges that GPU\'s distance.';
  }
  const gpuNic = isGpuName(row) !== isGpuName(column);
  if (gpuNic && link.ncclDefaultUsesGdr !== null) {
    return `**GPUDirect RDMA: ${link.ncclDefaultUsesGdr ? 'used' : 'not used'}** for this GPU↔NIC pair by default (${NCCL_RULE}).`;
  }
  if (link.ncclDefaultUsesGdr === null) return 'Whether NCCL would use GPUDirect RDMA over this link type is unknown.';
  const pair = isGpuName(row) ? 'two GPUs' : 'two NICs';
  return `This cell links ${pair}, so no GPUDirect RDMA verdict applies here; a GPU↔NIC path of this type would ${link.ncclDefaultUsesGdr ? '' : 'not '}get GPUDirect RDMA by default (${NCCL_RULE}).`;
}

function levels(link: LinkClass): string {
  const parts: string[] = [];
  if (link.nvmlLevel !== null) parts.push(`NVML level ${link.nvmlLevel} (${nvmlLevelName(link.nvmlLevel)})`);
  if (link.ncclPath !== null) parts.push(`NCCL path ${link.ncclPath}`);
  return parts.length > 0 ? `${parts.join(' · ')}` : '';
}

function wordings(info: LinkTypeInfo): string {
  if (info.kind === 'unknown') return '';
  const lines: string[] = [];
  lines.push(info.currentLegend !== null
    ? `- ${CURRENT_ERA}: ${quoted(info.currentLegend)}`
    : `- ${CURRENT_ERA}: not printed (they print SYS instead)`);
  for (const older of info.olderLegends) lines.push(`- ${olderEra(older)}: ${quoted(older)}`);
  return `Legend wording of **${escapeMarkdown(info.legendToken)}**:\n\n${lines.join('\n')}`;
}

function explainDevice(name: string, topology: Topology): string {
  const paragraphs = [`**${deviceLabel(name, topology)}**`];
  if (isGpuName(name)) {
    const nearest = nearestNics(topology).find((n) => n.gpu === name);
    if (nearest) {
      const nics = nearest.nics.map((n) => deviceLabel(n.nic, topology)).join(', ');
      paragraphs.push(`Nearest NIC: ${nics} over **${escapeMarkdown(nearest.link)}**. ${gdrSentence(nearest.ncclDefaultUsesGdr)}`);
    } else if (topology.nics.length === 0) {
      paragraphs.push('This output has no NIC columns: nothing to say about GPUDirect RDMA from it.');
    }
  } else {
    paragraphs.push(nicReach(name, topology));
  }
  return paragraphs.join('\n\n');
}

function explainLegendLine(entry: TopoLegendEntry): string {
  const known = knownLinkTypes().find((info) => info.legendToken === entry.token);
  const paragraphs = [`**Legend: ${escapeMarkdown(entry.token)}**`];
  if (!known) {
    paragraphs.push(`A legend token this tool does not know; nvidia-smi says: ${quoted(entry.meaning)}`);
    return paragraphs.join('\n\n');
  }
  paragraphs.push(`${capitalize(escapeMarkdown(known.meaning))}.`);
  paragraphs.push(`This line is the wording of ${escapeMarkdown(eraOfWording(known, entry.meaning))}.`);
  if (known.kind === 'pcie') {
    const used = classifyLink(known.legendToken).ncclDefaultUsesGdr;
    paragraphs.push(`**GPUDirect RDMA over a GPU↔NIC ${escapeMarkdown(known.legendToken)} path: ${used ? 'used' : 'not used'}** by default (${NCCL_RULE}).`);
  }
  paragraphs.push(levels(classifyLink(known.legendToken === 'NV#' ? 'NV1' : known.legendToken)));
  return paragraphs.filter((p) => p !== '').join('\n\n');
}

function explainNicLegendLine(alias: string, device: string, topology: Topology): string {
  return [
    `**${escapeMarkdown(alias)}** is the RDMA device **${escapeMarkdown(device)}**`,
    'Drivers ≈ R525 and later name NIC columns NIC0…NICn and list their devices in this NIC Legend; older ones print the device name as the column.',
    nicReach(alias, topology),
  ].join('\n\n');
}

/** Which GPUs reach a NIC close enough for NCCL's default GPUDirect RDMA distance. */
function nicReach(nic: string, topology: Topology): string {
  const near = topology.gpus.filter((gpu) => {
    const token = topology.links[gpu.name]?.[nic];
    return token !== null && token !== undefined && classifyLink(token).ncclDefaultUsesGdr === true;
  });
  if (topology.gpus.length === 0) return '';
  if (near.length === 0) return `No GPU reaches it over PIX or PXB: **GPUDirect RDMA not used** with it by default (${NCCL_RULE}).`;
  const list = near.map((gpu) => `${escapeMarkdown(gpu.name)} (${escapeMarkdown(topology.links[gpu.name][nic] ?? '')})`).join(', ');
  return `GPUs within NCCL's default GPUDirect RDMA distance: ${list}.`;
}

function gdrSentence(used: boolean | null): string {
  if (used === null) return 'Whether NCCL uses GPUDirect RDMA over it is unknown.';
  return `**GPUDirect RDMA: ${used ? 'used' : 'not used'}** by default (${NCCL_RULE}).`;
}

/** `GPU3`, `NIC2 (mlx5_2)`, or `mlx5_0` for an older driver's column. */
function deviceLabel(name: string, topology: Topology): string {
  const nic: TopoNic | undefined = topology.nics.find((n) => n.name === name);
  const device = nic && nic.device !== null && nic.device !== name ? ` (${escapeMarkdown(nic.device)})` : '';
  return `${escapeMarkdown(name)}${device}`;
}

function eraOfWording(info: LinkTypeInfo, printed: string): string {
  if (printed === info.currentLegend) return CURRENT_ERA;
  if (info.olderLegends.includes(printed)) return olderEra(printed);
  return 'a driver whose wording this tool does not know';
}

/** The oldest legend (Kepler era) says "Path traverses …" (DOMAIN.md §1). */
function olderEra(wording: string): string {
  return wording.startsWith('Path traverses') ? 'the oldest drivers (Kepler era)' : 'older drivers (before ≈ R450)';
}

function nvmlLevelName(level: number): string {
  const entry = Object.entries(NVML_LEVEL).find(([, value]) => value === level);
  return entry ? `NVML\\_TOPOLOGY\\_${entry[0]}` : String(level);
}

function quoted(text: string): string {
  return `“${escapeMarkdown(text)}”`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
