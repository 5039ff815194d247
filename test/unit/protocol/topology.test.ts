// The topology webview's protocol: the guards both sides run on every message, and the data the
// extension builds from a real H200 `nvidia-smi topo -m` (8 GPUs, 12 NICs, tabs) and from a lab host's
// diagnosis with its sysfs PCI tree (the tree, its marks, the matrix derived when topo -m is missing).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTopo } from '../../../src/core/parsers/topo';
import { isExtensionToWebview, isTopologyData, isWebviewToExtension } from '../../../src/protocol/topology';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { graphModel } from '../../../src/webview/graphModel';
import { labTopologyData } from '../vscode/labTopology';
import { joinedRegExp } from '../../support/joinedRegExp';

const H200 = fs.readFileSync(path.join(__dirname, '../../fixtures/topo/h200-hgx-8gpu-12nic-tabs.txt'), 'utf8');

function h200Data() {
  const parsed = parseTopo(H200);
  assert.ok(parsed.ok);
  return topologyData({ title: 'h200', source: 'test', topology: parsed.value });
}

describe('protocol/topology: message guards', () => {
  it('accepts the messages the webview sends and nothing else', () => {
    assert.ok(isWebviewToExtension({ type: 'ready' }));
    assert.ok(isWebviewToExtension({ type: 'copy', label: 'NCCL_IB_HCA', text: 'NCCL_IB_HCA==mlx5_0' }));
    for (const bad of [
      null,
      'ready',
      [],
      {},
      { type: 'copy', label: 'x' },
      { type: 'copy', label: 1, text: 'x' },
      { type: 'run', command: 'rm -rf /' },
      { type: 'copy', label: 'x'.repeat(201), text: 'x' },
    ]) {
      assert.equal(isWebviewToExtension(bad), false, JSON.stringify(bad));
    }
  });

  it('accepts the data built from a real topology, and a `copied` notice', () => {
    assert.ok(isExtensionToWebview({ type: 'topology', data: h200Data() }));
    assert.ok(isExtensionToWebview({ type: 'copied', label: 'CPU list' }));
  });

  it("accepts the display language's translations as text only, and refuses any other bundle", () => {
    assert.ok(isExtensionToWebview({ type: 'l10n', bundle: {} }));
    assert.ok(isExtensionToWebview({ type: 'l10n', bundle: { Matrix: '矩阵', 'Copy {0}': '复制 {0}' } }));
    for (const bundle of [
      null,
      [],
      'Matrix',
      { Matrix: 1 },
      { Matrix: { message: 'x' } },
      Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`k${i}`, 'v'])),
    ]) {
      assert.equal(isExtensionToWebview({ type: 'l10n', bundle }), false, JSON.stringify(bundle).slice(0, 40));
    }
  });

  it('rejects topology data with a wrong field type, an unknown link class or a ragged matrix', () => {
    const data = h200Data();
    assert.equal(isTopologyData({ ...data, title: 42 }), false);
    assert.equal(isTopologyData({ ...data, cells: data.cells.slice(1) }), false);
    assert.equal(isTopologyData({ ...data, cells: data.cells.map((r, i) => (i === 3 ? r.slice(1) : r)) }), false);
    assert.equal(isTopologyData({ ...data, explanations: [{ ...data.explanations[0], linkClass: 'evil" onclick="x' }] }), false);
    assert.equal(isTopologyData({ ...data, gpus: [{ ...data.gpus[0], gdr: 'yes' }] }), false);
    assert.equal(isExtensionToWebview({ type: 'topology', data: { ...data, graph: null } }), false);
  });

  it('keeps markup in remote text as plain characters: the guard checks types, the webview renders text', () => {
    const data = h200Data();
    const hostile = '<img src=x onerror=alert(1)>';
    const nics = data.nics.map((n, i) => (i === 0 ? { ...n, device: hostile } : n));
    const message = { type: 'topology', data: { ...data, nics, title: hostile } };
    assert.ok(isExtensionToWebview(message));
    assert.equal((message.data.nics[0] as { device: string }).device, hostile);
  });
});

