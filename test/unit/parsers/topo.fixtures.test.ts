// Every real `nvidia-smi topo -m` output in test/fixtures/topo must parse and match its sidecar
// `<name>.expected.json` (written by reading the text): gpus and nics in full, plus the listed link cells.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TopoGpu, TopoNic, parseTopo } from '../../../src/core/parsers/topo';
import { expectOk, readFixture } from '../../support/parsing';
import { FIXTURES } from '../../support/paths';

interface TopoSidecar {
  gpus: TopoGpu[];
  nics: TopoNic[];
  links: Record<string, Record<string, string | null>>;
}

/** What a terminal or a copy from it does to a tab: spaces up to the next multiple of 8. */
function expandTabs(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
      return out;
    })
    .join('\n');
}

const TOPO = path.join(FIXTURES, 'topo');
const outputs = fs
  .readdirSync(TOPO)
  .filter((f) => f.endsWith('.txt'))
  .sort();

describe('parseTopo on every real fixture in test/fixtures/topo', () => {
  it('finds fixtures (the seed at least)', () => {
    assert.ok(outputs.includes('seed-xeon-gold-5318y-8gpu-3nic.txt'), `fixtures found: ${outputs.join(', ')}`);
  });

  for (const file of outputs) {
    it(file, () => {
      const sidecarPath = path.join(TOPO, file.replace(/\.txt$/, '.expected.json'));
      assert.ok(fs.existsSync(sidecarPath), `missing sidecar ${path.basename(sidecarPath)} for ${file}`);
      const expected = JSON.parse(fs.readFileSync(sidecarPath, 'utf8')) as TopoSidecar;
      const value = expectOk(parseTopo(readFixture('topo', file)));
      assert.deepStrictEqual(value.gpus, expected.gpus);
      assert.deepStrictEqual(value.nics, expected.nics);
      assert.ok(Object.keys(expected.links).length > 0, `${path.basename(sidecarPath)} lists no link cells`);
      for (const [row, cells] of Object.entries(expected.links)) {
        for (const [column, token] of Object.entries(cells)) {
          assert.strictEqual(value.links[row]?.[column], token, `${file}: links.${row}.${column}`);
        }
      }
    });
  }

  // Copies of tab-separated outputs often have the tabs expanded; the parse must not change.
  for (const file of outputs) {
    const text = readFixture('topo', file);
    if (!text.includes('\t')) continue;
    it(`${file} with its tabs expanded to spaces parses the same`, () => {
      const original = expectOk(parseTopo(text));
      const expanded = expectOk(parseTopo(expandTabs(text)));
      assert.deepStrictEqual(expanded, original);
    });
  }
});
