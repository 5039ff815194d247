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
    it(`marks of ${path.basename(file)} agree with its summary, one entry per cause`, async () => {
      const { summary, marks } = await editorAnalysis(file, path.basename(file), 64 * 1024);
      assert.ok(summary);
      const lines = fs.readFileSync(file, 'utf8').split(/\r\n|\r|\n/);
      const kinds = (kind: string) => marks.filter((m) => m.kind === kind);
      const located = (kind: string) => kinds(kind).flatMap((m) => [m, ...m.related]);
      const every = marks.flatMap((m) => [m, ...m.related]);
      // Every HCA a Disabled line names (Socket interfaces aside) is on a line of an HCA entry, and only such lines are.
      const disabled = summary.hosts.flatMap((h) => h.hcas.filter((x) => x.gdr === false && x.net !== 'Socket').map((x) => x.name));
      for (const hca of disabled) {
        assert.ok(
          located('hca-gdr-disabled').some((m) => m.message.startsWith(`GPU Direct RDMA disabled for HCA ${hca}`)),
          hca,
        );
      }
      for (const m of kinds('hca-gdr-disabled')) {
        assert.match(lines[m.line - 1].slice(m.start, m.end), /GPU Direct RDMA Disabled for (GPU \S+ \/ )?HCA/);
      }
      // One entry per distinct NCCL WARN text.
      assert.equal(kinds('warn').length, summary.warnings.length);
      // Each GPU with network connections without /GDRDMA has its first such line in Problems (an entry or a related line).
      const without = summary.hosts.flatMap((h) => h.gpus).filter((g) => g.netConnections.gdrdma < g.netConnections.total);
      for (const g of without) assert.ok(every.some((m) => m.line === g.firstWithoutGdrdma?.line));
      for (const m of every.filter((x) => x.message.startsWith('Network connections without GDRDMA'))) {
        assert.match(lines[m.line - 1].slice(m.start, m.end), /via NET\/(?!.*\/GDRDMA)/);
      }
      // Problems shows an error exactly where the summary has one (nccl-log.no-gdrdma), at most one entry per kind of cause.
      assert.equal(
        marks.some((m) => m.severity === 'error'),
        summary.findings.some((f) => f.severity === 'error'),
      );
      assert.equal(new Set(marks.map((m) => `${m.kind}|${m.kind === 'warn' ? m.message : ''}`)).size, marks.length);
    });
  }
});
