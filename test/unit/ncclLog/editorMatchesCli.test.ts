// The editor and `gdr-doctor nccl-log` must give the same answer on every real log in
// test/fixtures/nccl-log: the editor's analysis (read in chunks as the extension reads an open
// document, with its live limit) has the summary the built CLI prints as --json, the text Analyze NCCL
// Log shows is what the CLI prints, and the Problems marks agree with that summary.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeNcclLogChunks, LIVE_LIMIT_CHARS, NcclLogAnalysis, textChunks } from '../../../src/core/ncclLog/analysis';
import { summarizeNcclLogText } from '../../../src/core/ncclLog/summaryText';
import { CLI, fixtureFiles, REPO_ROOT } from '../../support/paths';

function cli(args: string[]): { status: number | null; stdout: string } {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run "npm run build" first`);
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout };
}

/** As the extension reads a document: small chunks (to split lines and CRLFs), the live limit, the event loop handed back. */
async function editorAnalysis(file: string, name: string, chunk: number): Promise<NcclLogAnalysis> {
  const analysis = await analyzeNcclLogChunks(textChunks(fs.readFileSync(file, 'utf8'), chunk), name, { limitChars: LIVE_LIMIT_CHARS });
  assert.ok(analysis, 'not cancelled');
  return analysis;
}

describe('the editor and gdr-doctor nccl-log agree on every real NCCL log fixture', () => {
  const files = fixtureFiles('nccl-log');

  it('finds the fixtures', () => assert.ok(files.length >= 20, `${files.length} fixtures`));

  for (const file of files) {
    const name = path.relative(REPO_ROOT, file);
    it(path.basename(file), async () => {
      const json = cli(['nccl-log', name, '--json']);
      const text = cli(['nccl-log', name]);
      assert.equal(json.status, 0);
      for (const chunk of [97, 64 * 1024]) {
        const editor = await editorAnalysis(file, name, chunk);
        assert.ok(editor.complete && editor.summary, 'read whole, with NCCL lines');
        assert.deepEqual(JSON.parse(JSON.stringify(editor.summary)), JSON.parse(json.stdout), `summary, chunks of ${chunk}`);
        assert.equal(`${summarizeNcclLogText(editor.summary)}\n`, text.stdout, 'Analyze NCCL Log shows what the CLI prints');
      }
    });
  }

  for (const file of files) {
    it(`marks of ${path.basename(file)} agree with its summary`, async () => {
      const { summary, marks } = await editorAnalysis(file, path.basename(file), 64 * 1024);
      assert.ok(summary);
      const lines = fs.readFileSync(file, 'utf8').split(/\r\n|\r|\n/);
      const kinds = (kind: string) => marks.filter((m) => m.kind === kind);
      // Every HCA a Disabled line names (Socket "HCAs" aside) has a mark on such a line, and only those lines.
      const disabled = summary.hosts.flatMap((h) => h.hcas.filter((x) => x.gdr === false && x.net !== 'Socket').map((x) => x.name));
      for (const hca of disabled)
        assert.ok(
          kinds('hca-gdr-disabled').some((m) => m.message.startsWith(`GPU Direct RDMA disabled for HCA ${hca}`)),
          hca,
        );
      for (const m of kinds('hca-gdr-disabled'))
        assert.match(lines[m.line - 1].slice(m.start, m.end), /GPU Direct RDMA Disabled for (GPU \S+ \/ )?HCA/);
      // One mark per NCCL WARN line; one per GPU with network connections without /GDRDMA, on such a line.
      assert.equal(
        kinds('warn').length,
        summary.warnings.reduce((a, w) => a + w.count, 0),
      );
      const without = summary.hosts.flatMap((h) => h.gpus).filter((g) => g.netConnections.gdrdma < g.netConnections.total);
      assert.equal(kinds('net-without-gdrdma').length, without.length);
      for (const m of kinds('net-without-gdrdma')) assert.match(lines[m.line - 1].slice(m.start, m.end), /via NET\/(?!.*\/GDRDMA)/);
      assert.equal(
        kinds('socket').length > 0,
        summary.hosts.some((h) => h.network === 'Socket' && h.gdrOffReasons.some((r) => r.reason.startsWith('Using network Socket'))),
      );
    });
  }
});
