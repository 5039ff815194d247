import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport/demo';
import { runProbe } from '../../../src/core/probe/runProbe';
import { codeBlock, diagnosisJson, formatMarkdownReport, inlineCode, plain } from '../../../src/core/report/diagnosisReport';

import { DEMO_DIR } from '../../support/paths';

describe('diagnosis report (Markdown, JSON)', () => {
  it('reports the demo host: title, every finding id, GPU table, suggested env', async () => {
    const report = await runProbe(new DemoHost(DEMO_DIR).runner(), { host: DEMO_HOST_NAME });
    const diagnosis = diagnose(report);
    const md = formatMarkdownReport(report, diagnosis);
    assert.match(md, /^# GPUDirect RDMA report: `demo-hgx-h100 \(replayed\)`\n/);
    for (const f of diagnosis.findings) assert.ok(md.includes(`(${inlineCode(f.id)})`), f.id);
    assert.match(md, /\| GPU \| NIC \| Link \| NUMA \| GDR \| Why \|/);
    assert.match(md, /^### Error: nvidia\\_peermem is not loaded \(`peermem\.not-loaded`\)$/m);
    // Without peer memory NCCL stages every transfer through host memory: no GPU has GPUDirect RDMA.
    assert.match(md, /\| GPU0 \| mlx5\\_0, mlx5\\_2, mlx5\\_3 \| PIX \| 0 \| no \|/);
    // mlx5_1 (GPU1's PIX NIC) has no active port: NCCL leaves it out.
    assert.match(md, /\| GPU1 \| mlx5\\_2, mlx5\\_0, mlx5\\_3 \| NODE \| 0 \| no \|/);
    const json = diagnosisJson(report, diagnosis);
    assert.equal(json.host, DEMO_HOST_NAME);
    assert.equal(json.target, null);
    assert.deepEqual(json.findings, diagnosis.findings);
  });

  it('keeps remote text inert: fences outgrow backtick runs, Markdown punctuation is escaped', () => {
    assert.deepEqual(codeBlock('a ``` b'), ['````', 'a ``` b', '````']);
    assert.equal(inlineCode('x`y'), '``x`y``');
    assert.equal(inlineCode('`a'), '`` `a ``');
    assert.equal(plain('<img src=x onerror=alert(1)> [l](u)'), '\\<img src=x onerror=alert\\(1\\)\\> \\[l\\]\\(u\\)');
  });
});
