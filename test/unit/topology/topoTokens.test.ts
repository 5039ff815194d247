import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import {
  DETECT_HEADER_WITHIN_LINES,
  TopoDocument,
  TopoTokenAt,
  looksLikeTopoOutput,
  topoHeaderNearTop,
  readTopoDocument,
  topoTokenAt,
} from '../../../src/core/topology/topoTokens';

function fixture(dir: string, name: string): string {
  return fs.readFileSync(path.join(__dirname, '../../fixtures', dir, name), 'utf8');
}

function topoDoc(name: string): TopoDocument {
  const doc = readTopoDocument(fixture('topo', name));
  assert.ok(doc, `${name} did not read as topo output`);
  return doc;
}

/** The hit at the `occurrence`-th (0-based) place `text` appears in line `line`. */
function hitAt(doc: TopoDocument, line: number, text: string, occurrence = 0): TopoTokenAt | null {
  let at = -1;
  for (let k = 0; k <= occurrence; k++) at = doc.lines[line].indexOf(text, at + 1);
  assert.ok(at >= 0, `"${text}" #${occurrence} not in line ${line + 1}: ${JSON.stringify(doc.lines[line])}`);
  // Hover the last character of the token: the whole word must still be found.
  return topoTokenAt(doc, line, at + text.length - 1);
}

describe('looksLikeTopoOutput', () => {
  const topoFiles = fs.readdirSync(path.join(__dirname, '../../fixtures/topo')).filter((f) => f.endsWith('.txt'));

  it('has tab and space variants among the fixtures', () => {
    assert.ok(topoFiles.length >= 10);
    assert.ok(topoFiles.some((f) => f.includes('tabs')) && topoFiles.some((f) => f.includes('spaces')));
  });

  for (const file of topoFiles) {
    it(`detects ${file}`, () => assert.strictEqual(looksLikeTopoOutput(fixture('topo', file)), true));
  }

  const others: [string, string][] = [
    ['lscpu', 'seed-xeon-gold-5318y-2socket-old-layout.txt'],
    ['numactl', 'seed-xeon-gold-5318y-2node.txt'],
    ['ibv', 'mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt'],
    ['smi-q', 'h100-80gb-hbm3-x8-driver565.txt'],
    ['lsmod', 'roce-ubuntu-grep-nvid-peermem-loaded.txt'],
  ];
  for (const [dir, file] of others) {
    it(`does not take ${dir}/${file} for topo output`, () => assert.strictEqual(looksLikeTopoOutput(fixture(dir, file)), false));
  }

  it('refuses empty text, prose and a matrix cut off after three rows', () => {
    assert.strictEqual(looksLikeTopoOutput(''), false);
    assert.strictEqual(looksLikeTopoOutput('GPU0 is hot today\nnothing else\n'), false);
    const cut = fixture('topo', 'h200-hgx-8gpu-12nic-tabs.txt').split('\n').slice(0, 4).join('\n');
    assert.strictEqual(looksLikeTopoOutput(cut), false);
  });

  it('finds the header among the first lines alone (what an editor reads before the whole text)', () => {
    for (const file of topoFiles) assert.ok(topoHeaderNearTop(fixture('topo', file).split('\n').slice(0, 5)), file);
    for (const [dir, file] of others) assert.ok(!topoHeaderNearTop(fixture(dir, file).split('\n')), file);
    const header = fixture('topo', 'h200-hgx-8gpu-12nic-tabs.txt').split('\n')[0];
    assert.ok(!topoHeaderNearTop([...Array(DETECT_HEADER_WITHIN_LINES).fill('a log line'), header]), 'not past the lines detection reads');
  });

  // Its speed is measured in bench/parsers.bench.ts, against a linear baseline.
  it('a large file with no header near the top is not topo output', () => {
    const big = 'just some log line\n'.repeat(20_000);
    assert.strictEqual(looksLikeTopoOutput(big), false);
  });
});

