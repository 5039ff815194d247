// Geometry of the graph, to fit the panel: one panel per NUMA node (its CPU the header), its tree drawn
// top-down inside with every GPU and NIC on the last row; panels in a grid whose column count gives the
// largest scale that fits the box. Grid rows pair up around an NVLink band: the upper row's leaves sit
// at its bottom, the lower row is mirrored so its leaves face the band too, and each NVLink hub is a bar
// in the band that every member GPU drops a short line to. Pure: positions in natural units plus the
// scale that fits them into the box (never below MIN_SCALE: then the panel scrolls instead).
import { Grid, balancedChunks, grid } from './graphGrid';
import type { GraphModel, GraphNode } from './graphModel';
import { Box, Rect, SIZE, SPLIT_BELOW } from './graphSizes';

export interface PlacedNode extends Rect {
  readonly id: string;
  /** Leaves face the band below (false) or above (true, a mirrored panel). */
  readonly mirrored: boolean;
}

export interface NumaPanel extends Rect {
  /** The CPU's id for its first part, `<cpu>#2`… for further parts of a NUMA node drawn in several. */
  readonly id: string;
  readonly cpu: string;
  readonly part: number;
  readonly parts: number;
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
  /** The panel each placed node is drawn in. */
  readonly panelOf: ReadonlyMap<string, NumaPanel>;
  /** x of the C2C lane beside each node of a subtree that keeps one. */
  readonly laneOf: ReadonlyMap<string, number>;
  readonly bands: readonly Rect[];
  readonly hubs: readonly HubPlacement[];
  /** x of the lane left of the panels where links between CPUs run. */
  readonly gutter: number;
}

const LEAF_KINDS = new Set(['gpu', 'nic', 'nvswitch', 'device']);

interface Tree {
  readonly byId: ReadonlyMap<string, GraphNode>;
  readonly children: ReadonlyMap<string, GraphNode[]>;
  readonly cpus: readonly GraphNode[];
  /** Row of every node below its CPU (host bridges 0); leaves share the last row. */
  readonly rowOf: ReadonlyMap<string, number>;
  readonly rows: number;
  /** Subtrees below a CPU holding a GPU with NVLink-C2C: each gets a lane on its left for that link. */
  readonly lanes: ReadonlySet<string>;
}

export function layoutGraph(model: GraphModel, box: Box): GraphLayout {
  const tree = treeOf(model.nodes, model.c2c);
  const widths = subtreeWidths(tree);
  const bandH =
    model.hubs.length + model.nvlinks.length === 0
      ? SIZE.gridGap
      : SIZE.band + model.hubs.length * (SIZE.barH + SIZE.barGap) + (model.nvlinks.length > 0 ? 16 : 0);
  // A NUMA node is drawn whole unless that makes its text too small; then in as few parts as make it readable.
  let best: { parts: PanelPart[]; grid: Grid } | null = null;
  for (const split of [1, 2, 3]) {
    if (best && best.grid.scale >= SPLIT_BELOW) break;
    const parts = panelParts(tree, widths, split);
    if (best && parts.length === best.parts.length) continue;
    const grids = Array.from({ length: parts.length }, (_, i) => grid(parts, i + 1, bandH, box));
    const candidate = grids.reduce((a, b) => (b.rank > a.rank + 1e-9 || (Math.abs(b.rank - a.rank) < 1e-9 && b.shape < a.shape) ? b : a));
    if (!best || candidate.rank > best.grid.rank + 0.1) best = { parts, grid: candidate };
  }
  if (!best) throw new Error('no layout');
  const { parts, grid: chosen } = best;
  const nodes = new Map<string, PlacedNode>();
  const panelOf = new Map<string, NumaPanel>();
  const laneOf = new Map<string, number>();
  const panels = parts.map((part, i) => {
    const at = chosen.at[i];
    const panel: NumaPanel = {
      id: part.id,
      cpu: part.cpu.id,
      part: part.part,
      parts: part.parts,
      x: at.x,
      y: at.y,
      w: at.w,
      h: at.h,
      mirrored: at.row % 2 === 1,
    };
    const used = part.children.reduce((total, k) => total + (widths.get(k.id) ?? 0), 0);
    let x = at.x + (at.w - used) / 2;
    for (const child of part.children) {
      placeSubtree(tree, widths, child, { x, panel, mirrored: panel.mirrored }, nodes, panelOf, laneOf);
      x += widths.get(child.id) ?? 0;
    }
    return panel;
  });
  const hubs = model.hubs.map((hub, i) => hubPlacement(hub.id, hub.members, i, model, nodes, chosen.bands, chosen.width));
  return {
    width: chosen.width,
    height: chosen.height,
    scale: chosen.scale,
    columns: chosen.columns,
    nodes,
    panels,
    panelOf,
    laneOf,
    bands: chosen.bands,
    hubs,
    gutter: SIZE.gutter / 2,
  };
}

interface PanelPart {
  readonly id: string;
  readonly cpu: GraphNode;
  readonly part: number;
  readonly parts: number;
  readonly children: readonly GraphNode[];
  readonly w: number;
  readonly h: number;
}

