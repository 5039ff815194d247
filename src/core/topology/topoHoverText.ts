// The words an editor hover shows for a token of `nvidia-smi topo -m` output, as Markdown. The link
// facts come from linkTypes.ts, what NCCL does with a path from nccl/linkRule.ts and a GPU's verdict
// from the same model the diagnosis uses (matrix alone); every piece of text is escaped, because a
// hovered file is untrusted input and must not inject links, images or HTML into the hover.
import { DEFAULT_NCCL, NcclAssumptions, pairsFromTopology, shortVerdict } from '../diagnosis';
import { TopoNic, Topology } from '../parsers/topo';
import type { TopoLegendEntry } from '../parsers/topoLegend';
import { isGpuName } from '../parsers/topoWords';
import { LinkClass, LinkTypeInfo, NVML_LEVEL, classifyLink, knownLinkTypes, linkMeaning, meaningText } from './linkTypes';
import { linkRule } from './nccl/linkRule';
import type { TopoTokenAt } from './topoTokens';
import { t } from '../l10n';

const currentEra = (): string => t('current drivers (≈ R450 and later)');

/** Escapes every Markdown-significant ASCII punctuation character (CommonMark backslash escapes). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&:"'=$%@^]/g, '\\$&');
}

/** Markdown for the hovered token; paragraphs separated by blank lines. */
export function explainTopoToken(hit: TopoTokenAt, topology: Topology, nccl: NcclAssumptions = DEFAULT_NCCL): string {
  switch (hit.kind) {
    case 'cell': return explainCell(hit.token, hit.row, hit.column, topology, nccl);
    case 'device': return explainDevice(hit.name, topology, nccl);
    case 'legend': return explainLegendLine(hit.entry, nccl);
    case 'nicLegend': return explainNicLegendLine(hit.alias, hit.device, topology, nccl);
  }
}

function explainCell(token: string, row: string, column: string, topology: Topology, nccl: NcclAssumptions): string {
  const link = classifyLink(token);
  const ends = row === column
    ? t('{0} itself (the diagonal)', deviceLabel(row, topology))
    : `${deviceLabel(row, topology)} ↔ ${deviceLabel(column, topology)}`;
  return [
    `**${escapeMarkdown(token)}**: ${ends}`,
    `${capitalize(escapeMarkdown(linkMeaning(token)))}.`,
    cellVerdict(token, row, column, nccl),
    levels(link),
    wordings(link),
  ].filter((p) => p !== '').join('\n\n');
}

function cellVerdict(token: string, row: string, column: string, nccl: NcclAssumptions): string {
  const rule = linkRule(token, nccl.version, nccl.env);
  if (classifyLink(token).kind !== 'pcie') return escapeMarkdown(rule.sentence);
  if (isGpuName(row) !== isGpuName(column)) return `${ruleLabel(rule.usesGdr)} ${escapeMarkdown(rule.sentence)}`;
  const links = isGpuName(row) ? t('This cell links two GPUs: no GPUDirect RDMA verdict applies here.') : t('This cell links two NICs: no GPUDirect RDMA verdict applies here.');
  return `${links} ${escapeMarkdown(rule.sentence)}`;
}

/** The same short words as a GPU's verdict (`GDR yes`), for the class alone. */
function ruleLabel(usesGdr: boolean | null): string {
  return usesGdr === null ? '' : `**${usesGdr ? t('GDR yes') : t('GDR no')}**:`;
}

function levels(link: LinkClass): string {
  const parts: string[] = [];
  if (link.nvmlLevel !== null) parts.push(`${t('NVML level {0}', link.nvmlLevel)} (${nvmlLevelName(link.nvmlLevel)})`);
  if (link.ncclPath !== null) parts.push(t('NCCL path {0}', link.ncclPath));
  return parts.length > 0 ? `${parts.join(' · ')}` : '';
}

function wordings(info: LinkTypeInfo): string {
  if (info.kind === 'unknown') return '';
  const lines: string[] = [];
  lines.push(info.currentLegend !== null
    ? `- ${currentEra()}: ${quoted(info.currentLegend)}`
    : `- ${currentEra()}: ${t('not printed (they print SYS instead)')}`);
  for (const older of info.olderLegends) lines.push(`- ${olderEra(older)}: ${quoted(older)}`);
  return `${t('Legend wording of {0}:', `**${escapeMarkdown(info.legendToken)}**`)}\n\n${lines.join('\n')}`;
}

