// The lines of the graph: PCIe links of the tree (elbows, labelled with speed and width, degraded ones
// marked), NVLink hubs and single NVLinks in the bands, C2C links to the CPU, and the route NCCL uses
// for the selected GPU drawn over them. Each line explains itself on hover.
import { t } from '@vscode/l10n';
import { svg } from './dom';
import type { GraphLayout, NumaPanel, PlacedNode } from './graphLayout';
import { bandOf } from './graphLayout';
import { SIZE } from './graphSizes';
import type { GraphModel, GraphNode } from './graphModel';
import type { Route } from './graphRoutes';
import { Explained, flat } from './explain';

export interface EdgeEvents {
  explain(what: Explained): void;
}

export interface EdgeWords {
  hub(members: readonly string[], token: string): Explained;
  nvlink(a: string, b: string, token: string): Explained;
  c2c(gpu: string): Explained;
  sys(a: string, b: string): Explained;
  /** The route passes through one CPU drawn in two panel parts. */
  samecpu(cpu: string): Explained;
  pxn(gpu: string, proxy: string): Explained;
}

type Point = readonly [number, number];

/** Where a node meets the line to its parent: its top, or its bottom in a mirrored panel. */
function parentSide(p: PlacedNode): Point {
  return [p.x + p.w / 2, p.mirrored ? p.y + p.h : p.y];
}

function childSide(p: PlacedNode): Point {
  return [p.x + p.w / 2, p.mirrored ? p.y : p.y + p.h];
}

/** The CPU strip of a panel: its top, or its bottom when mirrored. */
export function headerOf(panel: NumaPanel): { y: number; h: number; edge: number } {
  const y = panel.mirrored ? panel.y + panel.h - SIZE.head : panel.y;
  return { y, h: SIZE.head, edge: panel.mirrored ? y : y + SIZE.head };
}

function hoverable<T extends SVGElement>(node: T, what: Explained, events: EdgeEvents): T {
  node.append(svg('title', {}, flat(what)));
  node.addEventListener('mouseenter', () => events.explain(what));
  return node;
}

export function treeEdges(model: GraphModel, layout: GraphLayout, route: Route | null, events: EdgeEvents): SVGGElement {
  const layer = svg('g', { class: 'tree-edges' });
  const labels = svg('g', { class: 'link-labels' });
  for (const node of model.nodes) {
    const at = layout.nodes.get(node.id);
    if (!at || node.parent === null) continue;
    const parent = layout.nodes.get(node.parent);
    const panel = layout.panelOf.get(node.id);
    const [cx, cy] = parentSide(at);
    let d: string;
    if (parent) {
      const [px, py] = childSide(parent);
      const turn = py + (at.mirrored ? -7 : 7);
      d = `M ${px} ${py} V ${turn} H ${cx} V ${cy}`;
    } else if (panel) d = `M ${cx} ${headerOf(panel).edge} V ${cy}`;
    else continue;
    const classes = [
      'pcie-edge',
      node.link?.degraded ? 'degraded' : '',
      route?.uplinks.has(node.id) ? 'route' : '',
      node.marks.length > 0 ? 'marked' : '',
    ];
    const text = node.link?.explanation ?? t('{0}: the link to its parent (no link attributes in sysfs).', node.label);
    layer.append(hoverable(svg('path', { class: classes.filter(Boolean).join(' '), d, 'data-edge': node.id }), { lead: text }, events));
    if (node.link) labels.append(linkLabel(node, at));
  }
  return svg('g', {}, layer, labels);
}

function linkLabel(node: GraphNode, at: PlacedNode): SVGTextElement {
  const [x, y] = parentSide(at);
  const cls = node.link?.degraded ? 'link-label degraded' : 'link-label';
  return svg(
    'text',
    { class: cls, x: x + 3, y: at.mirrored ? y + 11 : y - 4, 'text-anchor': 'start' },
    node.link?.degraded ? `${node.link.text} ⚠` : (node.link?.text ?? ''),
  );
}

