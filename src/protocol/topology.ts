// Messages between the topology webview and the extension, and the type guards both sides run on
// every message they receive: a webview is a browser page, so neither end trusts the other's JSON.
// No VS Code and no DOM here: both sides (and the unit tests) import this file.

/** CSS class of a matrix cell / legend entry; the webview colours by it. */
export const LINK_CLASS_NAMES = ['self', 'nvlink', 'pix', 'pxb', 'phb', 'node', 'sys', 'unknown'] as const;
export type LinkClassName = (typeof LINK_CLASS_NAMES)[number];

/** What one link token means, worded by the extension (core/topology/linkTypes.ts). */
export interface LinkExplanation {
  /** As printed: `NV18`, `PXB`, `X`. */
  readonly token: string;
  readonly linkClass: LinkClassName;
  /** Plain words. */
  readonly meaning: string;
  /** NCCL's default GPUDirect RDMA verdict for a GPU↔NIC path of this type. */
  readonly gdrVerdict: string;
}

export interface GpuDetail {
  readonly name: string;
  /** `link` was derived from the sysfs PCI tree: `nvidia-smi topo -m` was not read. */
  readonly linkDerived: boolean;
  readonly numaNode: string | null;
  readonly cpus: string | null;
  /** The NIC(s) NCCL gives this GPU, `NIC3 (mlx5_3)`; ties kept. */
  readonly nearestNics: string[];
  /** Column names of those NICs, for highlighting (with PXN: the NICs reached through the proxy GPU). */
  readonly nearestNicColumns: string[];
  readonly link: string | null;
  /** Whether NCCL uses GPUDirect RDMA for this GPU (both directions); null when unknown. */
  readonly gdr: boolean | null;
  /** The verdict in a few words (`GDR yes via GPU0 (PXN)`), as the tree and the CLI say it. */
  readonly verdict: string;
  /** The path class NCCL ends up with (PXN, P2C, PIX…), or null without a NIC. */
  readonly ncclPath: string | null;
  /** PXN: the GPU that relays this GPU's sends to the NIC over NVLink. */
  readonly proxyGpu: string | null;
  readonly reason: string;
  /** How to see the verdict in NCCL's own log. */
  readonly confirm: string;
  /** `NCCL_IB_HCA`'s value for a job on this GPU alone (`=mlx5_0:1`); null without a named NIC. */
  readonly ncclIbHca: string | null;
  /** The same as a shell assignment, quoted, for the clipboard: `NCCL_IB_HCA='=mlx5_0:1'`. */
  readonly ncclIbHcaShell: string | null;
  /** `numactl --cpunodebind=0 --membind=0`; null when the node is unknown. */
  readonly pinning: string | null;
  /** The host's last GPUDirect RDMA proof of this GPU (Prove GPUDirect RDMA); absent or null when none. */
  readonly proof?: ProofDetail | null;
}

/** What perftest measured for one GPU, worded by the extension. */
export interface ProofDetail {
  /** `GPUDirect RDMA works at 91 % of line rate with peermem (host memory: 98 %)`, or why not. */
  readonly verdict: string;
  readonly tone: 'ok' | 'warning' | 'error' | 'unknown';
  /** One line per mode: `peermem 181.46 Gb/s of 200 (91 %)`. */
  readonly modes: string[];
  /** When, in words. */
  readonly measured: string;
}

export interface NicInfo {
  readonly name: string;
  readonly device: string | null;
}

export const TREE_NODE_KINDS = ['cpu', 'host-bridge', 'switch', 'gpu', 'nvswitch', 'nic', 'device'] as const;
export type TreeNodeKind = (typeof TREE_NODE_KINDS)[number];

/** The PCIe link between a tree node and its parent. */
export interface TreeLinkData {
  /** As it runs: `Gen5 x16`. */
  readonly text: string;
  /** What the device can run: `Gen5 x16`. */
  readonly max: string;
  /** Trained below the device's maximum speed or width. */
  readonly degraded: boolean;
  readonly explanation: string;
}

/** One part of the real PCIe tree (core/topology/pcie/tree.ts), worded by the extension. */
export interface TreeNodeData {
  /** `cpu:0`, `pci0000:15`, or a bus address. */
  readonly id: string;
  readonly kind: TreeNodeKind;
  readonly parent: string | null;
  readonly label: string;
  readonly detail: string;
  /** What it is and what it means for GPUDirect RDMA. */
  readonly explanation: string;
  readonly numaNode: string | null;
  /** GPUs and NICs: their matrix column (`GPU0`, `NIC3`), how the verdicts name them. */
  readonly column: string | null;
  /** Bus addresses this node stands for (a switch: its upstream and downstream ports), for `marks`. */
  readonly bridges: string[];
  readonly link: TreeLinkData | null;
}