function explainDevice(name: string, topology: Topology, nccl: NcclAssumptions): string {
  const paragraphs = [`**${deviceLabel(name, topology)}**`];
  if (isGpuName(name)) {
    const pair = pairsFromTopology(topology, nccl).find((p) => p.gpu === name);
    if (topology.nics.length === 0) paragraphs.push(t('This output has no NIC columns: nothing to say about GPUDirect RDMA from it.'));
    else if (pair) paragraphs.push(`**${escapeMarkdown(shortVerdict(pair))}**. ${escapeMarkdown(pair.reason)}`);
  } else {
    paragraphs.push(nicReach(name, topology, nccl));
  }
  return paragraphs.join('\n\n');
}

function explainLegendLine(entry: TopoLegendEntry, nccl: NcclAssumptions): string {
  const known = knownLinkTypes().find((info) => info.legendToken === entry.token);
  const paragraphs = [`**${t('Legend: {0}', escapeMarkdown(entry.token))}**`];
  if (!known) {
    paragraphs.push(`${t('A legend token this tool does not know; nvidia-smi says:')} ${quoted(entry.meaning)}`);
    return paragraphs.join('\n\n');
  }
  paragraphs.push(`${capitalize(escapeMarkdown(meaningText(known)))}.`);
  paragraphs.push(t('This line is the wording of {0}.', escapeMarkdown(eraOfWording(known, entry.meaning))));
  if (known.kind === 'pcie') {
    const rule = linkRule(known.legendToken, nccl.version, nccl.env);
    paragraphs.push(`${ruleLabel(rule.usesGdr)} ${escapeMarkdown(rule.sentence)}`);
  }
  paragraphs.push(levels(classifyLink(known.legendToken === 'NV#' ? 'NV1' : known.legendToken)));
  return paragraphs.filter((p) => p !== '').join('\n\n');
}

function explainNicLegendLine(alias: string, device: string, topology: Topology, nccl: NcclAssumptions): string {
  return [
    t('{0} is the RDMA device {1}', `**${escapeMarkdown(alias)}**`, `**${escapeMarkdown(device)}**`),
    t('Drivers ≈ R525 and later name NIC columns NIC0…NICn and list their devices in this NIC Legend; older ones print the device name as the column.'),
    nicReach(alias, topology, nccl),
  ].join('\n\n');
}

/** Which GPUs NCCL gives this NIC, and whether with GPUDirect RDMA (the matrix-alone verdicts). */
function nicReach(nic: string, topology: Topology, nccl: NcclAssumptions): string {
  if (topology.gpus.length === 0) return '';
  const users = pairsFromTopology(topology, nccl).filter((p) => p.nics.some((n) => n.nic === nic));
  if (users.length === 0) return t('NCCL gives this NIC to no GPU: every GPU has a NIC it reaches better.');
  return `${t('NCCL\'s NIC for:')} ${users.map((p) => `${escapeMarkdown(p.gpu)} (${escapeMarkdown(shortVerdict(p))})`).join(', ')}.`;
}

/** `GPU3`, `NIC2 (mlx5_2)`, or `mlx5_0` for an older driver's column. */
function deviceLabel(name: string, topology: Topology): string {
  const nic: TopoNic | undefined = topology.nics.find((n) => n.name === name);
  const device = nic && nic.device !== null && nic.device !== name ? ` (${escapeMarkdown(nic.device)})` : '';
  return `${escapeMarkdown(name)}${device}`;
}

function eraOfWording(info: LinkTypeInfo, printed: string): string {
  if (printed === info.currentLegend) return currentEra();
  if (info.olderLegends.includes(printed)) return olderEra(printed);
  return t('a driver whose wording this tool does not know');
}

/** The oldest legend (Kepler era) says "Path traverses …" (docs/topo-matrix.md §2). */
function olderEra(wording: string): string {
  return wording.startsWith('Path traverses') ? t('the oldest drivers (Kepler era)') : t('older drivers (before ≈ R450)');
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