describe('topoTokenAt', () => {
  it('H200 (tabs): GPU3 row, the PXB cell is GPU3 × NIC5; header and row names are devices', () => {
    const doc = topoDoc('h200-hgx-8gpu-12nic-tabs.txt');
    assert.strictEqual(doc.headerLine, 0);
    assert.strictEqual(doc.matrixEnd, 21);
    const cell = hitAt(doc, 4, 'PXB');
    assert.ok(cell && cell.kind === 'cell');
    assert.deepStrictEqual([cell.token, cell.row, cell.column], ['PXB', 'GPU3', 'NIC5']);
    assert.strictEqual(doc.lines[4].slice(cell.start, cell.end), 'PXB');
    assert.deepStrictEqual(hitAt(doc, 0, 'NIC10'), { kind: 'device', name: 'NIC10', start: 91, end: 96 });
    assert.deepStrictEqual(hitAt(doc, 12, 'NIC3'), { kind: 'device', name: 'NIC3', start: 0, end: 4 });
    assert.deepStrictEqual(hitAt(doc, 4, 'X'), { kind: 'cell', token: 'X', row: 'GPU3', column: 'GPU3', start: 21, end: 22 });
    // The padding around the diagonal's X is no token.
    assert.strictEqual(topoTokenAt(doc, 4, 20), null);
  });

  it('seed (spaces): GPU3 row, PIX is GPU3 × NIC2', () => {
    const doc = topoDoc('seed-xeon-gold-5318y-8gpu-3nic.txt');
    const cell = hitAt(doc, 4, 'PIX', 0);
    assert.ok(cell && cell.kind === 'cell');
    assert.deepStrictEqual([cell.token, cell.row, cell.column], ['PIX', 'GPU3', 'NIC2']);
  });

  it('DGX-1: NIC columns in enumeration order (mlx5_0 mlx5_2 mlx5_1 mlx5_3): GPU0 PHB is mlx5_1', () => {
    const doc = topoDoc('dgx1-v100-direct-mlx5.txt');
    const cell = hitAt(doc, 1, 'PHB');
    assert.ok(cell && cell.kind === 'cell');
    assert.deepStrictEqual([cell.row, cell.column], ['GPU0', 'mlx5_1']);
    const nicRow = hitAt(doc, 10, 'PIX', 1);
    assert.ok(nicRow && nicRow.kind === 'cell');
    assert.deepStrictEqual([nicRow.row, nicRow.column], ['mlx5_2', 'GPU5']);
  });

  it('H200: legend lines and NIC Legend lines, the whole trimmed line as the range', () => {
    const doc = topoDoc('h200-hgx-8gpu-12nic-tabs.txt');
    const pxb = doc.lines.findIndex((l) => l.startsWith('  PXB  = '));
    assert.deepStrictEqual(topoTokenAt(doc, pxb, 3), {
      kind: 'legend',
      entry: { token: 'PXB', meaning: 'Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)' },
      start: 2,
      end: doc.lines[pxb].length,
    });
    const nic2 = doc.lines.indexOf('  NIC2: mlx5_2');
    assert.deepStrictEqual(topoTokenAt(doc, nic2, 10), { kind: 'nicLegend', alias: 'NIC2', device: 'mlx5_2', start: 2, end: 14 });
  });

  it('K40m (SOC legend) and K80 (Path traverses legend, spaces): legend entries as printed', () => {
    const k40 = topoDoc('k40m-4gpu-mlx4-soc-legend.txt');
    const soc = hitAt(
      k40,
      k40.lines.findIndex((l) => l.includes('SOC  =')),
      'SMP',
    );
    assert.ok(soc && soc.kind === 'legend');
    assert.deepStrictEqual(soc.entry, {
      token: 'SOC',
      meaning: 'Connection traversing PCIe as well as the SMP link between CPU sockets(e.g. QPI)',
    });
    const k80 = topoDoc('k80-mlx4-path-traverses-legend-spaces.txt');
    const pix = hitAt(k80, k80.lines.indexOf('  PIX = Path traverses a PCIe internal switch'), 'PIX');
    assert.ok(pix && pix.kind === 'legend');
    assert.strictEqual(pix.entry.meaning, 'Path traverses a PCIe internal switch');
  });

  it('nothing to explain: blank lines, headings, affinity values, trailing blanks, past the end', () => {
    const doc = topoDoc('h200-hgx-8gpu-12nic-tabs.txt');
    assert.strictEqual(topoTokenAt(doc, 21, 0), null);
    assert.strictEqual(topoTokenAt(doc, doc.lines.indexOf('Legend:'), 2), null);
    assert.strictEqual(topoTokenAt(doc, doc.lines.indexOf('NIC Legend:'), 2), null);
    assert.strictEqual(hitAt(doc, 1, '0-55,112-167'), null);
    assert.strictEqual(topoTokenAt(doc, 1, 0)?.kind, 'device');
    assert.strictEqual(topoTokenAt(doc, doc.lines.indexOf('  NIC2: mlx5_2'), 0), null);
    assert.strictEqual(topoTokenAt(doc, 999, 0), null);
  });

  it('a legend block ends at the first line that is no entry', () => {
    const text = `${fixture('topo', 'k40m-4gpu-mlx4-soc-legend.txt')}some prompt$ ls\n  PIX = not nvidia-smi\n`;
    const doc = readTopoDocument(text);
    assert.ok(doc);
    assert.strictEqual(topoTokenAt(doc, doc.lines.indexOf('  PIX = not nvidia-smi'), 3), null);
  });

  it('is null for text that is not topo output', () => {
    assert.strictEqual(readTopoDocument(fixture('lscpu', 'seed-xeon-gold-5318y-2socket-old-layout.txt')), null);
  });
});