describe('topology view data from a real H200 topo -m', () => {
  const data = h200Data();

  it('keeps the matrix as printed, rows and columns in column order', () => {
    assert.equal(data.columns.length, 20);
    const at = (row: string, column: string) => data.cells[data.columns.indexOf(row)][data.columns.indexOf(column)];
    assert.equal(at('GPU3', 'NIC5'), 'PXB');
    assert.equal(at('GPU0', 'GPU1'), 'NV18');
    assert.equal(at('NIC1', 'NIC2'), 'PIX');
    assert.equal(at('GPU4', 'NIC0'), 'SYS');
  });

  it("explains each token present, in legend order, with NCCL's default verdict", () => {
    assert.deepEqual(
      data.explanations.map((e) => e.token),
      ['X', 'NV18', 'PIX', 'PXB', 'NODE', 'SYS'],
    );
    const by = new Map(data.explanations.map((e) => [e.token, e]));
    assert.equal(by.get('NV18')?.linkClass, 'nvlink');
    assert.match(by.get('NV18')?.meaning ?? '', /18 link/);
    assert.match(by.get('PXB')?.gdrVerdict ?? '', /NCCL 2\.30\.7 counts a PXB path .*so it uses GPUDirect RDMA/);
    assert.match(by.get('NODE')?.gdrVerdict ?? '', /NCCL 2\.30\.7 counts NODE as PHB .*so no GPUDirect RDMA over it/);
  });

  it('infers two NUMA nodes, PCIe groups of a GPU and its PXB NIC, and 28 NVLink edges', () => {
    assert.deepEqual(
      data.graph.numaNodes.map((n) => n.node),
      ['0', '1'],
    );
    const groups = data.graph.numaNodes.flatMap((n) => n.groups.map((g) => g.devices));
    assert.ok(groups.some((g) => g.join() === 'GPU0,NIC0'));
    assert.ok(
      groups.some((g) => g.join() === 'NIC1,NIC2'),
      'NIC1 and NIC2 share a PIX switch',
    );
    assert.ok(data.graph.numaNodes[1].groups.some((g) => g.devices.join() === 'GPU7,NIC11'));
    assert.equal(data.graph.nvlinks.length, 28);
  });

  it('gives each GPU its nearest NIC, NUMA node, CPUs and a suggested NCCL_IB_HCA', () => {
    const gpu1 = data.gpus.find((g) => g.name === 'GPU1');
    assert.deepEqual(gpu1?.nearestNics, ['NIC3 (mlx5_3)']);
    assert.equal(gpu1?.link, 'PXB');
    // A matrix alone does not show the NIC side or the GPU model: unknown (not green), saying what to read.
    assert.equal(gpu1?.gdr, null);
    assert.equal(gpu1?.verdict, 'GDR unknown');
    assert.match(
      gpu1?.reason ?? '',
      joinedRegExp([
        /^GPU1 → mlx5_3 over PXB .* Unknown, not read: whether the NIC side supports GPUDirect RDMA/,
        / .*\(From the matrix alone: NIC ports, peer memory and the GPU model were not read\.\)$/,
      ]),
    );
    assert.equal(gpu1?.numaNode, '0');
    assert.equal(gpu1?.cpus, '0-55,112-167');
    assert.equal(gpu1?.ncclIbHca, '=mlx5_3');
    assert.equal(gpu1?.ncclIbHcaShell, "NCCL_IB_HCA='=mlx5_3'");
    assert.equal(gpu1?.pinning, 'numactl --cpunodebind=0 --membind=0');
  });
});

