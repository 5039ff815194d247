// A finding's details as the document a click on its row opens: the state first, what to do, the quick
// fix, then the evidence, each line found in the raw output that printed it (the line the raw-output
// document shows), the source last. And the registry whose keys are all a link carries.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport';
import { evidenceLocation } from '../../../src/core/diagnosis/evidenceLocation';
import { runProbe } from '../../../src/core/probe/runProbe';
import { rawOutputText } from '../../../src/core/probe/rawText';
import { findingDetailsText } from '../../../src/vscode/findings/detailsText';
import { FindingRefs, resolveFinding } from '../../../src/vscode/findings/findingRefs';
import { DEMO_HOST, HostModel } from '../../../src/vscode/hosts/hostModel';
import { DEMO_DIR } from '../../support/paths';

async function demoDiagnosis() {
  const report = await runProbe(new DemoHost(DEMO_DIR).runner(), { host: DEMO_HOST_NAME });
  return { report, diagnosis: diagnose(report) };
}

describe("a finding's details", () => {
  it('leads with the state and what to do; evidence lines point at the raw output line that printed them; the source last', async () => {
    const { report, diagnosis } = await demoDiagnosis();
    const f = diagnosis.findings[0];
    assert.equal(f.id, 'peermem.not-loaded');
    const doc = findingDetailsText(f, { hostLabel: 'demo-hgx-h100 (replayed)', when: 'now', report });
    const lines = doc.text.split('\n');
    assert.equal(lines[0], 'peermem not loaded — demo-hgx-h100 (replayed)');
    assert.equal(lines[2], 'nvidia_peermem is not loaded');
    assert.equal(lines[doc.fixLine], 'error · peermem.not-loaded · diagnosed now');
    const order = ['What it means and what to do', 'Quick fix', 'Evidence (each line opens the output where it was printed)', 'Source'].map(
      (h) => lines.indexOf(h),
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      `sections in order: ${order.join(', ')}`,
    );
    assert.ok(order.every((i) => i > 0));
    assert.equal(lines.at(-2), `  ${f.source}`);
    assert.equal(doc.evidence.length, f.evidence.length);
    // `lsmod: ib_core …` is a line lsmod printed: found at its line; an absence names the command only.
    const ibCore = doc.evidence.find((e) => lines[e.line].startsWith('  lsmod: ib_core'));
    assert.ok(ibCore?.at && ibCore.at.line !== null);
    const lsmod = report.commands.find((c) => c.id === ibCore.at?.commandId);
    assert.ok(lsmod);
    assert.equal(rawOutputText(lsmod).split('\n')[ibCore.at.line].trim(), lines[ibCore.line].slice('  lsmod: '.length));
    const absence = doc.evidence.find((e) => lines[e.line].startsWith('  lsmod: (no nvidia_peermem'));
    assert.deepEqual(absence?.at, { commandId: ibCore.at.commandId, line: null });
  });

  it('every evidence line of the demo names a command of the report', async () => {
    const { report, diagnosis } = await demoDiagnosis();
    for (const f of diagnosis.findings) for (const e of f.evidence) assert.ok(evidenceLocation(report, e), `${f.id}: ${e}`);
    assert.equal(evidenceLocation(report, 'not a command: x'), null);
  });

  it('links carry registry keys: the same finding the same key, a key resolves to the finding in the latest diagnosis', async () => {
    const { report, diagnosis } = await demoDiagnosis();
    const model = new HostModel({ configHosts: () => [], addedHosts: () => [] });
    model.openDemo();
    model.setOutcome(DEMO_HOST.id, { kind: 'diagnosed', report, diagnosis, finishedAt: new Date() });
    const refs = new FindingRefs();
    const key = refs.key({ hostId: DEMO_HOST.id, source: 'diagnosis', path: [1] });
    assert.match(key, /^f\d+$/);
    assert.equal(refs.key({ hostId: DEMO_HOST.id, source: 'diagnosis', path: [1] }), key);
    const ref = refs.get(key);
    assert.ok(ref);
    assert.equal(resolveFinding(model, ref)?.finding.id, 'rdma.port-down');
    assert.equal(resolveFinding(model, { ...ref, path: [99] }), undefined);
    for (const bad of [undefined, 1, 'f999', '__proto__', { key }]) assert.equal(refs.get(bad), undefined, String(bad));
  });
});
