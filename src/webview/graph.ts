// The graph view: the real PCIe tree (or the matrix's inferred layout) laid out to fit the panel
// (graphLayout.ts), the route NCCL uses for the selected GPU highlighted, an edge legend. One tab stop:
// arrow keys move between nodes as they are drawn, Enter or Space on a GPU selects it; hovering or
// focusing a node, a line or a legend entry explains it.
import { TopologyData, gdrState } from '../protocol/topology';
import { el, svg } from './dom';
import { headerOf, nvlinkLines, pxnHop, specialLinks, treeEdges } from './graphEdges';
import { GraphLayout, layoutGraph } from './graphLayout';
import { Box, SIZE } from './graphSizes';
import { GraphModel, graphModel } from './graphModel';
import { Route, routeOf } from './graphRoutes';
import { t } from '@vscode/l10n';
import { GraphLegendEntry, edgeWords, graphLegend, nodeText } from './graphWords';
import { Direction, nextInDirection } from './graphKeys';
import { Explained, flat } from './explain';

export interface GraphEvents {
  explain(what: Explained): void;
  selectGpu(name: string): void;
}

export function renderGraph(data: TopologyData, selectedGpu: string | null, box: Box, events: GraphEvents): SVGSVGElement {
  const model = graphModel(data);
  const layout = layoutGraph(model, box);
  const gpu = data.gpus.find((g) => g.name === selectedGpu);
  const route = gpu ? routeOf(model, gpu) : null;
  const words = edgeWords(data);
  const scene = { model, layout, route, words, events };
  const root = svg('svg', {
    class: 'graph',
    width: Math.round(layout.width * layout.scale),
    height: Math.round(layout.height * layout.scale),
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    role: 'group',
    'data-columns': layout.columns,
    'aria-label': model.real ? t('PCIe tree from sysfs') : t('Topology inferred from the matrix'),
  });
  root.append(
    panels(data, model, layout, events),
    nvlinkLines(model, layout, words, events),
    treeEdges(model, layout, route, events),
    specialLinks(scene),
    nodes(data, model, layout, route, selectedGpu, events),
  );
  const hop = pxnHop(scene);
  // The hop dips into the NVLink band: hub labels move above it so the arc never crosses their text.
  if (hop) root.append(hop, ...Array.from(root.querySelectorAll('.hub-label')));
  root.addEventListener('keydown', (e) => onKey(e, root, layout));
  return root;
}

/** The panel per NUMA node with its CPU as the header strip (focusable like the nodes). */
function panels(data: TopologyData, model: GraphModel, layout: GraphLayout, events: GraphEvents): SVGGElement {
  const layer = svg('g', { class: 'panels' });
  for (const panel of layout.panels) {
    const cpu = model.nodes.find((n) => n.id === panel.cpu);
    if (!cpu) continue;
    const head = headerOf(panel);
    const what = nodeText(data, cpu);
    const text = flat(what);
    const part = panel.parts > 1 ? t(' (part {0} of {1})', panel.part + 1, panel.parts) : '';
    const header = svg(
      'g',
      { class: 'node cpu', tabindex: '-1', 'data-node': panel.id, role: 'img', 'aria-label': text },
      svg('title', {}, text),
      svg('rect', { x: panel.x, y: head.y, width: panel.w, height: head.h, rx: 4 }),
      svg('text', { x: panel.x + 8, y: head.y + 14 }, `${cpu.sublabel ? `${cpu.label} · ${cpu.sublabel}` : cpu.label}${part}`),
    );
    explainOn(header, what, events);
    layer.append(svg('rect', { class: 'numa-panel', x: panel.x, y: panel.y, width: panel.w, height: panel.h, rx: 6 }), header);
  }
  return layer;
}

function nodes(
  data: TopologyData,
  model: GraphModel,
  layout: GraphLayout,
  route: Route | null,
  selectedGpu: string | null,
  events: GraphEvents,
): SVGGElement {
  const layer = svg('g', { class: 'nodes' });
  const chosen = new Set(data.gpus.flatMap((g) => g.nearestNicColumns));
  for (const node of model.nodes) {
    const at = layout.nodes.get(node.id);
    if (!at) continue;
    const gpu = data.gpus.find((g) => g.name === node.column);
    const classes = ['node', node.kind];
    const state = gpu ? gdrState(gpu.gdr) : null;
    if (state) classes.push(`gdr-${state}`);
    if (state === 'off') classes.push('far');
    if (node.kind === 'nic' && node.column !== null && chosen.has(node.column)) classes.push('chosen');
    if (route?.nodes.has(node.id)) classes.push('on-route');
    if (gpu && gpu.name === selectedGpu) classes.push('selected');
    const what = nodeText(data, node);
    const text = flat(what);
    const label = state === 'off' ? `${node.label} ⚠` : state === 'unknown' ? `${node.label} ?` : node.label;
    const g = svg(
      'g',
      { class: classes.join(' '), tabindex: '-1', 'data-node': node.id, 'data-column': node.column ?? '', role: 'img', 'aria-label': text },
      svg('title', {}, text),
      svg('rect', { x: at.x, y: at.y, width: at.w, height: at.h, rx: 3 }),
      svg('text', { class: 'label', x: at.x + at.w / 2, y: at.y + 13, 'text-anchor': 'middle' }, label),
      svg('text', { class: 'sublabel', x: at.x + at.w / 2, y: at.y + 25, 'text-anchor': 'middle' }, node.sublabel),
    );
    // One badge per kind of mark, inside the node's top-right corner (above it sits the link's label): a
    // switch whose two ports both redirect shows ACS once (the text names both).
    [...new Set(node.marks.map((m) => m.label))].forEach((label, i) => g.append(markBadge(label, at.x + at.w - 3 - i * 30, at.y + 9)));
    explainOn(g, what, events);
    if (gpu) {
      g.addEventListener('click', () => events.selectGpu(gpu.name));
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          events.selectGpu(gpu.name);
        }
      });
    }
    layer.append(g);
  }
  return layer;
}

