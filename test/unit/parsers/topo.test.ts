import * as assert from 'assert';
import { summarizeTopo } from '../../../src/cli/summary/topo';
import { parseTopo } from '../../../src/core/parsers/topo';
import { checksFor, readFixture } from '../../support/parsing';

const seed = readFixture('topo', 'seed-xeon-gold-5318y-8gpu-3nic.txt');
const seedLines = seed.split('\n');
const dgx1 = readFixture('topo', 'dgx1-v100-direct-mlx5.txt');

const { parsed, failure } = checksFor(parseTopo);

/** The seed with line n (1-based) replaced by `replacement` (or removed when it is null). */
function seedWithLine(n: number, replacement: string | null): string {
  const lines = [...seedLines];
  if (replacement === null) lines.splice(n - 1, 1);
  else lines[n - 1] = replacement;
  return lines.join('\n');
}

describe('parseTopo on the seed (space-expanded, NIC Legend, three affinity columns)', () => {
  const t = parsed(seed);

  it('reads the columns and trailing columns from the header', () => {
    assert.deepStrictEqual(t.columns, ['GPU0', 'GPU1', 'GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7', 'NIC0', 'NIC1', 'NIC2']);
    assert.deepStrictEqual(t.infoColumns, ['CPU Affinity', 'NUMA Affinity', 'GPU NUMA ID']);
  });

  it('reads GPU affinities, mapping N/A after the double tab to GPU NUMA ID', () => {
    assert.deepStrictEqual(t.gpus[0], { name: 'GPU0', cpuAffinity: '0-31', numaAffinity: '0', gpuNumaId: 'N/A' });
    assert.deepStrictEqual(t.gpus[7], { name: 'GPU7', cpuAffinity: '32-63', numaAffinity: '1', gpuNumaId: 'N/A' });
  });

  it('names NICs from the NIC Legend', () => {
    assert.deepStrictEqual(t.nics, [
      { name: 'NIC0', device: 'mlx5_0' },
      { name: 'NIC1', device: 'mlx5_1' },
      { name: 'NIC2', device: 'mlx5_2' },
    ]);
  });

  it('has every row to every column, NIC rows included', () => {
    assert.strictEqual(Object.keys(t.links).length, 11);
    for (const row of t.columns) assert.deepStrictEqual(Object.keys(t.links[row]), t.columns);
    assert.strictEqual(t.links.GPU3.NIC2, 'PIX');
    assert.strictEqual(t.links.NIC2.GPU3, 'PIX');
    assert.strictEqual(t.links.NIC1.NIC0, 'PIX');
    assert.strictEqual(t.links.NIC2.NIC2, 'X');
  });

  it('keeps the Legend block as printed', () => {
    assert.strictEqual(t.legend.length, 7);
    assert.deepStrictEqual(t.legend[0], { token: 'X', meaning: 'Self' });
    assert.deepStrictEqual(t.legend[6], { token: 'NV#', meaning: 'Connection traversing a bonded set of # NVLinks' });
  });
});