export function nvlinkLines(model: GraphModel, layout: GraphLayout, words: EdgeWords, events: EdgeEvents): SVGGElement {
  const layer = svg('g', { class: 'nvlinks' });
  const placed = (column: string) => {
    const node = model.nodes.find((n) => n.column === column);
    return node ? layout.nodes.get(node.id) : undefined;
  };
  for (const hub of model.hubs) {
    const at = layout.hubs.find((h) => h.hub === hub.id);
    if (!at) continue;
    const text = words.hub(hub.members, hub.token);
    const group = hoverable(svg('g', { class: 'nvlink-hub', tabindex: '-1', 'data-hub': hub.id }), text, events);
    for (const member of hub.members) {
      const p = placed(member);
      const bar = p ? at.bars.find((b) => bandContains(layout, p, b)) : undefined;
      if (!p || !bar) continue;
      const [x, y] = childSide(p);
      group.append(svg('line', { class: 'nvlink-drop', x1: x, y1: y, x2: x, y2: p.mirrored ? bar.y + bar.h : bar.y }));
    }
    for (const bar of at.bars) group.append(svg('rect', { class: 'hub-bar', x: bar.x, y: bar.y, width: bar.w, height: bar.h, rx: 3 }));
    if (at.spine) group.append(svg('line', { class: 'nvlink-drop', x1: at.spine.x, y1: at.spine.y1, x2: at.spine.x, y2: at.spine.y2 }));
    const first = at.bars[0];
    if (first)
      group.append(
        svg('text', { class: 'hub-label', x: first.x + 4, y: first.y - 3 }, t('NVLink {0} · all {1} GPUs', hub.token, hub.members.length)),
      );
    layer.append(group);
  }
  for (const link of model.nvlinks) {
    const [a, b] = [placed(link.a), placed(link.b)];
    if (!a || !b) continue;
    const [ax, ay] = childSide(a);
    const [bx, by] = childSide(b);
    const dip = (a.mirrored ? -1 : 1) * (14 + Math.min(40, Math.abs(ax - bx) / 10));
    const d = `M ${ax} ${ay} Q ${(ax + bx) / 2} ${Math.max(ay, by) + dip} ${bx} ${by}`;
    layer.append(hoverable(svg('path', { class: 'nvlink-edge', d }), words.nvlink(link.a, link.b, link.token), events));
  }
  return layer;
}

function bandContains(layout: GraphLayout, p: PlacedNode, bar: { y: number }): boolean {
  const band = bandOf(p, layout.bands);
  return band !== undefined && bar.y >= band.y && bar.y <= band.y + band.h;
}

/** What the route's special links are drawn from: the graph, where it lies, the selected GPU's route. */
export interface EdgeScene {
  readonly model: GraphModel;
  readonly layout: GraphLayout;
  readonly route: Route | null;
  readonly words: EdgeWords;
  readonly events: EdgeEvents;
}

/** C2C links (GPU to the CPU strip, bowed out to the left of the PCIe line) and the selected GPU's SYS and PXN hops. */
export function specialLinks({ model, layout, route, words, events }: EdgeScene): SVGGElement {
  const layer = svg('g', { class: 'special-links' });
  for (const column of model.c2c) {
    const node = model.nodes.find((n) => n.column === column);
    const at = node ? layout.nodes.get(node.id) : undefined;
    const panel = node ? layout.panelOf.get(node.id) : undefined;
    if (!node || !at || !panel) continue;
    // Out of the GPU's side, along the lane its subtree keeps free on the left, to the CPU strip.
    const laneX = layout.laneOf.get(node.id) ?? at.x - SIZE.lane / 2;
    const edge = headerOf(panel).edge;
    const midY = at.y + at.h / 2;
    const d = `M ${at.x} ${midY} H ${laneX + 6} Q ${laneX} ${midY} ${laneX} ${midY + (at.mirrored ? 6 : -6)} V ${edge}`;
    const cls = route?.c2c === node.id ? 'c2c-edge route' : 'c2c-edge';
    layer.append(hoverable(svg('path', { class: cls, d }), words.c2c(column), events));
  }
  for (const hop of route?.cpuHops ?? []) {
    const [pa, pb] = [layout.panelOf.get(hop.a), layout.panelOf.get(hop.b)];
    if (!pa || !pb || pa === pb) continue;
    const [ya, yb] = [headerOf(pa).y + SIZE.head / 2, headerOf(pb).y + SIZE.head / 2];
    const d = `M ${pa.x} ${ya} H ${layout.gutter} V ${yb} H ${pb.x}`;
    const text = hop.sys ? words.sys(pa.cpu, pb.cpu) : words.samecpu(pa.cpu);
    layer.append(hoverable(svg('path', { class: hop.sys ? 'sys-edge route' : 'route-edge route', d }), text, events));
  }
  return layer;
}

/** PXN: the NVLink hop to the relaying GPU, drawn as a bold arc over everything. */
export function pxnHop({ model, layout, route, words, events }: EdgeScene): SVGGElement | null {
  if (!route?.nvlink) return null;
  const [from, to] = route.nvlink.map((c) => model.nodes.find((n) => n.column === c)).map((n) => (n ? layout.nodes.get(n.id) : undefined));
  if (!from || !to) return null;
  const [ax, ay] = childSide(from);
  const [bx, by] = childSide(to);
  const dip = (from.mirrored ? -1 : 1) * (SIZE.band * 0.9 + Math.min(24, Math.abs(ax - bx) / 12));
  const d = `M ${ax} ${ay} C ${ax} ${ay + dip} ${bx} ${by + dip} ${bx} ${by}`;
  return svg('g', {}, hoverable(svg('path', { class: 'pxn-edge route', d }), words.pxn(route.nvlink[0], route.nvlink[1]), events));
}