function markBadge(label: string, right: number, top: number): SVGGElement {
  const w = Math.max(22, label.length * 6.5 + 6);
  return svg(
    'g',
    { class: 'mark' },
    svg('rect', { x: right - w, y: top - 7, width: w, height: 13, rx: 6 }),
    svg('text', { x: right - w / 2, y: top + 3, 'text-anchor': 'middle' }, label),
  );
}

function explainOn(node: SVGElement, what: Explained, events: GraphEvents): void {
  node.addEventListener('mouseenter', () => events.explain(what));
  node.addEventListener('focus', () => events.explain(what));
}

const KEYS: Record<string, Direction> = { ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right' };

function onKey(e: KeyboardEvent, root: SVGSVGElement, layout: GraphLayout): void {
  const direction = KEYS[e.key];
  const current = (e.target as Element).closest<SVGGElement>('[data-node]');
  if (!direction || !current) return;
  e.preventDefault();
  const rects = Array.from(root.querySelectorAll<SVGGElement>('[data-node]')).map((n) => ({
    id: n.dataset.node ?? '',
    ...rectOf(n, layout),
  }));
  const next = nextInDirection(rects, current.dataset.node ?? '', direction);
  const target = next === null ? null : root.querySelector<SVGGElement>(`[data-node="${CSS.escape(next)}"]`);
  if (!target) return;
  current.setAttribute('tabindex', '-1');
  target.setAttribute('tabindex', '0');
  target.focus();
}

function rectOf(node: SVGGElement, layout: GraphLayout): { x: number; y: number; w: number; h: number } {
  const placed = layout.nodes.get(node.dataset.node ?? '');
  if (placed) return placed;
  const panel = layout.panels.find((p) => p.id === node.dataset.node);
  return panel ? { x: panel.x, y: headerOf(panel).y, w: panel.w, h: SIZE.head } : { x: 0, y: 0, w: 0, h: 0 };
}

/** Makes one node the graph's tab stop: the selected GPU, else the first node. */
export function setTabStop(root: SVGSVGElement, selectedGpu: string | null): void {
  const nodes = Array.from(root.querySelectorAll<SVGGElement>('[data-node]'));
  const stop = nodes.find((n) => selectedGpu !== null && n.dataset.column === selectedGpu) ?? nodes[0];
  stop?.setAttribute('tabindex', '0');
}

/** The legend entries for what this graph draws, the selected GPU's route included. */
function legendFor(data: TopologyData, selectedGpu: string | null): GraphLegendEntry[] {
  const model = graphModel(data);
  const gpu = data.gpus.find((g) => g.name === selectedGpu);
  const route = gpu ? routeOf(model, gpu) : null;
  const shown: Record<string, boolean> = {
    'pcie-edge degraded': model.nodes.some((n) => n.link?.degraded === true),
    'hub-bar': model.hubs.length > 0,
    'nvlink-edge': model.nvlinks.length > 0,
    'c2c-edge': model.c2c.length > 0,
    'route-edge': (route?.nodes.size ?? 0) > 1,
    'pxn-edge': route?.nvlink !== null && route?.nvlink !== undefined,
    'sys-edge': route?.cpuHops.some((h) => h.sys) === true,
    mark: model.nodes.some((n) => n.marks.length > 0),
    'node gpu gdr-on': data.gpus.some((g) => g.gdr === true),
    'node gpu gdr-off far': data.gpus.some((g) => g.gdr === false),
    'node gpu gdr-unknown': data.gpus.some((g) => g.gdr !== true && g.gdr !== false),
    'node nic chosen': data.gpus.some((g) => g.nearestNicColumns.length > 0),
    'node gpu selected': gpu !== undefined,
  };
  return graphLegend().filter((entry) => shown[entry.swatch] ?? true);
}

export function renderGraphLegend(data: TopologyData, selectedGpu: string | null, events: GraphEvents): HTMLElement {
  const items = legendFor(data, selectedGpu).map((entry) => {
    const what = { lead: `${entry.label}.`, body: entry.explanation };
    const text = flat(what);
    const sample = entry.swatch.startsWith('node ')
      ? svg('g', { class: entry.swatch }, svg('rect', { x: 3, y: 3, width: 24, height: 12, rx: 2 }))
      : entry.swatch === 'hub-bar' || entry.swatch === 'mark'
        ? svg('rect', { class: entry.swatch, x: 2, y: 5, width: 26, height: 8, rx: 3 })
        : svg('line', { class: entry.swatch, x1: 2, y1: 9, x2: 28, y2: 9 });
    const item = el(
      'li',
      { class: 'legend-item', tabindex: '0', title: text, 'aria-label': text, 'data-swatch': entry.swatch },
      svg('svg', { class: 'edge-swatch', width: 30, height: 18, viewBox: '0 0 30 18', 'aria-hidden': 'true' }, sample),
      el('span', { class: 'legend-meaning' }, entry.label),
    );
    item.addEventListener('mouseenter', () => events.explain(what));
    item.addEventListener('focus', () => events.explain(what));
    return item;
  });
  return el('ul', { class: 'legend graph-legend', 'aria-label': t('Graph legend') }, ...items);
}