describe('parseTopo variants', () => {
  it('reads the same matrix from the page copy: indented by 4 spaces with the command line before it', () => {
    const page = ['    nvidia-smi topo -m', ...seedLines.map((l) => (l === '' ? l : `    ${l}`))].join('\n');
    const t = parsed(page);
    const original = parsed(seed);
    assert.deepStrictEqual(t.gpus, original.gpus);
    assert.deepStrictEqual(t.links, original.links);
  });

  it('skips a prompt and a warning before the header', () => {
    const t = parsed(`WARNING: infoROM is corrupted at gpu 0000:3B:00.0\n(base) user@host:~$ nvidia-smi topo -m\n${seed}`);
    assert.strictEqual(t.gpus.length, 8);
  });

  it('reads CRLF line endings', () => {
    assert.deepStrictEqual(parsed(seed.replace(/\n/g, '\r\n')).links, parsed(seed).links);
  });

  it('ignores text after the legends', () => {
    assert.strictEqual(parsed(`${seed}user@host:~$ ibv_devinfo\nhca_id: mlx5_0\n`).nics[2].device, 'mlx5_2');
  });

  it('gives NICn columns a null device when there is no NIC Legend', () => {
    const withoutNicLegend = seedLines.slice(0, seedLines.indexOf('NIC Legend:')).join('\n');
    assert.deepStrictEqual(
      parsed(withoutNicLegend).nics.map((n) => n.device),
      [null, null, null],
    );
  });

  it('accepts a copy that kept only the GPU rows: NIC rows are null, GPU→NIC cells stay', () => {
    const gpuRowsOnly = [...seedLines.slice(0, 9), ...seedLines.slice(12)].join('\n');
    const t = parsed(gpuRowsOnly);
    assert.deepStrictEqual(t.links.NIC0, {
      GPU0: null,
      GPU1: null,
      GPU2: null,
      GPU3: null,
      GPU4: null,
      GPU5: null,
      GPU6: null,
      GPU7: null,
      NIC0: null,
      NIC1: null,
      NIC2: null,
    });
    assert.strictEqual(t.links.GPU0.NIC2, 'PXB');
  });

  it('reads tab-separated output with RDMA devices named directly, in enumeration order (DGX-1)', () => {
    const t = parsed(dgx1);
    assert.deepStrictEqual(
      t.nics.map((n) => n.name),
      ['mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3'],
    );
    assert.deepStrictEqual(t.infoColumns, ['CPU Affinity']);
    assert.strictEqual(t.gpus[4].numaAffinity, null);
    assert.strictEqual(t.links.GPU0.GPU3, 'NV2');
  });

  it('reads a header whose first names lost their tabs (GPU0GPU1…mlx5_0), as some web pages print it', () => {
    const glued = dgx1.replace('\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tmlx5_0', '\t    GPU0GPU1GPU2GPU3GPU4GPU5GPU6GPU7mlx5_0');
    assert.notStrictEqual(glued, dgx1);
    assert.deepStrictEqual(parsed(glued).links, parsed(dgx1).links);
  });

  it('reads a header without its leading tab', () => {
    assert.deepStrictEqual(parsed(dgx1.replace(/^\t/, '')).columns, parsed(dgx1).columns);
  });

  it('accepts an unknown upper-case link token (a future driver) as printed', () => {
    const t = parsed(seedWithLine(2, seedLines[1].replace('NODE    PXB', 'NODE    C2C')));
    assert.strictEqual(t.links.GPU0.NIC2, 'C2C');
  });

  it('keeps an empty CPU affinity of a tab-expanded row as "" (the value sits on the next tab stop)', () => {
    const header = '        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID';
    const row0 = 'GPU0     X      NV4             0               N/A';
    const row1 = 'GPU1    NV4      X      0-7     0               N/A';
    const t = parsed([header, row0, row1].join('\n'));
    assert.deepStrictEqual(t.gpus[0], { name: 'GPU0', cpuAffinity: '', numaAffinity: '0', gpuNumaId: 'N/A' });
    assert.deepStrictEqual(t.gpus[1], { name: 'GPU1', cpuAffinity: '0-7', numaAffinity: '0', gpuNumaId: 'N/A' });
  });
});

