// Geometry of the graph, to fit the panel: one panel per NUMA node (its CPU the header), its tree drawn
// top-down inside with every GPU and NIC on the last row; panels in a grid whose column count gives the
// largest scale that fits the box. Grid rows pair up around an NVLink band: the upper row's leaves sit
// at its bottom, the lower row is mirrored so its leaves face the band too, and each NVLink hub is a bar
// in the band that every member GPU drops a short line to. Pure: positions in natural units plus the
// scale that fits them into the box (never below MIN_SCALE: then the panel scrolls instead).
import type { GraphModel, GraphNode } from './graphModel';

export interface Box { readonly width: number; readonly height: number }
export interface Rect { readonly x: number; readonly y: number; readonly w: number; readonly h: number }

export interface PlacedNode extends Rect {
  readonly id: string;
  /** Leaves face the band below (false) or above (true, a mirrored panel). */
  readonly mirrored: boolean;
}

export interface NumaPanel extends Rect {
  readonly cpu: string;
  readonly mirrored: boolean;
}

export interface HubPlacement {
  readonly hub: string;
  /** One bar per band holding members. */
  readonly bars: readonly Rect[];
  /** Joins the bars of a hub whose members sit around several bands (x, top, bottom); null with one bar. */
  readonly spine: { readonly x: number; readonly y1: number; readonly y2: number } | null;
}

export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  /** Shown size = natural size × scale. */
  readonly scale: number;
  readonly columns: number;
  readonly nodes: ReadonlyMap<string, PlacedNode>;
  readonly panels: readonly NumaPanel[];
  readonly bands: readonly Rect[];
  readonly hubs: readonly HubPlacement[];
  /** x of the lane left of the panels where links between CPUs run. */
  readonly gutter: number;
}

export const SIZE = {
  leafW: 64, nodeH: 30, gapX: 6, rowGap: 24, head: 20, pad: 8, gutter: 16, gridGap: 10, band: 18, barH: 8, barGap: 10, charW: 6.4,
} as const;
/** Text below about 7 px is not readable: scroll rather than shrink further. */
export const MIN_SCALE = 0.62;

const LEAF_KINDS = new Set(['gpu', 'nic', 'nvswitch', 'device']);

interface Tree {
  readonly byId: ReadonlyMap<string, GraphNode>;
  readonly children: ReadonlyMap<string, GraphNode[]>;
  readonly cpus: readonly GraphNode[];
  /** Row of every node below its CPU (host bridges 0); leaves share the last row. */
  readonly rowOf: ReadonlyMap<string, number>;
  readonly rows: number;
}

export function layoutGraph(model: GraphModel, box: Box): GraphLayout {
  const tree = treeOf(model.nodes);
  const widths = subtreeWidths(tree);
  const sizes = tree.cpus.map((cpu) => ({
    w: Math.max(widths.get(cpu.id) ?? 0, textWidth(cpu.label) + 80) + 2 * SIZE.pad,
    h: SIZE.head + tree.rows * (SIZE.nodeH + SIZE.rowGap) - SIZE.rowGap + 2 * SIZE.pad,
  }));
  const bandH = model.hubs.length + model.nvlinks.length === 0 ? SIZE.gridGap : SIZE.band + model.hubs.length * (SIZE.barH + SIZE.barGap) + (model.nvlinks.length > 0 ? 16 : 0);
  const grids = Array.from({ length: Math.max(1, sizes.length) }, (_, i) => grid(sizes, i + 1, bandH, box));
  const best = grids.reduce((a, b) => (b.rank > a.rank + 1e-9 || (Math.abs(b.rank - a.rank) < 1e-9 && b.shape < a.shape) ? b : a));
  const nodes = new Map<string, PlacedNode>();
  const panels = tree.cpus.map((cpu, i) => {
    const at = best.at[i];
    const mirrored = at.row % 2 === 1;
    placeSubtree(tree, widths, cpu, { x: at.x + SIZE.pad, panel: { ...at, w: at.w, h: at.h }, mirrored }, nodes);
    return { cpu: cpu.id, x: at.x, y: at.y, w: at.w, h: at.h, mirrored };
  });
  const hubs = model.hubs.map((hub, i) => hubPlacement(hub.id, hub.members, i, model, nodes, best.bands, best.width));
  return { width: best.width, height: best.height, scale: best.scale, columns: best.columns, nodes, panels, bands: best.bands, hubs, gutter: SIZE.gutter / 2 };
}

