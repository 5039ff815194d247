// The graph's layout decisions, on every real `nvidia-smi topo -m` fixture (the graph inferred from the
// matrix) and the lab profiles' PCIe trees: it fits the room the panel has at 1000×700 and at 1400×900,
// no two nodes overlap, NUMA nodes go into a grid, a full NVLink mesh is one hub.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTopo } from '../../../src/core/parsers/topo';
import type { TopologyData } from '../../../src/protocol/topology';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { GraphLayout, layoutGraph } from '../../../src/webview/graphLayout';
import { Box, MIN_SCALE, Rect } from '../../../src/webview/graphSizes';
import { graphModel, nvlinkHubs } from '../../../src/webview/graphModel';
import { FIXTURES } from '../../support/paths';
import { labTopologyData } from '../vscode/labTopology';

/** The room the graph gets: a 1000×700 and a 1400×900 VS Code window, less the sidebar, GPU panel, header and legend. */
const ROOMS: Record<string, Box> = { '1000×700': { width: 600, height: 380 }, '1400×900': { width: 1000, height: 560 } };

function fixtureData(file: string): TopologyData {
  const parsed = parseTopo(fs.readFileSync(path.join(FIXTURES, 'topo', file), 'utf8'));
  assert.ok(parsed.ok, file);
  return topologyData({ title: file, source: 'test', topology: parsed.value });
}

const FIXTURE_FILES = fs.readdirSync(path.join(FIXTURES, 'topo')).filter((f) => f.endsWith('.txt'));

function overlap(a: Rect, b: Rect): boolean {
  return Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
}

function inside(inner: Rect, outer: Rect): boolean {
  return (
    inner.x >= outer.x - 0.5 &&
    inner.y >= outer.y - 0.5 &&
    inner.x + inner.w <= outer.x + outer.w + 0.5 &&
    inner.y + inner.h <= outer.y + outer.h + 0.5
  );
}

/** Every node inside its NUMA panel, no two nodes or panels overlapping, every panel inside the drawing. */
function assertClean(layout: GraphLayout, data: TopologyData, what: string): void {
  const model = graphModel(data);
  const nodes = [...layout.nodes.values()];
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) assert.ok(!overlap(nodes[i], nodes[j]), `${what}: ${nodes[i].id} overlaps ${nodes[j].id}`);
  for (let i = 0; i < layout.panels.length; i++)
    for (let j = i + 1; j < layout.panels.length; j++) assert.ok(!overlap(layout.panels[i], layout.panels[j]), `${what}: panels overlap`);
  const all = { x: 0, y: 0, w: layout.width, h: layout.height };
  for (const panel of layout.panels) assert.ok(inside(panel, all), `${what}: panel ${panel.cpu} outside the drawing`);
  for (const node of model.nodes.filter((n) => n.kind !== 'cpu')) {
    let root = node;
    while (root.parent !== null) root = model.nodes.find((n) => n.id === root.parent) ?? root;
    const panel = layout.panelOf.get(node.id);
    const placed = layout.nodes.get(node.id);
    assert.ok(
      panel && panel.cpu === root.id && placed && inside(placed, panel),
      `${what}: ${node.id} is not inside a panel of its NUMA node`,
    );
  }
  assert.deepEqual(
    [...new Set(layout.panels.map((p) => p.cpu))],
    model.nodes.filter((n) => n.parent === null).map((n) => n.id),
    `${what}: every NUMA node has its panel(s)`,
  );
}

