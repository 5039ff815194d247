// The route the graph highlights for a GPU, on the lab hosts' PCIe trees with the verdicts their
// diagnosis gives (labTopology.ts): PXN through the relaying GPU, P2C over C2C, across CPUs (SYS).
import * as assert from 'node:assert/strict';
import type { GpuDetail } from '../../../src/protocol/topology';
import { nextInDirection } from '../../../src/webview/graphKeys';
import { graphModel } from '../../../src/webview/graphModel';
import { routeOf } from '../../../src/webview/graphRoutes';
import { labTopologyData } from '../vscode/labTopology';

function gpuOf(gpus: readonly GpuDetail[], name: string): GpuDetail {
  const gpu = gpus.find((g) => g.name === name);
  assert.ok(gpu, name);
  return gpu;
}

describe("the route a GPU's traffic takes, on the real PCIe tree", () => {
  it("pxn-port-down GPU1 (its NIC down): over NVLink to GPU0, then GPU0's switch to mlx5_0 — not its own switch", async () => {
    const data = await labTopologyData('pxn-port-down');
    const model = graphModel(data);
    const route = routeOf(model, gpuOf(data.gpus, 'GPU1'));
    assert.deepEqual(route.nvlink, ['GPU1', 'GPU0']);
    // GPU0 (18:00.0) and mlx5_0 (19:00.0) up to their switch 16:00.0, which is where the route turns.
    assert.deepEqual([...route.uplinks].sort(), ['0000:18:00.0', '0000:19:00.0']);
    assert.ok(route.nodes.has('0000:16:00.0') && route.nodes.has('0000:2a:00.0'));
    assert.ok(!route.uplinks.has('0000:2a:00.0'), "GPU1's own PCIe link is not used");
    assert.deepEqual(route.cpuHops, []);
    assert.equal(route.c2c, null);
  });

  it('pxn-port-down: a GPU sent to a NIC on the other socket crosses the CPUs (SYS)', async () => {
    const data = await labTopologyData('pxn-port-down');
    const route = routeOf(graphModel(data), { ...gpuOf(data.gpus, 'GPU0'), proxyGpu: null, nearestNicColumns: ['NIC4'] });
    assert.deepEqual(route.cpuHops, [{ a: 'pci0000:15', b: 'pci0000:97', sys: true }]);
    assert.ok(route.uplinks.has('0000:16:00.0') && route.uplinks.has('pci0000:15') && route.uplinks.has('0000:9b:00.0'));
  });

  it("grace-c2c GPU0 (P2C): over C2C to its Grace CPU, then down that CPU's PCIe to mlx5_0, not up its own PCIe link", async () => {
    const data = await labTopologyData('grace-c2c');
    const gpu0 = gpuOf(data.gpus, 'GPU0');
    assert.equal(gpu0.ncclPath, 'P2C');
    const route = routeOf(graphModel(data), gpu0);
    assert.equal(route.c2c, '0008:01:00.0');
    assert.ok(!route.uplinks.has('0008:01:00.0'));
    assert.deepEqual([...route.uplinks].sort(), ['0000:01:00.0', '0000:03:00.0', 'pci0000:00']);
    assert.deepEqual(route.cpuHops, [{ a: '0008:01:00.0', b: 'pci0000:00', sys: false }]);
  });
});

describe('arrow keys in the graph', () => {
  const rects = [
    { id: 'hb', x: 100, y: 0, w: 60, h: 30 },
    { id: 'gpu', x: 40, y: 100, w: 60, h: 30 },
    { id: 'nic', x: 140, y: 100, w: 60, h: 30 },
    { id: 'far', x: 600, y: 100, w: 60, h: 30 },
  ];
  it('moves to the nearest node in the pressed direction, straight ahead before off to the side', () => {
    assert.equal(nextInDirection(rects, 'gpu', 'right'), 'nic');
    assert.equal(nextInDirection(rects, 'nic', 'right'), 'far');
    assert.equal(nextInDirection(rects, 'gpu', 'up'), 'hb');
    assert.equal(nextInDirection(rects, 'hb', 'down'), 'nic');
    assert.equal(nextInDirection(rects, 'gpu', 'left'), null);
  });
});