function treeOf(nodes: readonly GraphNode[]): Tree {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string, GraphNode[]>();
  for (const n of nodes) if (n.parent !== null && byId.has(n.parent)) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  const depth = new Map<string, number>();
  for (const n of nodes) depth.set(n.id, n.parent === null || !byId.has(n.parent) ? -1 : (depth.get(n.parent) ?? -1) + 1);
  const internal = nodes.filter((n) => !LEAF_KINDS.has(n.kind) && n.kind !== 'cpu').map((n) => depth.get(n.id) ?? 0);
  const leafRow = internal.length === 0 ? 0 : Math.max(...internal) + 1;
  const rowOf = new Map(nodes.map((n) => [n.id, LEAF_KINDS.has(n.kind) ? leafRow : depth.get(n.id) ?? 0]));
  const cpus = nodes.filter((n) => n.parent === null || !byId.has(n.parent));
  return { byId, children, cpus, rowOf, rows: leafRow + 1 };
}

export function nodeWidth(n: GraphNode): number {
  if (LEAF_KINDS.has(n.kind)) return Math.max(SIZE.leafW, textWidth(n.label) + 12, textWidth(n.sublabel) * 0.9 + 12);
  return Math.max(SIZE.leafW, textWidth(n.label) + 14, textWidth(n.sublabel) + 14);
}

function textWidth(text: string): number {
  return text.length * SIZE.charW;
}

function subtreeWidths(tree: Tree): Map<string, number> {
  const widths = new Map<string, number>();
  const measure = (n: GraphNode): number => {
    const kids = tree.children.get(n.id) ?? [];
    const sum = kids.reduce((total, k) => total + measure(k), 0);
    const own = n.kind === 'cpu' ? 0 : nodeWidth(n) + SIZE.gapX;
    widths.set(n.id, Math.max(own, sum));
    return widths.get(n.id) as number;
  };
  for (const cpu of tree.cpus) measure(cpu);
  return widths;
}

interface Grid {
  readonly columns: number;
  readonly width: number;
  readonly height: number;
  readonly scale: number;
  /** Higher is better: fits the whole box (1 + scale) before fitting the width alone (scale). */
  readonly rank: number;
  /** How far the grid's aspect is from the box's (ties between equal scales). */
  readonly shape: number;
  readonly at: readonly (Rect & { row: number })[];
  readonly bands: readonly Rect[];
}

