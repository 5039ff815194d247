// The verdict on real nccl-tests outputs: the largest size's busbw against what the nodes' NICs allow
// (the lab's HGX host: 8× H100, each with its own 400 Gb/s ConnectX-7 port, as nccl-tests#309's nodes
// are), and GPUDirect RDMA from NCCL's log in the same output.
import * as assert from 'node:assert/strict';
import { DEFAULT_NCCL } from '../../../src/core/diagnosis';
import { addNcclLogText, NcclLogSummarizer } from '../../../src/core/ncclLog';
import { parseNcclTests } from '../../../src/core/ncclTests';
import type { NcclNode } from '../../../src/core/ncclTests/ceiling';
import { ncclVerdict, VerdictInput } from '../../../src/core/ncclTests/verdict';
import { diagnose } from '../../../src/core/diagnosis';
import { expectOk, readFixture } from '../../support/parsing';
import { hostReport } from '../diagnosis/hostReport';
import { pcieHost } from '../diagnosis/pcieHost';

async function hgx(name: string, patch: Record<string, Record<string, string>> = {}): Promise<NcclNode> {
  const report = await hostReport(pcieHost({ patch }));
  return { host: name, report, diagnosis: diagnose(report) };
}

const verdictOf = (file: string, nodes: NcclNode[], more: Partial<VerdictInput> = {}) => {
  const text = readFixture('nccl-tests', file);
  const s = new NcclLogSummarizer();
  const log = addNcclLogText(s, text, file) > 0 ? s.summary() : null;
  return ncclVerdict({ run: expectOk(parseNcclTests(text)), log, nodes, nccl: DEFAULT_NCCL, algorithm: 'unknown', ...more });
};

describe('nccl-tests verdict: busbw against the NICs, GDR against the prediction', () => {
  it('four HGX nodes at 365.84 GB/s of 8 × 400 Gb/s: 91 %, good; no connection line in the paste (NCCL_DEBUG=VERSION), so GDR is not judged', async () => {
    const nodes = await Promise.all(['pt01', 'spt01', 'spt02', 'pt02'].map((n) => hgx(n)));
    const v = verdictOf('nccl-tests-309-h100-ndr-4nodes.txt', nodes);
    assert.equal(v.bandwidth.ceiling.gigabytesPerSecond, 400);
    assert.equal(v.bandwidth.ratio, 0.91);
    assert.deepEqual(v.bandwidth.ceiling.nodes[0].gpus, ['GPU0', 'GPU1', 'GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7']);
    assert.equal(
      v.verdict,
      "NCCL all_reduce reaches 366 GB/s of 400 possible at 16 GiB (91 %, algorithm not known; 8 × 400 Gb/s per node), no network connection in NCCL's log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows them): GPUDirect RDMA not judged",
    );
    assert.equal(v.tone, 'unknown');
  });

  it("two nodes at 469 GB/s, above what 8 × 400 Gb/s carry: NCCL's tree on two nodes (nccl-tests#309), not a figure to compare", async () => {
    const v = verdictOf('nccl-tests-309-h100-ndr-2nodes.txt', [await hgx('bm-h100-01'), await hgx('bm-h100-02')]);
    assert.equal(v.bandwidth.ratio, 1.17);
    assert.match(
      v.verdict,
      /^NCCL all_reduce reports 469 GB\/s at 16 GiB, above the 400 GB\/s the NICs carry \(8 × 400 Gb\/s per node\): on two nodes NCCL's tree algorithm/,
    );
    assert.equal(v.tone, 'unknown');
  });

  it('a ring run at 89.90 GB/s of 400 (nccl-tests#290, behind srun -l): 22 %, an error', async () => {
    const v = verdictOf('nccl-tests-290-h100-ndr-2nodes-srun-ring.txt', [await hgx('node005'), await hgx('node007')], {
      algorithm: 'ring',
    });
    assert.equal(v.bandwidth.ratio, 0.22);
    assert.match(v.verdict, /^nccl-tests reaches 89\.9 GB\/s of 400 possible at 8 GiB \(22 %, ring; 8 × 400 Gb\/s per node\)/);
    assert.equal(v.tone, 'error');
  });

  it('a node whose GPU1 trained at x8 explains a low ring figure by its finding', async () => {
    const slow = await hgx('node007', { '0000:3b:00.0': { current_link_width: '8' } });
    const v = verdictOf('nccl-tests-290-h100-ndr-2nodes-srun-ring.txt', [await hgx('node005'), slow], { algorithm: 'ring' });
    assert.ok(
      v.explainedBy.some((e) => e.startsWith('pcie.link-degraded: ')),
      v.explainedBy.join('\n'),
    );
  });

  it("GDR from NCCL's own lines in the same paste (p4d, 2 nodes behind --tag-output): 16 of 16 GPUs used /GDRDMA", () => {
    const v = verdictOf('p4d-a100-efa-2nodes-tag-output-old-layout.txt', []);
    assert.deepEqual(v.gdr && [v.gdr.gpus, v.gdr.gdr, v.gdr.asPredicted], [16, 16, null]);
    assert.equal(v.bandwidth.ceiling.unknownWhy, 'the nodes were not diagnosed');
    assert.equal(v.verdict, 'nccl-tests reaches 43.8 GB/s at 4 GiB (the nodes were not diagnosed), GPUDirect RDMA on 16 of 16 GPUs');
  });

  it('one node: its traffic stays on NVLink and PCIe, no NIC figure', () => {
    const v = verdictOf('h200-nccl2.28.9-all_reduce-1rank-socket.txt', []);
    assert.equal(v.bandwidth.ceiling.unknownWhy, 'one node: its traffic stays on NVLink and PCIe, not the NICs');
  });

  it('a paste cut before its first row has no result: an error naming the cut row', () => {
    const v = verdictOf('nccl-tests-249-markdown-no-hash-cut.txt', []);
    assert.equal(v.verdict, 'NCCL all_reduce printed no result row: it ends after 4 of 13 columns');
    assert.equal(v.tone, 'error');
  });
});
