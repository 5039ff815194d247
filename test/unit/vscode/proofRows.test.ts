// A GPUDirect RDMA proof where the extension shows it: the host's Proof group in the Hosts tree (one
// row per GPU against line rate and host memory, or why not), kept when the host is diagnosed again;
// the topology panel's GPU details; the report export (perftest's words only inside code spans).
import * as assert from 'node:assert/strict';
import { parseTopo } from '../../../src/core/parsers/topo';
import { formatMarkdownReport } from '../../../src/core/report/diagnosisReport';
import { proofMarkdown, withProof } from '../../../src/core/report/proofMarkdown';
import { isTopologyData } from '../../../src/protocol/topology';
import { HostModel, sshHostId } from '../../../src/vscode/hosts/hostModel';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { childNodes, rootNodes } from '../../../src/vscode/tree/hostNodes';
import { proofRows } from '../../../src/vscode/tree/proofRows';
import { labFile } from '../diagnosis/hostReport';
import { healthyHost } from '../prove/proofHosts';
import { sampleProof } from '../prove/sampleProof';

describe('a proof in the Hosts tree', () => {
  it('shows each GPU against line rate and host memory, the verdict in the tooltip', async () => {
    const [row] = proofRows('h/proof', 'h', await sampleProof('works'));
    assert.ok(row.kind === 'row');
    assert.equal(row.label, 'GPU5');
    assert.equal(row.description, 'mlx5_1 · peermem 80.96 Gb/s (81 %) · host 98.38 Gb/s (98 %)');
    assert.match(row.tooltip ?? '', /^GPUDirect RDMA works at 81 % of line rate with peermem \(host memory: 98 %\)/);
  });

  it("says which mode failed, perftest's own error and the finding that explains it", async () => {
    const [row] = proofRows('h/proof', 'h', await sampleProof('fails'));
    assert.ok(row.kind === 'row');
    assert.equal(row.description, 'mlx5_1 · peermem failed · host 98.38 Gb/s (98 %)');
    assert.equal(row.tone, 'error');
    assert.match(row.tooltip ?? '', /peermem: failed — Couldn't allocate MR with error=14/);
    assert.match(row.tooltip ?? '', /explained by dmabuf\.available/);
  });

  it('adds a Proof group after the diagnosis and keeps it when the host is diagnosed again', async () => {
    const model = new HostModel({ configHosts: () => ['gpu-a'], addedHosts: () => [] });
    const id = sshHostId('gpu-a');
    const d = await healthyHost();
    const diagnosed = { kind: 'diagnosed', report: d.report, diagnosis: d.diagnosis, finishedAt: new Date(0) } as const;
    model.setOutcome(id, diagnosed);
    model.setProof(id, await sampleProof('works'));
    model.setOutcome(id, diagnosed);
    const groups = childNodes(rootNodes(model)[0], model).filter((n) => n.kind === 'group');
    const proof = groups.find((g) => g.kind === 'group' && g.group === 'proof');
    assert.ok(proof && proof.kind === 'group');
    assert.match(proof.description ?? '', /^1 of 1 GPU with GPUDirect RDMA — /);
    assert.deepEqual(
      childNodes(proof, model).map((n) => (n.kind === 'row' ? n.label : n.kind)),
      ['GPU5'],
    );
  });
});

describe('a proof in the topology panel and the report', () => {
  it('gives the measured GPU its verdict and modes, the others none, and passes the protocol guard', async () => {
    const topo = parseTopo(labFile('healthy', 'out/nvidia-smi_topo_-m.stdout'));
    assert.ok(topo.ok);
    const data = topologyData({ title: 'gpu-a', source: 'test', topology: topo.value, proof: await sampleProof('fails') });
    const gpu5 = data.gpus.find((g) => g.name === 'GPU5');
    assert.equal(gpu5?.proof?.verdict, "peermem mode failed: Couldn't allocate MR with error=14");
    assert.deepEqual(gpu5?.proof?.modes, ['host 98.38 Gb/s of 100 (98 %)', 'peermem failed', 'dmabuf skipped']);
    assert.equal(data.gpus.find((g) => g.name === 'GPU0')?.proof, null);
    assert.ok(isTopologyData(data));
  });

  it("appends a table of the modes to the Markdown report, perftest's words in code spans", async () => {
    const proof = await sampleProof('fails');
    const md = proofMarkdown(proof).join('\n');
    assert.match(md, /\| GPU5 \| mlx5\\_1:1 \| host \| 98\.38 \| 100 \| 98 % \|  \|/);
    assert.match(md, /\| peermem \|  \| 100 \|  \| `failed; Couldn't allocate MR with error=14; dmabuf\.available: [^`]*` \|/);
    const d = await healthyHost();
    const report = formatMarkdownReport(d.report, d.diagnosis);
    assert.equal(withProof(report, undefined), report);
    assert.ok(withProof(report, proof).startsWith(report) && withProof(report, proof).includes('## GPUDirect RDMA proof (ib_write_bw)'));
  });
});