describe('topology view data with the real PCIe tree (lab host pxn-port-down)', () => {
  it('carries the tree, parents first, worded by the extension, and passes the guard', async () => {
    const data = await labTopologyData('pxn-port-down');
    const tree = data.graph.tree;
    assert.ok(tree && isTopologyData(data));
    const sw = tree.nodes.find((n) => n.id === '0000:16:00.0');
    assert.deepEqual([sw?.kind, sw?.label, sw?.bridges], ['switch', 'PCIe switch', ['0000:16:00.0', '0000:17:00.0', '0000:17:01.0']]);
    assert.match(
      sw?.explanation ?? '',
      /^PCIe switch 0000:16:00\.0 \(Broadcom \/ LSI 1000:c030\), downstream ports 0000:17:00\.0, 0000:17:01\.0\. .*PIX apart/,
    );
    // What the part is first; NCCL's rule for its distance, with its source, apart (shown last).
    assert.doesNotMatch(sw?.explanation ?? '', /ncclTopoCheckGdr/);
    assert.match(sw?.why ?? '', /^Between a GPU and a NIC, NCCL 2\.30\.7 counts a PIX path .*ncclTopoCheckGdr\)\.$/);
    const gpu0 = tree.nodes.find((n) => n.column === 'GPU0');
    assert.deepEqual(gpu0?.link && [gpu0.link.text, gpu0.link.max, gpu0.link.degraded], ['Gen5 x16', 'Gen5 x16', false]);
    assert.deepEqual(data.graph.c2cGpus, []);
    assert.equal(data.derived, false);
  });

  it('draws a bridge mark (the ACS hook) on the node holding that bridge, and refuses a mark label too long to draw', async () => {
    const data = await labTopologyData('pxn-port-down');
    const marks = [{ bridge: '0000:17:01.0', label: 'ACS', explanation: 'ACS redirects peer-to-peer requests to the root complex.' }];
    const withMark = { ...data, graph: { ...data.graph, tree: data.graph.tree && { ...data.graph.tree, marks } } };
    assert.ok(isTopologyData(withMark));
    const model = graphModel(withMark);
    assert.deepEqual(
      model.nodes.filter((n) => n.marks.length > 0).map((n) => n.id),
      ['0000:16:00.0'],
    );
    const tooLong = {
      ...withMark,
      graph: { ...withMark.graph, tree: withMark.graph.tree && { ...withMark.graph.tree, marks: [{ ...marks[0], label: 'ACS ENABLED' }] } },
    };
    assert.equal(isTopologyData(tooLong), false);
  });

  it('refuses a tree whose node comes before its parent or repeats an id (the webview lays it out in one pass)', async () => {
    const data = await labTopologyData('pxn-port-down');
    const tree = data.graph.tree;
    assert.ok(tree);
    const reversed = { ...data, graph: { ...data.graph, tree: { ...tree, nodes: [...tree.nodes].reverse() } } };
    const repeated = { ...data, graph: { ...data.graph, tree: { ...tree, nodes: [...tree.nodes, tree.nodes[0]] } } };
    assert.equal(isTopologyData(reversed), false);
    assert.equal(isTopologyData(repeated), false);
    assert.equal(
      isTopologyData({ ...data, graph: { ...data.graph, tree: { ...tree, nodes: [{ ...tree.nodes[0], kind: 'evil' }] } } }),
      false,
    );
  });

  it("without nvidia-smi topo -m: the matrix derived from the tree, each GPU's link marked derived", async () => {
    const data = await labTopologyData('pxn-port-down', ['topo']);
    assert.equal(data.derived, true);
    assert.deepEqual(data.columns.slice(0, 2), ['GPU0', 'GPU1']);
    const at = (row: string, column: string) => data.cells[data.columns.indexOf(row)][data.columns.indexOf(column)];
    assert.deepEqual([at('GPU0', 'NIC0'), at('GPU0', 'NIC1'), at('GPU0', 'NIC4'), at('GPU0', 'GPU0')], ['PIX', 'NODE', 'SYS', 'X']);
    assert.deepEqual(data.gpus.map((g) => [g.link, g.linkDerived]).slice(0, 1), [['PIX', true]]);
    assert.ok(isTopologyData(data));
  });
});
