import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, demoRunner } from '../../../src/core/probe/demoHost';
import { runProbe } from '../../../src/core/probe/runProbe';
import { codeBlock, diagnosisJson, formatMarkdownReport, inlineCode, plain } from '../../../src/core/report/diagnosisReport';

const FIXTURES = path.join(__dirname, '../../fixtures');

describe('diagnosis report (Markdown, JSON)', () => {
  it('reports the demo host: title, every finding id, GPU table, suggested env', async () => {
    const report = await runProbe(demoRunner(FIXTURES), { host: DEMO_HOST_NAME });
    const diagnosis = diagnose(report);
    const md = formatMarkdownReport(report, diagnosis);
    assert.match(md, /^# GPUDirect RDMA report: `demo-dgx-a100 \(replayed\)`\n/);
    for (const f of diagnosis.findings) assert.ok(md.includes(`(${inlineCode(f.id)})`), f.id);
    assert.match(md, /\| GPU \| NIC \| Link \| NUMA \| GDR \| Why \|/);
    // mlx5_1 has no active port in the demo's ibv_devinfo: NCCL skips it, so GPU0 uses mlx5_0 alone.
    assert.match(md, /\| GPU0 \| mlx5\\_0 \| PXB \| 3 \| yes \|/);
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