describe('parseTopo errors are located', () => {
  it('empty input', () => {
    assert.strictEqual(failure('').line, 1);
    assert.strictEqual(failure('\n\n  \n').line, 1);
  });

  it('garbage text names the first line', () => {
    const error = failure('\n\nhello world\nthis is not a matrix\n');
    assert.strictEqual(error.line, 3);
    assert.match(error.message, /header/);
    assert.match(error.message, /hello world/);
  });

  it("another command's output (lscpu)", () => {
    assert.strictEqual(failure('Architecture:          x86_64\nCPU(s):                48\n').line, 1);
  });

  it('nvidia-smi topo -p2p output is recognised as the wrong command', () => {
    const p2p = '        GPU0    GPU1\n GPU0   X       OK\n GPU1   OK      X\n';
    failure(p2p, 2, /p2p/);
  });

  it('missing header: the first row is reported', () => {
    failure(seedLines.slice(1).join('\n'), 1, /header/);
  });

  it('a matrix cut off after a GPU row', () => {
    failure(seedLines.slice(0, 7).join('\n'), 7, /GPU6/);
  });

  it('a row cut off in the middle', () => {
    failure([...seedLines.slice(0, 7), 'GPU6    SYS     SYS     SYS'].join('\n'), 8, /3 link cells.*11 device columns/);
  });

  it('some NIC rows present and others missing', () => {
    failure(seedWithLine(11, null).replace(seedLines[11], ''), 11, /NIC1/);
  });

  it('a garbage cell', () => {
    failure(seedWithLine(3, seedLines[2].replace('PIX', 'p!x')), 3, /row GPU1, column GPU0.*"p!x"/);
  });

  it('a diagonal that is not X, and X off the diagonal', () => {
    const swapped = seedLines[1].replace(' X      PIX', 'PIX      X ');
    assert.match(failure(seedWithLine(2, swapped)).message, /row GPU0, column GPU0: a device's link to itself must be X/);
    failure(
      seedWithLine(2, seedLines[1].replace('PXB     PXB     SYS', 'PXB      X      SYS')),
      2,
      /row GPU0, column GPU3: X \(self\) off the diagonal/,
    );
  });

  it('a row the header does not have, and a repeated row', () => {
    assert.strictEqual(failure(seedWithLine(9, seedLines[8].replace('GPU7', 'GPU8'))).line, 9);
    failure(seedWithLine(3, seedLines[1]), 3, /GPU0 appears twice/);
  });

  it('values beyond the trailing columns', () => {
    failure(seedWithLine(2, `${seedLines[1]}     extra`), 2, /extra/);
  });

  it('binary bytes', () => {
    failure(`${seedLines.slice(0, 4).join('\n')}\n\u0000\u0001\u0002`, 5, /binary/);
  });

  // How fast these are is measured in bench/parsers.bench.ts (ratios against a linear baseline), not here.
  it('10 MB of text after the matrix: refused at its line', () => {
    const error = failure(`${seed}\n${'x'.repeat(10 * 1024 * 1024)}`);
    assert.strictEqual(error.line, seedLines.length + 1);
  });

  it('nearly 8 MiB of near-miss text (a huge header, long rows, many lines): each refused, at its line', () => {
    const hugeHeader = `\t${Array.from({ length: 600 }, (_, i) => `GPU${i}`).join('\t')}\tCPU Affinity\n`;
    assert.match(failure(hugeHeader).message, /device columns/);
    const longRows = `${seedLines[0]}\n${`GPU0 ${'X '.repeat(3_000_000)}\n`}`;
    assert.strictEqual(failure(longRows).line, 2);
    const manyLines = 'GPU0: not a header at all\n'.repeat(250_000);
    assert.strictEqual(failure(manyLines).line, 1);
  });
});

describe('summarizeTopo', () => {
  const text = summarizeTopo(parsed(seed));
  const lines = text.split('\n');

  it('re-prints the matrix aligned, with the affinity columns', () => {
    const header = lines.find((l) => l.trimStart().startsWith('GPU0'));
    assert.ok(header);
    const gpu3 = lines.find((l) => l.startsWith('GPU3 '));
    assert.ok(gpu3);
    // Each cell starts where its column name starts.
    assert.strictEqual(gpu3.indexOf('PIX', header.indexOf('NIC2')), header.indexOf('NIC2'));
    assert.strictEqual(gpu3.indexOf('0-31'), header.indexOf('CPU Affinity'));
    assert.ok(lines.includes('NICs: NIC0 = mlx5_0, NIC1 = mlx5_1, NIC2 = mlx5_2'));
  });

  it('explains each link type used, with the GDR verdict for GPU↔NIC links only', () => {
    const pxb = lines.find((l) => l.startsWith('  PXB '));
    const sys = lines.find((l) => l.startsWith('  SYS '));
    assert.match(pxb ?? '', /NCCL 2\.30\.7 counts a PXB path .*so it uses GPUDirect RDMA when both sides support it/);
    assert.match(sys ?? '', /so no GPUDirect RDMA over it, .*NCCL_NET_GDR_LEVEL=SYS would allow it/);
    assert.ok(!lines.some((l) => l.startsWith('  NV')), 'the seed has no NVLink');
    const nvlink = summarizeTopo(parsed(dgx1))
      .split('\n')
      .find((l) => l.startsWith('  NV2 '));
    assert.match(nvlink ?? '', /2 link\(s\) bonded$/);
  });

  it("lists NCCL's NIC(s) for each GPU with the link and the verdict, from the matrix alone", () => {
    // Within the threshold, but the NIC side and the GPU model are not in a matrix: unknown, not yes.
    assert.ok(lines.includes('  GPU3: mlx5_2 (PIX) — GDR unknown'), text);
    assert.ok(lines.includes('  GPU4: mlx5_0, mlx5_1, mlx5_2 (SYS) — GDR no'));
    assert.ok(!text.endsWith('\n'));
  });

  it('marks cells of rows the output did not print', () => {
    const gpuRowsOnly = summarizeTopo(parsed([...seedLines.slice(0, 9), ...seedLines.slice(12)].join('\n')));
    assert.match(gpuRowsOnly, /^NIC0 +- +- /m);
    assert.match(gpuRowsOnly, /\(- = the output has no row for this device\)/);
  });
});