/** A note on one bridge of the tree (ACS redirecting peer-to-peer traffic, …), drawn on the node that holds it. */
export interface BridgeMark {
  /** Bus address of the bridge (`0000:17:00.0`). */
  readonly bridge: string;
  /** A few characters on the node: `ACS`. */
  readonly label: string;
  readonly explanation: string;
}

export interface PcieTreeData {
  /** Parents before their children. */
  readonly nodes: TreeNodeData[];
  readonly marks: BridgeMark[];
}

export interface GraphData {
  readonly numaNodes: { readonly node: string | null; readonly groups: { readonly id: string; readonly devices: string[] }[] }[];
  readonly nvlinks: { readonly a: string; readonly b: string; readonly token: string }[];
  /** The real PCIe tree from sysfs; null where sysfs was not read (the graph is then inferred from the matrix). */
  readonly tree: PcieTreeData | null;
  /** GPUs joined to their Grace CPU by NVLink-C2C. */
  readonly c2cGpus: string[];
}

export interface TopologyData {
  /** Panel heading: a host label or a file name. */
  readonly title: string;
  /** Where it came from, in words (`diagnosed 13:02`, `editor selection`). */
  readonly source: string;
  readonly gpus: GpuDetail[];
  readonly nics: NicInfo[];
  /** Device names in printed order; rows and columns of `cells`. */
  readonly columns: string[];
  /** `cells[row][column]`: token as printed, or null where the output has no such row. */
  readonly cells: (string | null)[][];
  /** One per distinct token of the matrix, legend order. */
  readonly explanations: LinkExplanation[];
  readonly graph: GraphData;
  /** Suggested job environment for the whole host (`NCCL_IB_HCA`, …); `shell` the quoted assignment the Copy button copies. */
  readonly env: { readonly name: string; readonly value: string; readonly shell: string }[];
  /** The matrix was derived from the sysfs PCI tree (`nvidia-smi topo -m` was not read): PCIe distances only, no NVLink. */
  readonly derived: boolean;
}

/**
 * The display language's translations (vscode.l10n.bundle: key = English text), sent before the first
 * `topology` message; the webview's own words are looked up in it. Empty: English.
 */
export type L10nBundle = Readonly<Record<string, string>>;

export type ExtensionToWebview =
  | { readonly type: 'l10n'; readonly bundle: L10nBundle }
  | { readonly type: 'topology'; readonly data: TopologyData }
  | { readonly type: 'copied'; readonly label: string };

export type WebviewToExtension = { readonly type: 'ready' } | { readonly type: 'copy'; readonly label: string; readonly text: string };

/** Far above a real host (tens of devices): a bigger message is refused, not drawn. */
const MAX_DEVICES = 512;
const MAX_TEXT = 64 * 1024;
/** Far above the extension's own strings: a bigger bundle is refused (the webview stays in English). */
const MAX_BUNDLE_ENTRIES = 20_000;

type Guard<T> = (x: unknown) => x is T;

const isText: Guard<string> = (x): x is string => typeof x === 'string' && x.length <= MAX_TEXT;
const isTextOrNull: Guard<string | null> = (x): x is string | null => x === null || isText(x);
const isBoolOrNull = (x: unknown): x is boolean | null => x === null || typeof x === 'boolean';
const PROOF_TONES: readonly string[] = ['ok', 'warning', 'error', 'unknown'];
const isProofTone = (x: unknown): x is ProofDetail['tone'] => typeof x === 'string' && PROOF_TONES.includes(x);

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function arrayOf<T>(guard: Guard<T>, max = MAX_DEVICES): Guard<T[]> {
  return (x): x is T[] => Array.isArray(x) && x.length <= max && x.every(guard);
}

/** An object whose listed fields each pass their guard (extra fields are ignored, not trusted). */
function shape<T>(fields: Record<string, Guard<unknown>>): Guard<T> {
  return (x): x is T => isObject(x) && Object.entries(fields).every(([key, guard]) => guard(x[key]));
}