function grid(sizes: readonly { w: number; h: number }[], columns: number, bandH: number, box: Box): Grid {
  const rows = Math.max(1, Math.ceil(sizes.length / columns));
  const colW = Array.from({ length: columns }, (_, c) => Math.max(0, ...sizes.filter((_, i) => i % columns === c).map((s) => s.w)));
  const rowH = Array.from({ length: rows }, (_, r) => Math.max(0, ...sizes.filter((_, i) => Math.floor(i / columns) === r).map((s) => s.h)));
  const rowY: number[] = [];
  const bands: Rect[] = [];
  let y = 0;
  const width = SIZE.gutter + colW.reduce((a, b) => a + b, 0) + (columns - 1) * SIZE.gridGap + SIZE.gutter;
  for (let r = 0; r < rows; r++) {
    rowY.push(y);
    y += rowH[r];
    // A band below each upper row of a pair (and below a last unpaired row), a plain gap elsewhere.
    if (r % 2 === 0) {
      bands.push({ x: SIZE.gutter, y, w: width - 2 * SIZE.gutter, h: bandH });
      y += bandH;
    } else if (r < rows - 1) y += SIZE.gridGap;
  }
  const at = sizes.map((s, i) => {
    const c = i % columns;
    const r = Math.floor(i / columns);
    const x = SIZE.gutter + colW.slice(0, c).reduce((a, b) => a + b, 0) + c * SIZE.gridGap;
    // Mirrored rows hang from the band above: align their panels to the band.
    return { x, y: rowY[r] + (r % 2 === 1 ? 0 : rowH[r] - s.h), w: colW[c], h: s.h, row: r };
  });
  const both = Math.min(1, box.width / width, box.height / y);
  const across = Math.min(1, box.width / width);
  // Seeing everything at a readable size comes first; else fill the width and scroll down.
  const scale = both >= MIN_SCALE ? both : Math.max(MIN_SCALE, across);
  const rank = both >= MIN_SCALE ? 1 + both : across;
  return { columns, width, height: y, scale, rank, shape: Math.abs(Math.log(width / y / (box.width / box.height))), at, bands };
}

interface Placement {
  readonly x: number;
  readonly panel: Rect;
  readonly mirrored: boolean;
}

function placeSubtree(tree: Tree, widths: ReadonlyMap<string, number>, n: GraphNode, at: Placement, out: Map<string, PlacedNode>): void {
  const width = widths.get(n.id) ?? 0;
  if (n.kind !== 'cpu') {
    const w = nodeWidth(n);
    const row = tree.rowOf.get(n.id) ?? 0;
    const top = at.panel.y + SIZE.head + SIZE.pad + row * (SIZE.nodeH + SIZE.rowGap);
    const y = at.mirrored ? at.panel.y + at.panel.h - (top - at.panel.y) - SIZE.nodeH : top;
    out.set(n.id, { id: n.id, x: at.x + (width - w) / 2, y, w, h: SIZE.nodeH, mirrored: at.mirrored });
  }
  const kids = tree.children.get(n.id) ?? [];
  const used = kids.reduce((total, k) => total + (widths.get(k.id) ?? 0), 0);
  let x = at.x + (width - used) / 2;
  for (const k of kids) {
    placeSubtree(tree, widths, k, { ...at, x }, out);
    x += widths.get(k.id) ?? 0;
  }
}

function hubPlacement(
  hub: string, members: readonly string[], index: number, model: GraphModel, nodes: ReadonlyMap<string, PlacedNode>, bands: readonly Rect[], width: number,
): HubPlacement {
  const placed = members.map((m) => model.nodes.find((n) => n.column === m)).map((n) => (n ? nodes.get(n.id) : undefined)).filter((p): p is PlacedNode => p !== undefined);
  const bars: Rect[] = [];
  for (const band of bands) {
    const near = placed.filter((p) => bandOf(p, bands) === band);
    if (near.length === 0) continue;
    const left = Math.min(...near.map((p) => p.x + p.w / 2)) - 12;
    const right = Math.max(...near.map((p) => p.x + p.w / 2)) + 12;
    bars.push({ x: left, y: band.y + SIZE.band / 2 + index * (SIZE.barH + SIZE.barGap), w: right - left, h: SIZE.barH });
  }
  const spineX = width - SIZE.gutter / 2 - index * 4;
  const spine = bars.length > 1 ? { x: spineX, y1: bars[0].y + SIZE.barH / 2, y2: bars[bars.length - 1].y + SIZE.barH / 2 } : null;
  return { hub, bars: spine ? bars.map((b) => ({ ...b, w: spineX - b.x })) : bars, spine };
}

/** The band a leaf faces: the next band below it, or above it in a mirrored panel. */
export function bandOf(p: PlacedNode, bands: readonly Rect[]): Rect | undefined {
  return p.mirrored ? [...bands].reverse().find((b) => b.y + b.h <= p.y + 0.5) : bands.find((b) => b.y >= p.y + p.h - 0.5);
}
