import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Topology, parseTopo } from '../../../src/core/parsers/topo';
import { nearestNics } from '../../../src/core/topology/nearestNic';

function fixture(name: string): string {
  return fs.readFileSync(path.join(__dirname, '../../fixtures/topo', name), 'utf8');
}

function topology(text: string): Topology {
  const result = parseTopo(text);
  assert.ok(result.ok, JSON.stringify(!result.ok && result.error));
  return result.value;
}

describe('nearestNics', () => {
  const seed = fixture('seed-xeon-gold-5318y-8gpu-3nic.txt');

  it('seed: GPU0-2 reach mlx5_2 over PXB, GPU3 over PIX (GDR with NCCL defaults)', () => {
    const nearest = nearestNics(topology(seed));
    assert.strictEqual(nearest.length, 8);
    assert.deepStrictEqual(nearest[0], {
      gpu: 'GPU0', link: 'PXB', nvmlLevel: 20, ncclDefaultUsesGdr: true,
      nics: [{ nic: 'NIC2', device: 'mlx5_2', link: 'PXB' }],
    });
    assert.deepStrictEqual(nearest[3].nics, [{ nic: 'NIC2', device: 'mlx5_2', link: 'PIX' }]);
    assert.strictEqual(nearest[3].nvmlLevel, 10);
  });

  it('seed: GPU4-7 see every NIC over SYS, all kept as a tie, no GDR with NCCL defaults', () => {
    const gpu4 = nearestNics(topology(seed))[4];
    assert.strictEqual(gpu4.gpu, 'GPU4');
    assert.strictEqual(gpu4.link, 'SYS');
    assert.strictEqual(gpu4.ncclDefaultUsesGdr, false);
    assert.deepStrictEqual(gpu4.nics.map((n) => n.device), ['mlx5_0', 'mlx5_1', 'mlx5_2']);
  });

  it('DGX-1: NICs named directly, each GPU pair has its own PIX NIC', () => {
    const nearest = nearestNics(topology(fixture('dgx1-v100-direct-mlx5.txt')));
    assert.deepStrictEqual(nearest.map((n) => `${n.gpu}:${n.nics.map((x) => x.device).join('+')}:${n.link}`), [
      'GPU0:mlx5_0:PIX', 'GPU1:mlx5_0:PIX', 'GPU2:mlx5_1:PIX', 'GPU3:mlx5_1:PIX',
      'GPU4:mlx5_2:PIX', 'GPU5:mlx5_2:PIX', 'GPU6:mlx5_3:PIX', 'GPU7:mlx5_3:PIX',
    ]);
  });

  it('an output without NIC columns gives an empty list', () => {
    assert.deepStrictEqual(nearestNics(topology(fixture('rtx5090-2gpu-threadripper-no-nic.txt'))), []);
  });

  it('a NIC without a NIC Legend entry has a null device', () => {
    const lines = seed.split('\n');
    const withoutNicLegend = lines.slice(0, lines.indexOf('NIC Legend:')).join('\n');
    assert.deepStrictEqual(nearestNics(topology(withoutNicLegend))[0].nics, [{ nic: 'NIC2', device: null, link: 'PXB' }]);
  });

  it('an unknown token ranks behind every known level', () => {
    const lines = seed.split('\n');
    lines[1] = lines[1].replace('NODE    NODE    PXB', 'C2C     SYS     P2C');
    const gpu0 = nearestNics(topology(lines.join('\n')))[0];
    assert.strictEqual(gpu0.link, 'SYS');
    assert.deepStrictEqual(gpu0.nics.map((n) => n.nic), ['NIC1']);
  });

  it('only unknown tokens: all tie, each NIC with its own token', () => {
    const lines = seed.split('\n');
    lines[1] = lines[1].replace('NODE    NODE    PXB', 'C2C     P2C     C2C');
    const gpu0 = nearestNics(topology(lines.join('\n')))[0];
    assert.strictEqual(gpu0.nvmlLevel, null);
    assert.strictEqual(gpu0.ncclDefaultUsesGdr, null);
    assert.deepStrictEqual(gpu0.nics.map((n) => `${n.nic}:${n.link}`), ['NIC0:C2C', 'NIC1:P2C', 'NIC2:C2C']);
  });
});