describe('graph layout', () => {
  for (const [room, box] of Object.entries(ROOMS)) {
    it(`every real topo fixture's graph fits the ${room} panel (scale >= ${MIN_SCALE}) without overlaps`, () => {
      for (const file of FIXTURE_FILES) {
        const data = fixtureData(file);
        const layout = layoutGraph(graphModel(data), box);
        assertClean(layout, data, `${file} @ ${room}`);
        assert.ok(layout.scale >= MIN_SCALE, `${file}: scale ${layout.scale}`);
        assert.ok(layout.width * layout.scale <= box.width + 0.5, `${file} @ ${room}: ${layout.width * layout.scale} wide`);
        assert.ok(layout.height * layout.scale <= box.height + 0.5, `${file} @ ${room}: ${layout.height * layout.scale} high`);
      }
    });

    it(`the lab hosts' PCIe trees fit the ${room} panel without overlaps, every NUMA node shown`, async () => {
      for (const profile of ['pxn-port-down', 'grace-c2c', 'gh200']) {
        const data = await labTopologyData(profile);
        const layout = layoutGraph(graphModel(data), box);
        assertClean(layout, data, `${profile} @ ${room}`);
        assert.ok(
          layout.width * layout.scale <= box.width + 0.5 && layout.height * layout.scale <= box.height + 0.5,
          `${profile} @ ${room} does not fit`,
        );
        assert.ok(layout.scale >= MIN_SCALE, `${profile} @ ${room}: scale ${layout.scale}`);
      }
    });
  }

  it('puts the NUMA nodes of a DGX A100 (four, and the NICs no GPU row places) in a grid, not a strip', () => {
    const data = fixtureData('dgx-a100-epyc-nic-legend.txt');
    const layout = layoutGraph(graphModel(data), ROOMS['1000×700']);
    assert.deepEqual(
      layout.panels.map((p) => p.cpu),
      ['numa:1', 'numa:3', 'numa:5', 'numa:7', 'numa:?'],
    );
    assert.ok(layout.columns >= 2 && layout.columns < 5, `${layout.columns} columns`);
    assert.ok(new Set(layout.panels.map((p) => p.y)).size >= 2);
  });

  it("mirrors the second grid row so its GPUs face the NVLink band, like the first row's", () => {
    const data = fixtureData('h200-hgx-8gpu-12nic-tabs.txt');
    const layout = layoutGraph(graphModel(data), ROOMS['1000×700']);
    const [band] = layout.bands;
    const gpu0 = layout.nodes.get('GPU0');
    const gpu4 = layout.nodes.get('GPU4');
    assert.ok(band && gpu0 && gpu4);
    assert.ok(gpu0.y + gpu0.h <= band.y && gpu4.y >= band.y + band.h, 'GPU0 above the band, GPU4 below it');
    assert.equal(gpu4.mirrored, true);
    const hub = layout.hubs[0];
    assert.equal(hub.bars.length, 1);
    assert.ok(inside(hub.bars[0], band));
  });
});

describe('NVLink hubs', () => {
  it('an all-to-all NV18 mesh of 8 GPUs (H200) is one hub, not 28 arcs', () => {
    const model = graphModel(fixtureData('h200-hgx-8gpu-12nic-tabs.txt'));
    assert.equal(model.hubs.length, 1);
    assert.deepEqual([...model.hubs[0].members].sort(), ['GPU0', 'GPU1', 'GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7']);
    assert.equal(model.hubs[0].token, 'NV18');
    assert.equal(model.nvlinks.length, 0);
  });

  it('a hybrid cube mesh (DGX-1 V100) stays single links: not every pair is joined', () => {
    const model = graphModel(fixtureData('dgx1-v100-direct-mlx5.txt'));
    assert.equal(model.hubs.length, 0);
    assert.ok(model.nvlinks.length > 0 && model.nvlinks.length < 28);
  });

  it('two separate full meshes are two hubs; a pair is one link; mixed counts name their range', () => {
    const link = (a: string, b: string, token = 'NV4') => ({ a, b, token });
    const quad = (p: string) => [
      link(`${p}0`, `${p}1`),
      link(`${p}0`, `${p}2`, 'NV2'),
      link(`${p}0`, `${p}3`),
      link(`${p}1`, `${p}2`),
      link(`${p}1`, `${p}3`),
      link(`${p}2`, `${p}3`),
    ];
    const { hubs, rest } = nvlinkHubs([...quad('A'), ...quad('B'), link('C0', 'C1')]);
    assert.deepEqual(
      hubs.map((h) => [h.members.length, h.token]),
      [
        [4, 'NV2–NV4'],
        [4, 'NV2–NV4'],
      ],
    );
    assert.deepEqual(rest, [link('C0', 'C1')]);
  });
});
