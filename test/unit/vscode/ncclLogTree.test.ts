// An NCCL log linked to a host of the Hosts view: linked by the names the log prints or by hand, its
// comparison under the host ("NCCL log": findings, then one row per GPU), made again after the host is
// diagnosed again, kept across diagnoses; and the ids package.json must share with constants.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Commands, Languages, NCCL_LOG_SUMMARY_SCHEME } from '../../../src/constants';
import { diagnose } from '../../../src/core/diagnosis';
import { summarizeNcclLog } from '../../../src/core/ncclLog';
import { DEMO_HOST_NAME, DemoHost, INITIAL_DEMO_STATE } from '../../../src/core/transport/demo';
import { runProbe } from '../../../src/core/probe/runProbe';
import { DEMO_HOST, HostModel } from '../../../src/vscode/hosts/hostModel';
import { comparisonsOfLog, linkMatchingHosts } from '../../../src/vscode/ncclLog/links';
import { childNodes, rootNodes } from '../../../src/vscode/tree/hostNodes';
import { expectOk, readFixture } from '../../support/parsing';
import { DEMO_DIR, REPO_ROOT } from '../../support/paths';
import { englishManifest } from '../../support/manifest';

const LOG = 'ibext-plugin-no-gdrdma-8-gpus-cut.txt';
const summary = () => expectOk(summarizeNcclLog(readFixture('nccl-log', LOG), LOG));

/** The demo's recordings once its quick fix loaded nvidia_peermem: GDR predicted, which the log did not use. */
function loadedDemo(): DemoHost {
  const demo = new DemoHost(DEMO_DIR);
  demo.update({ ...INITIAL_DEMO_STATE, peermemLoaded: true });
  return demo;
}

async function diagnosedDemo(model: HostModel): Promise<void> {
  const report = await runProbe(loadedDemo().runner(), { host: DEMO_HOST_NAME });
  model.setOutcome(DEMO_HOST.id, { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date() });
}

function ncclGroup(model: HostModel) {
  const host = rootNodes(model).find((n) => n.hostId === DEMO_HOST.id);
  assert.ok(host);
  return childNodes(host, model).find((n) => n.kind === 'group' && n.group === 'ncclLog');
}

describe('NCCL logs linked to hosts of the Hosts view', () => {
  it('shows the comparison under the host: the findings, then each GPU predicted against the log', async () => {
    const model = new HostModel({ configHosts: () => [], addedHosts: () => [] });
    model.openDemo();
    await diagnosedDemo(model);
    assert.equal(ncclGroup(model), undefined, 'no group before a log is linked');
    model.setNcclLog(DEMO_HOST.id, { file: `logs/${LOG}`, uri: 'file:///w/logs/x.log', logHost: 'hostname-test', summary: summary() });
    const group = ncclGroup(model);
    assert.ok(group && group.kind === 'group');
    assert.deepEqual([group.label, group.description], ['NCCL log', `logs/${LOG} · 1 finding`]);
    const rows = childNodes(group, model);
    assert.deepEqual(
      rows.map((r) => (r.kind === 'finding' ? r.finding.id : r.kind === 'row' ? `${r.label} ${r.tone}` : r.kind)),
      ['nccl.gdr-not-used', 'GPU0 error', 'GPU2 error', 'GPU3 error', 'GPU4 error', 'GPU5 error', 'GPU6 error', 'GPU7 error'],
    );
    const gpu0 = rows[1];
    assert.ok(gpu0.kind === 'row');
    assert.equal(gpu0.description, 'log: GDRDMA on 0 of 1 network connections via NET/IBext_v8/7');
    assert.equal(
      gpu0.tooltip,
      'GPU0 (log: GPU 0): predicted GDR via mlx5_0; log: GDRDMA on 0 of 1 network connections via NET/IBext_v8/7 — differs',
    );
  });

  it('keeps the link when the host is diagnosed again, and compares with the new diagnosis', async () => {
    const model = new HostModel({ configHosts: () => [], addedHosts: () => [] });
    model.openDemo();
    await diagnosedDemo(model);
    model.setNcclLog(DEMO_HOST.id, { file: LOG, uri: 'u', logHost: 'hostname-test', summary: summary() });
    const first = comparisonsOfLog(model, 'u')[0].comparison;
    await diagnosedDemo(model);
    const again = comparisonsOfLog(model, 'u');
    assert.equal(again.length, 1);
    assert.notEqual(again[0].comparison, first, 'made again from the new diagnosis');
    assert.deepEqual(
      again[0].comparison.findings.map((f) => f.id),
      first.findings.map((f) => f.id),
    );
  });

  it('links a log to the diagnosed hosts whose names it prints, once, and never over another log', async () => {
    // The log of NVIDIA/nccl#899's first container, whose host is 6a5a91752e39; a host of that name in the user's ssh_config.
    const s = expectOk(summarizeNcclLog(readFixture('nccl-log', 'ib-no-module-2-containers-part1-start-cut.txt'), 'p1'));
    const model = new HostModel({ configHosts: () => ['6a5a91752e39.lab', 'other'], addedHosts: () => [] });
    assert.deepEqual(linkMatchingHosts(model, { file: 'p1', uri: 'u1', summary: s }), [], 'not diagnosed yet');
    const report = await runProbe(loadedDemo().runner(), { host: '6a5a91752e39.lab' });
    for (const id of ['ssh:6a5a91752e39.lab', 'ssh:other'])
      model.setOutcome(id, { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date() });
    assert.deepEqual(
      linkMatchingHosts(model, { file: 'p1', uri: 'u1', summary: s }).map((h) => h.label),
      ['6a5a91752e39.lab'],
    );
    assert.equal(model.status('ssh:6a5a91752e39.lab').ncclLog?.logHost, '6a5a91752e39');
    assert.deepEqual(linkMatchingHosts(model, { file: 'p1', uri: 'u1', summary: s }), [], 'already linked');
    assert.deepEqual(linkMatchingHosts(model, { file: 'p2', uri: 'u2', summary: s }), [], 'another log stays');
    assert.equal(model.status('ssh:other').ncclLog, undefined);
  });

  it('package.json contributes the nccl-log language with its grammar, and the commands of constants.ts', () => {
    const manifest = englishManifest();
    const languages = manifest.contributes.languages.map((l: { id: string }) => l.id);
    for (const id of Object.values(Languages)) {
      assert.ok(languages.includes(id), id);
      const grammar = manifest.contributes.grammars.find((g: { language: string }) => g.language === id);
      assert.ok(grammar && fs.existsSync(path.join(REPO_ROOT, grammar.path)), `grammar of ${id}`);
      assert.equal(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, grammar.path), 'utf8')).scopeName, grammar.scopeName);
    }
    // .log files open in the built-in Log language: the extension must start for them to be recognised by content.
    assert.ok(manifest.activationEvents.includes('onLanguage:log'));
    const titles = Object.fromEntries(manifest.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    assert.equal(titles[Commands.analyzeNcclLog], 'Analyze NCCL Log');
    assert.equal(titles[Commands.compareNcclLog], 'Compare NCCL Log with Host…');
    assert.ok(
      manifest.contributes.menus['editor/title'].some(
        (m: { command: string; when: string }) =>
          m.command === Commands.analyzeNcclLog && m.when === `editorLangId == ${Languages.ncclLog}`,
      ),
    );
    assert.match(NCCL_LOG_SUMMARY_SCHEME, /^gdr-doctor-/);
  });
});
