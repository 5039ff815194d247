// The inferred layout as SVG: a column per NUMA node, a box per PCIe group, a box per device;
// NVLink edges between GPUs, each GPU joined to the NIC(s) NCCL gives it (through its relaying GPU
// for PXN), and GPUs for which NCCL uses no GPUDirect RDMA marked.
import type { TopologyData } from '../protocol/topology';
import { t } from '@vscode/l10n';
import { svg } from './dom';

const DEV_W = 84;
const DEV_H = 30;
const GAP = 8;
const GROUP_HEAD = 16;
const NODE_HEAD = 24;

interface Box { x: number; y: number }

export function renderGraph(data: TopologyData, selectedGpu: string | null, selectGpu: (name: string) => void): SVGSVGElement {
  const positions = new Map<string, Box>();
  const layers = { groups: svg('g'), edges: svg('g', { class: 'edges' }), devices: svg('g') };
  let x = GAP;
  let height = 0;
  for (const node of data.graph.numaNodes) {
    const width = Math.max(...node.groups.map((g) => g.devices.length), 1) * (DEV_W + GAP) + 3 * GAP;
    let y = NODE_HEAD + GAP;
    for (const group of node.groups) {
      const gh = GROUP_HEAD + DEV_H + 2 * GAP;
      layers.groups.append(svg('rect', { class: 'pcie-group', x: x + GAP, y, width: width - 2 * GAP, height: gh, rx: 4 }),
        svg('text', { class: 'group-label', x: x + 2 * GAP, y: y + 12 }, t('PCIe group {0}', group.id.replace('pcie', ''))));
      group.devices.forEach((d, i) => positions.set(d, { x: x + 2 * GAP + i * (DEV_W + GAP), y: y + GROUP_HEAD + GAP }));
      y += gh + GAP;
    }
    layers.groups.prepend(svg('rect', { class: 'numa-node', x, y: GAP, width, height: y, rx: 6 }),
      svg('text', { class: 'node-label', x: x + GAP, y: GAP + 16 }, node.node === null ? t('NUMA node unknown') : t('NUMA node {0}', node.node)));
    height = Math.max(height, y + 2 * GAP);
    x += width + GAP;
  }
  drawEdges(data, positions, selectedGpu, layers.edges);
  drawDevices(data, positions, selectedGpu, selectGpu, layers.devices);
  return svg('svg', { class: 'graph', width: x, height, viewBox: `0 0 ${x} ${height}`, role: 'img', 'aria-label': t('Inferred topology graph') },
    layers.groups, layers.edges, layers.devices);
}

function centre(b: Box): [number, number] {
  return [b.x + DEV_W / 2, b.y + DEV_H / 2];
}

function drawEdges(data: TopologyData, positions: Map<string, Box>, selectedGpu: string | null, layer: SVGGElement): void {
  for (const link of data.graph.nvlinks) {
    const a = positions.get(link.a);
    const b = positions.get(link.b);
    if (!a || !b) continue;
    const [ax, ay] = centre(a);
    const [bx, by] = centre(b);
    // Arc below the devices so NVLink edges between neighbours stay visible.
    const sag = DEV_H / 2 + 10 + Math.abs(ax - bx) / 12;
    layer.append(svg('path', { class: 'nvlink-edge', d: `M ${ax} ${ay + DEV_H / 2} Q ${(ax + bx) / 2} ${Math.max(ay, by) + sag} ${bx} ${by + DEV_H / 2}` },
      svg('title', {}, `${link.a} ↔ ${link.b}: ${link.token}`)));
  }
  for (const gpu of data.gpus) {
    // PXN: the GPU's traffic goes over NVLink to the relaying GPU, then from there to the NIC.
    const hops = gpu.proxyGpu ? [gpu.name, gpu.proxyGpu] : [gpu.name];
    const cls = `chosen-edge${gpu.name === selectedGpu ? ' selected' : ''}${gpu.gdr === true ? '' : ' far'}${gpu.proxyGpu ? ' pxn' : ''}`;
    if (gpu.proxyGpu) line(layer, positions, gpu.name, gpu.proxyGpu, cls, t('{0} → {1}: NVLink, relaying to the NIC (PXN)', gpu.name, gpu.proxyGpu));
    for (const nic of gpu.nearestNicColumns) {
      line(layer, positions, hops[hops.length - 1], nic, cls, `${gpu.name} → ${nic}: ${gpu.proxyGpu ? t('through {0} (PXN)', gpu.proxyGpu) : gpu.link ?? '?'}; ${gpu.verdict}`);
    }
  }
}

function line(layer: SVGGElement, positions: Map<string, Box>, a: string, b: string, cls: string, title: string): void {
  const from = positions.get(a);
  const to = positions.get(b);
  if (!from || !to) return;
  const [ax, ay] = centre(from);
  const [bx, by] = centre(to);
  layer.append(svg('line', { class: cls, x1: ax, y1: ay - DEV_H / 2, x2: bx, y2: by - DEV_H / 2 }, svg('title', {}, title)));
}

function drawDevices(data: TopologyData, positions: Map<string, Box>, selectedGpu: string | null, selectGpu: (name: string) => void, layer: SVGGElement): void {
  const gpus = new Map(data.gpus.map((g) => [g.name, g]));
  const chosen = new Set(data.gpus.flatMap((g) => g.nearestNicColumns));
  const selectedNics = new Set(gpus.get(selectedGpu ?? '')?.nearestNicColumns ?? []);
  for (const [name, box] of positions) {
    const gpu = gpus.get(name);
    const nic = data.nics.find((n) => n.name === name);
    const far = gpu !== undefined && gpu.gdr !== true;
    const classes = ['device', gpu ? 'gpu' : 'nic'];
    if (far) classes.push('far');
    if (!gpu && chosen.has(name)) classes.push('chosen');
    if (name === selectedGpu || selectedNics.has(name)) classes.push('selected');
    const label = gpu ? `${name}${far ? ' ⚠' : ''}` : nic?.device && nic.device !== name ? nic.device : name;
    const tip = gpu ? `${name}: ${gpu.verdict}. ${gpu.reason}` : `${name}${nic?.device ? ` (${nic.device})` : ''}`;
    const g = svg('g', { class: classes.join(' '), tabindex: gpu ? '0' : '-1', 'data-device': name },
      svg('title', {}, tip),
      svg('rect', { x: box.x, y: box.y, width: DEV_W, height: DEV_H, rx: 3 }),
      svg('text', { x: box.x + DEV_W / 2, y: box.y + DEV_H / 2 + 4, 'text-anchor': 'middle' }, label));
    if (gpu) {
      g.addEventListener('click', () => selectGpu(name));
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); selectGpu(name); } });
    }
    layer.append(g);
  }
}