/** Each CPU's subtrees in up to `split` panels of about equal width, in order. */
function panelParts(tree: Tree, widths: ReadonlyMap<string, number>, split: number): PanelPart[] {
  const h = SIZE.head + tree.rows * (SIZE.nodeH + SIZE.rowGap) - SIZE.rowGap + 2 * SIZE.pad;
  return tree.cpus.flatMap((cpu) => {
    const kids = tree.children.get(cpu.id) ?? [];
    const chunks = balancedChunks(
      kids.map((k) => widths.get(k.id) ?? 0),
      Math.max(1, Math.min(split, kids.length)),
    );
    return chunks.map((range, part) => {
      const children = kids.slice(range[0], range[1]);
      const w =
        Math.max(
          children.reduce((t, k) => t + (widths.get(k.id) ?? 0), 0),
          textWidth(`${cpu.label} · ${cpu.sublabel}`) + 40,
        ) +
        2 * SIZE.pad;
      return { id: part === 0 ? cpu.id : `${cpu.id}#${part + 1}`, cpu, part, parts: chunks.length, children, w, h };
    });
  });
}

function treeOf(nodes: readonly GraphNode[], c2c: readonly string[]): Tree {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string, GraphNode[]>();
  for (const n of nodes) if (n.parent !== null && byId.has(n.parent)) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  const depth = new Map<string, number>();
  for (const n of nodes) depth.set(n.id, n.parent === null || !byId.has(n.parent) ? -1 : (depth.get(n.parent) ?? -1) + 1);
  const internal = nodes.filter((n) => !LEAF_KINDS.has(n.kind) && n.kind !== 'cpu').map((n) => depth.get(n.id) ?? 0);
  const leafRow = internal.length === 0 ? 0 : Math.max(...internal) + 1;
  const rowOf = new Map(nodes.map((n) => [n.id, LEAF_KINDS.has(n.kind) ? leafRow : (depth.get(n.id) ?? 0)]));
  const cpus = nodes.filter((n) => n.parent === null || !byId.has(n.parent));
  const lanes = new Set(
    nodes
      .filter((n) => n.column !== null && c2c.includes(n.column))
      .map((n) => {
        // Up to the node just below the CPU.
        let top = n;
        for (let up = byId.get(top.parent ?? ''); up !== undefined && up.parent !== null; up = byId.get(up.parent)) top = up;
        return top.id;
      }),
  );
  return { byId, children, cpus, rowOf, rows: leafRow + 1, lanes };
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
    widths.set(n.id, Math.max(own, sum) + (tree.lanes.has(n.id) ? SIZE.lane : 0));
    return widths.get(n.id) as number;
  };
  for (const cpu of tree.cpus) measure(cpu);
  return widths;
}

interface Placement {
  readonly x: number;
  readonly panel: NumaPanel;
  readonly mirrored: boolean;
  /** x of the C2C lane of the subtree being placed, if it has one. */
  readonly lane?: number;
}

function placeSubtree(
  tree: Tree,
  widths: ReadonlyMap<string, number>,
  n: GraphNode,
  from: Placement,
  out: Map<string, PlacedNode>,
  panelOf: Map<string, NumaPanel>,
  laneOf: Map<string, number>,
): void {
  const lane = tree.lanes.has(n.id) ? SIZE.lane : 0;
  const at = { ...from, x: from.x + lane, lane: lane > 0 ? from.x + lane / 2 : from.lane };
  const width = (widths.get(n.id) ?? 0) - lane;
  if (at.lane !== undefined) laneOf.set(n.id, at.lane);
  const w = nodeWidth(n);
  const row = tree.rowOf.get(n.id) ?? 0;
  const top = at.panel.y + SIZE.head + SIZE.pad + row * (SIZE.nodeH + SIZE.rowGap);
  const y = at.mirrored ? at.panel.y + at.panel.h - (top - at.panel.y) - SIZE.nodeH : top;
  out.set(n.id, { id: n.id, x: at.x + (width - w) / 2, y, w, h: SIZE.nodeH, mirrored: at.mirrored });
  panelOf.set(n.id, at.panel);
  const kids = tree.children.get(n.id) ?? [];
  const used = kids.reduce((total, k) => total + (widths.get(k.id) ?? 0), 0);
  let x = at.x + (width - used) / 2;
  for (const k of kids) {
    placeSubtree(tree, widths, k, { ...at, x }, out, panelOf, laneOf);
    x += widths.get(k.id) ?? 0;
  }
}

function hubPlacement(
  hub: string,
  members: readonly string[],
  index: number,
  model: GraphModel,
  nodes: ReadonlyMap<string, PlacedNode>,
  bands: readonly Rect[],
  width: number,
): HubPlacement {
  const placed = members
    .map((m) => model.nodes.find((n) => n.column === m))
    .map((n) => (n ? nodes.get(n.id) : undefined))
    .filter((p): p is PlacedNode => p !== undefined);
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
