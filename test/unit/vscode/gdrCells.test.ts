// The topology panel says what happens on this host: the banner with the host's verdict, and for every
// GPU↔NIC cell GPUDirect RDMA on, off or unknown for that pair. On the demo host (recordings, peer memory
// not loaded) and after its quick fix; from a real H200 matrix alone, where nothing is ever "on".
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_NCCL, diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost, INITIAL_DEMO_STATE } from '../../../src/core/transport';
import { hostDrawing } from '../../../src/core/diagnosis/hostTopology';
import { parseTopo } from '../../../src/core/parsers/topo';
import { runProbe } from '../../../src/core/probe/runProbe';
import { isTopologyData, isWebviewToExtension } from '../../../src/protocol/topology';
import { bannerCause, gdrCells, hostBanner, hostSides } from '../../../src/vscode/topology/gdrCells';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { DEMO_DIR } from '../../support/paths';

async function demo(peermemLoaded: boolean) {
  const host = new DemoHost(DEMO_DIR);
  host.update({ ...INITIAL_DEMO_STATE, peermemLoaded });
  const report = await runProbe(host.runner(), { host: DEMO_HOST_NAME });
  const diagnosis = diagnose(report);
  const drawing = hostDrawing(report);
  assert.ok(drawing);
  const sides = hostSides(report, diagnosis, DEFAULT_NCCL);
  return { report, diagnosis, topology: drawing.topology, sides, cells: gdrCells(drawing.topology, diagnosis.pairs, sides) };
}

const count = (cells: { state: string }[], state: string) => cells.filter((c) => c.state === state).length;

describe('topology panel: the host verdict first, GPU↔NIC cells by what happens on this host', () => {
  it('the demo as recorded: a banner naming the cause with its fix, every GPU↔NIC pair off, none green', async () => {
    const d = await demo(false);
    const cause = bannerCause(d.diagnosis);
    assert.equal(cause?.id, 'peermem.not-loaded');
    assert.deepEqual(hostBanner(d.diagnosis, cause), {
      tone: 'error',
      text: 'GPUDirect RDMA off on 8 of 8 GPUs: nvidia_peermem is not loaded',
      action: 'Show fix',
    });
    assert.equal(d.sides.nic, false);
    assert.equal(d.cells.length, 8 * 8);
    assert.equal(count(d.cells, 'off'), d.cells.length);
    // A PIX pair (the shortest path) is off too, and says why: the host, not the distance.
    const pix = d.cells.find((c) => d.topology.links[c.gpu]?.[c.nic] === 'PIX');
    assert.ok(pix);
    assert.match(pix.why, /^GDR off: nvidia_peermem is not loaded \(peermem\.not-loaded\)\./);
    // So is a pair NCCL picks, which also says so.
    const picked = d.cells.find((c) => c.gpu === 'GPU0' && c.nic === d.diagnosis.pairs[0].nics[0].nic);
    assert.match(picked?.why ?? '', /^GDR off: nvidia_peermem is not loaded \(peermem\.not-loaded\)\. NCCL gives GPU0 this NIC/);
  });

  it('the demo after load-peermem: GDR on for all GPUs; the pairs NCCL picks on, far pairs off, near ones on', async () => {
    const d = await demo(true);
    assert.deepEqual(hostBanner(d.diagnosis, bannerCause(d.diagnosis)), {
      tone: 'ok',
      text: 'GPUDirect RDMA on for all 8 GPUs',
      action: null,
    });
    assert.equal(d.sides.nic, true);
    for (const pair of d.diagnosis.pairs)
      for (const nic of pair.nics)
        assert.equal(d.cells.find((c) => c.gpu === pair.gpu && c.nic === nic.nic)?.state, 'on', `${pair.gpu}/${nic.nic}`);
    for (const c of d.cells) {
      const token = d.topology.links[c.gpu]?.[c.nic];
      const picked = d.diagnosis.pairs.find((p) => p.gpu === c.gpu)?.nics.some((n) => n.nic === c.nic);
      if (!picked && token === 'SYS') assert.equal(c.state, 'off', `${c.gpu}/${c.nic} SYS`);
      if (!picked && token === 'PIX') assert.equal(c.state, 'on', `${c.gpu}/${c.nic} PIX`);
    }
  });

  it('a real H200 matrix alone: the NIC side is not known, so a near pair is unknown and a far one off, never on', () => {
    const text = fs.readFileSync(path.join(__dirname, '../../fixtures/topo/h200-hgx-8gpu-12nic-tabs.txt'), 'utf8');
    const parsed = parseTopo(text);
    assert.ok(parsed.ok);
    const data = topologyData({ title: 'h200', source: 'test', topology: parsed.value });
    assert.ok(isTopologyData(data));
    assert.equal(data.banner, null);
    assert.equal(data.gdrCells.length, 8 * 12);
    assert.equal(count(data.gdrCells, 'on'), 0);
    const cell = (gpu: string, nic: string) => data.gdrCells.find((c) => c.gpu === gpu && c.nic === nic);
    assert.equal(cell('GPU3', 'NIC5')?.state, 'unknown'); // PXB
    assert.match(cell('GPU3', 'NIC5')?.why ?? '', /the NIC side \(peer memory, dma-buf\) was not read/);
    assert.equal(cell('GPU3', 'NIC0')?.state, 'off'); // NODE
    assert.equal(cell('GPU3', 'NIC6')?.state, 'off'); // SYS
  });

  it('the protocol carries the banner and the cells, refuses a state it does not know, and takes the banner button', () => {
    const text = fs.readFileSync(path.join(__dirname, '../../fixtures/topo/h200-hgx-8gpu-12nic-tabs.txt'), 'utf8');
    const parsed = parseTopo(text);
    assert.ok(parsed.ok);
    const data = topologyData({ title: 'h200', source: 'test', topology: parsed.value });
    const banner = { tone: 'error' as const, text: 'GPUDirect RDMA off on 8 of 8 GPUs', action: 'Show fix' };
    assert.ok(isTopologyData({ ...data, banner }));
    assert.equal(isTopologyData({ ...data, banner: { ...banner, tone: 'red' } }), false);
    assert.equal(isTopologyData({ ...data, gdrCells: [{ ...data.gdrCells[0], state: 'yes' }] }), false);
    assert.ok(isWebviewToExtension({ type: 'bannerAction' }));
    assert.equal(isWebviewToExtension({ type: 'bannerAction', run: 'x' }), true, 'extra fields are ignored, never used');
  });
});