const isLinkClass = (x: unknown): x is LinkClassName => LINK_CLASS_NAMES.includes(x as LinkClassName);
const isExplanation = shape<LinkExplanation>({ token: isText, linkClass: isLinkClass, meaning: isText, gdrVerdict: isText });
const isProofDetail = shape<ProofDetail>({ verdict: isText, tone: isProofTone, modes: arrayOf(isText, 8), measured: isText });
const isProofOrAbsent = (x: unknown): x is ProofDetail | null | undefined => x === undefined || x === null || isProofDetail(x);
const isBool = (x: unknown): x is boolean => typeof x === 'boolean';
const isGpuDetail = shape<GpuDetail>({
  name: isText,
  linkDerived: isBool,
  numaNode: isTextOrNull,
  cpus: isTextOrNull,
  nearestNics: arrayOf(isText),
  nearestNicColumns: arrayOf(isText),
  link: isTextOrNull,
  gdr: isBoolOrNull,
  verdict: isText,
  ncclPath: isTextOrNull,
  proxyGpu: isTextOrNull,
  reason: isText,
  confirm: isText,
  ncclIbHca: isTextOrNull,
  ncclIbHcaShell: isTextOrNull,
  pinning: isTextOrNull,
  proof: isProofOrAbsent,
});
const isNic = shape<NicInfo>({ name: isText, device: isTextOrNull });
const isGroup = shape({ id: isText, devices: arrayOf(isText) });
const isTreeKind = (x: unknown): x is TreeNodeKind => TREE_NODE_KINDS.includes(x as TreeNodeKind);
const isTreeLink = shape<TreeLinkData>({ text: isText, max: isText, degraded: isBool, explanation: isText });
const isTreeNode = shape<TreeNodeData>({
  id: isText,
  kind: isTreeKind,
  parent: isTextOrNull,
  label: isText,
  detail: isText,
  explanation: isText,
  numaNode: isTextOrNull,
  column: isTextOrNull,
  bridges: arrayOf(isText),
  link: (x): x is TreeLinkData | null => x === null || isTreeLink(x),
});
const isMark = shape<BridgeMark>({ bridge: isText, label: (x): x is string => isText(x) && x.length <= 8, explanation: isText });
/** Every parent is an earlier node: the webview lays the tree out in one pass and never loops. */
function isPcieTree(x: unknown): x is PcieTreeData {
  if (!shape<PcieTreeData>({ nodes: arrayOf(isTreeNode, MAX_DEVICES * 4), marks: arrayOf(isMark, MAX_DEVICES * 4) })(x)) return false;
  const seen = new Set<string>();
  return x.nodes.every((n) => {
    const fine = !seen.has(n.id) && (n.parent === null || seen.has(n.parent));
    seen.add(n.id);
    return fine;
  });
}
const isGraph = shape<GraphData>({
  numaNodes: arrayOf(shape({ node: isTextOrNull, groups: arrayOf(isGroup) })),
  nvlinks: arrayOf(shape({ a: isText, b: isText, token: isText }), MAX_DEVICES * MAX_DEVICES),
  tree: (x): x is PcieTreeData | null => x === null || isPcieTree(x),
  c2cGpus: arrayOf(isText),
});
const isEnvEntry = shape({ name: isText, value: isText, shell: isText });

export function isTopologyData(x: unknown): x is TopologyData {
  if (
    !shape<TopologyData>({
      title: isText,
      source: isText,
      gpus: arrayOf(isGpuDetail),
      nics: arrayOf(isNic),
      columns: arrayOf(isText),
      cells: arrayOf(arrayOf(isTextOrNull)),
      explanations: arrayOf(isExplanation),
      graph: isGraph,
      env: arrayOf(isEnvEntry),
      derived: isBool,
    })(x)
  )
    return false;
  // The matrix must be square over `columns`, or the webview would index past a row.
  return x.cells.length === x.columns.length && x.cells.every((row) => row.length === x.columns.length);
}

export function isL10nBundle(x: unknown): x is L10nBundle {
  if (!isObject(x)) return false;
  const entries = Object.entries(x);
  return entries.length <= MAX_BUNDLE_ENTRIES && entries.every(([key, value]) => isText(key) && isText(value));
}

export function isExtensionToWebview(x: unknown): x is ExtensionToWebview {
  if (!isObject(x)) return false;
  if (x.type === 'l10n') return isL10nBundle(x.bundle);
  if (x.type === 'topology') return isTopologyData(x.data);
  if (x.type === 'copied') return isText(x.label);
  return false;
}

export function isWebviewToExtension(x: unknown): x is WebviewToExtension {
  if (!isObject(x)) return false;
  if (x.type === 'ready') return true;
  if (x.type === 'copy') return isText(x.label) && x.label.length <= 200 && isText(x.text);
  return false;
}
