// What each `nvidia-smi topo -m` link token means, as data: the legend wordings nvidia-smi has
// printed over the years, the NVML topology level behind the token and NCCL's path class for it
// (docs/nccl-gdr.md). What NCCL then does with a GPU↔NIC path of that class is nccl/linkRule.ts.
import type { PathType } from './nccl/pathType';
import { t } from '../l10n';

/** What kind of connection a token names. */
export type LinkKind = 'self' | 'nvlink' | 'pcie' | 'unknown';

/** NVML `nvmlGpuTopologyLevel_t` values; a smaller level is a shorter path. */
export const NVML_LEVEL = { INTERNAL: 0, SINGLE: 10, MULTIPLE: 20, HOSTBRIDGE: 30, NODE: 40, SYSTEM: 50 } as const;

export interface LinkTypeInfo {
  /** The token as the legend names it: `NV#` stands for every NV<n>. */
  readonly legendToken: string;
  readonly kind: LinkKind;
  /** One plain-language line. */
  readonly meaning: string;
  /** The legend line's wording on current drivers (≈ 450 and later); null where the token is gone. */
  readonly currentLegend: string | null;
  /** Wordings of older drivers, newest first. */
  readonly olderLegends: readonly string[];
  /** NVML topology level; null for NVLink (not a PCIe level) and unknown tokens. */
  readonly nvmlLevel: number | null;
  /** NCCL's path class (nvidia-smi's NODE is PHB to NCCL); null for unknown tokens. */
  readonly ncclPath: PathType | null;
}

const KNOWN_LINK_TYPES: readonly LinkTypeInfo[] = [
  {
    legendToken: 'X', kind: 'self', meaning: 'the device itself',
    currentLegend: 'Self', olderLegends: [], nvmlLevel: NVML_LEVEL.INTERNAL, ncclPath: 'LOC',
  },
  {
    legendToken: 'NV#', kind: 'nvlink', meaning: 'direct NVLink connection, # link(s) bonded',
    currentLegend: 'Connection traversing a bonded set of # NVLinks', olderLegends: [], nvmlLevel: null, ncclPath: 'NVL',
  },
  {
    legendToken: 'PIX', kind: 'pcie', meaning: 'PCIe through at most one PCIe bridge (the same PCIe switch)',
    currentLegend: 'Connection traversing at most a single PCIe bridge',
    olderLegends: ['Connection traversing a single PCIe switch', 'Path traverses a PCIe internal switch'],
    nvmlLevel: NVML_LEVEL.SINGLE, ncclPath: 'PIX',
  },
  {
    legendToken: 'PXB', kind: 'pcie', meaning: 'PCIe through several PCIe bridges/switches, without passing the CPU host bridge',
    currentLegend: 'Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)',
    olderLegends: ['Connection traversing multiple PCIe switches (without traversing the PCIe Host Bridge)',
      'Path traverses multiple PCIe internal switches'],
    nvmlLevel: NVML_LEVEL.MULTIPLE, ncclPath: 'PXB',
  },
  {
    legendToken: 'PHB', kind: 'pcie', meaning: 'PCIe through a PCIe host bridge, i.e. through the CPU',
    currentLegend: 'Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)',
    olderLegends: ['Path traverses a PCIe host bridge'],
    nvmlLevel: NVML_LEVEL.HOSTBRIDGE, ncclPath: 'PHB',
  },
  {
    legendToken: 'NODE', kind: 'pcie', meaning: 'PCIe between different PCIe host bridges of the same NUMA node',
    currentLegend: 'Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node',
    olderLegends: [], nvmlLevel: NVML_LEVEL.NODE, ncclPath: 'PHB',
  },
  {
    legendToken: 'SYS', kind: 'pcie', meaning: 'PCIe plus the interconnect between NUMA nodes: QPI/UPI between sockets, or Infinity Fabric between the NUMA nodes of one EPYC socket (NPS2/NPS4)',
    currentLegend: 'Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)',
    olderLegends: [], nvmlLevel: NVML_LEVEL.SYSTEM, ncclPath: 'SYS',
  },
  {
    legendToken: 'SOC', kind: 'pcie', meaning: 'older drivers\' name for SYS: PCIe plus the link between CPU sockets (QPI)',
    currentLegend: null,
    olderLegends: ['Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)',
      'Path traverses a socket-level link (e.g. QPI)'],
    nvmlLevel: NVML_LEVEL.SYSTEM, ncclPath: 'SYS',
  },
];

const BY_LEGEND_TOKEN = new Map(KNOWN_LINK_TYPES.map((info) => [info.legendToken, info]));
const NVLINK_TOKEN = /^NV(\d+)$/;

/** A token as printed in a matrix cell, with what is known about it. */
export interface LinkClass extends LinkTypeInfo {
  /** The cell as printed, e.g. `NV12`. */
  readonly token: string;
  /** Number of bonded NVLinks for `NV<n>`; null otherwise. */
  readonly nvlinkCount: number | null;
}

/** Every known legend entry, in the order nvidia-smi lists them (current drivers), then SOC. */
export function knownLinkTypes(): readonly LinkTypeInfo[] {
  return KNOWN_LINK_TYPES;
}

/** Classifies one matrix cell. Unknown tokens (a future `C2C`, say) come back with kind `unknown`. */
export function classifyLink(token: string): LinkClass {
  const nvlink = NVLINK_TOKEN.exec(token);
  const info = nvlink ? BY_LEGEND_TOKEN.get('NV#') : BY_LEGEND_TOKEN.get(token);
  const known = info ?? unknownLinkType(token);
  return {
    ...known,
    token,
    nvlinkCount: nvlink ? Number(nvlink[1]) : null,
  };
}

/** One plain line for a cell, e.g. `NV12: direct NVLink connection (a bonded set of 12 NVLinks)`. */
export function describeLink(token: string): string {
  return `${token}: ${linkMeaning(token)}`;
}

/** The plain meaning of a cell, with `#` replaced by the NVLink count for `NV<n>`. */
export function linkMeaning(token: string): string {
  const link = classifyLink(token);
  const meaning = meaningText(link);
  return link.nvlinkCount === null ? meaning : meaning.replace('#', String(link.nvlinkCount));
}

/** A link type's `meaning` in the reader's language (the data above keeps the English). */
export function meaningText(info: LinkTypeInfo): string {
  switch (info.kind === 'unknown' ? '' : info.legendToken) {
    case 'X': return t('the device itself');
    case 'NV#': return t('direct NVLink connection, # link(s) bonded');
    case 'PIX': return t('PCIe through at most one PCIe bridge (the same PCIe switch)');
    case 'PXB': return t('PCIe through several PCIe bridges/switches, without passing the CPU host bridge');
    case 'PHB': return t('PCIe through a PCIe host bridge, i.e. through the CPU');
    case 'NODE': return t('PCIe between different PCIe host bridges of the same NUMA node');
    case 'SYS': return t('PCIe plus the interconnect between NUMA nodes: QPI/UPI between sockets, or Infinity Fabric between the NUMA nodes of one EPYC socket (NPS2/NPS4)');
    case 'SOC': return t('older drivers\' name for SYS: PCIe plus the link between CPU sockets (QPI)');
    default: return t('a link type this tool does not know (newer driver?); see the legend printed under the matrix');
  }
}

function unknownLinkType(token: string): LinkTypeInfo {
  return {
    legendToken: token, kind: 'unknown',
    meaning: 'a link type this tool does not know (newer driver?); see the legend printed under the matrix',
    currentLegend: null, olderLegends: [], nvmlLevel: null, ncclPath: null,
  };
}
