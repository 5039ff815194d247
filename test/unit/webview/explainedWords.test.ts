// What the topology panel says when a cell, a legend entry or a graph node is hovered: the verdict (and
// what to do) first, what the part is next, NCCL's rule and its source last, never first. On the demo
// host's diagnosis (its sysfs tree, peer memory not loaded) and a real H200 matrix alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport';
import { hostDrawing } from '../../../src/core/diagnosis/hostTopology';
import { parseTopo } from '../../../src/core/parsers/topo';
import { runProbe } from '../../../src/core/probe/runProbe';
import { DEFAULT_NCCL } from '../../../src/core/diagnosis';
import { hostSides } from '../../../src/vscode/topology/gdrCells';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { Explainer, firstSentence } from '../../../src/webview/explain';
import { graphModel } from '../../../src/webview/graphModel';
import { nodeText } from '../../../src/webview/graphWords';
import { DEMO_DIR, FIXTURES } from '../../support/paths';

/** A source citation: NCCL's files and functions. */
const SOURCE = /src\/|nccl[A-Z]\w+/;

async function demoData() {
  const report = await runProbe(new DemoHost(DEMO_DIR).runner(), { host: DEMO_HOST_NAME });
  const d = diagnose(report);
  const drawing = hostDrawing(report);
  assert.ok(drawing);
  return topologyData({
    title: 'demo',
    source: 'test',
    topology: drawing.topology,
    pairs: d.pairs,
    tree: drawing.tree,
    sides: hostSides(report, d, DEFAULT_NCCL),
  });
}

describe('topology panel words: the verdict first, the sources last', () => {
  it('a GPU node of the graph: what happens to its traffic and why first, its source last', async () => {
    const data = await demoData();
    const gpu0 = graphModel(data).nodes.find((n) => n.column === 'GPU0');
    assert.ok(gpu0);
    const words = nodeText(data, gpu0);
    assert.match(words.lead, /^GPU0: GDR off: nvidia_peermem is not loaded \(peermem\.not-loaded\)\./);
    assert.doesNotMatch(words.lead, SOURCE);
    assert.match(words.why ?? '', /ncclIbGdrSupport/);
  });

  it("a switch and a CPU of the tree: what they are first, NCCL's distance rule (with its source) only in why", async () => {
    const data = await demoData();
    for (const kind of ['switch', 'cpu', 'host-bridge']) {
      const node = graphModel(data).nodes.find((n) => n.kind === kind);
      assert.ok(node, kind);
      const words = nodeText(data, node);
      assert.doesNotMatch(`${words.lead} ${words.body ?? ''}`, SOURCE, kind);
      assert.match(words.why ?? '', /ncclTopoCheckGdr/, kind);
    }
  });

  it('cells and legend entries lead with the verdict; the rule and its source come last', () => {
    const parsed = parseTopo(fs.readFileSync(path.join(FIXTURES, 'topo/h200-hgx-8gpu-12nic-tabs.txt'), 'utf8'));
    assert.ok(parsed.ok);
    const data = topologyData({ title: 'h200', source: 'test', topology: parsed.value });
    const explainer = new Explainer(data);
    const pxb = explainer.legend('PXB');
    assert.equal(pxb.lead, 'PXB: GPUDirect RDMA by distance, where both sides support it.');
    assert.match(pxb.why ?? '', /ncclTopoCheckGdr/);
    assert.match(explainer.legend('SYS').lead, /^SYS: no GPUDirect RDMA by distance/);
    const cell = explainer.cell(
      'GPU3',
      'NIC5',
      'PXB',
      data.gdrCells.find((c) => c.gpu === 'GPU3' && c.nic === 'NIC5'),
    );
    assert.match(cell.lead, /^GPU3 ↔ NIC5: PXB — GDR unknown/);
    assert.doesNotMatch(`${cell.lead} ${cell.body ?? ''}`, SOURCE);
    assert.match(cell.why ?? '', /ncclTopoCheckGdr\)\.$/);
  });

  it('a paragraph ending with its source splits after its first sentence, in English and in Chinese', () => {
    assert.deepEqual(firstSentence('GPU0 → GPU1 over NVLink: PXN. NCCL relays (src/graph/paths.cc).'), {
      lead: 'GPU0 → GPU1 over NVLink: PXN.',
      why: 'NCCL relays (src/graph/paths.cc).',
    });
    assert.deepEqual(firstSentence('经由 NVLink：PXN。NCCL 中转（src/graph/paths.cc）。'), {
      lead: '经由 NVLink：PXN。',
      why: 'NCCL 中转（src/graph/paths.cc）。',
    });
    assert.deepEqual(firstSentence('one sentence only'), { lead: 'one sentence only' });
  });
});
