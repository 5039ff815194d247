import * as assert from 'assert';
import { findModule, parseLsmod } from '../../../src/core/parsers/lsmod';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeLsmod } from '../../../src/cli/summary/lsmod';

const fixture = (name: string): string => readFixture('lsmod', name);
const { parsed, failure: failsAt } = checksFor(parseLsmod);

describe('parseLsmod', () => {
  it('reads a full lsmod with its header (Talos, ConnectX-4, inbox RDMA)', () => {
    const v = parsed(fixture('talos-connectx4-inbox-rdma-full-with-header.txt'));
    assert.strictEqual(v.hasHeader, true);
    assert.strictEqual(v.modules.length, 11);
    assert.deepStrictEqual(v.modules[0], { name: 'rdma_ucm', size: 32768, useCount: 0, usedBy: [], permanent: false });
    const ibCore = findModule(v, 'ib_core');
    assert.deepStrictEqual(ibCore?.usedBy, ['rdma_cm', 'ib_ipoib', 'iw_cm', 'ib_umad', 'rdma_ucm', 'ib_uverbs', 'mlx5_ib', 'ib_cm']);
    assert.strictEqual(ibCore?.size, 356352);
    assert.strictEqual(ibCore?.useCount, 8);
    assert.deepStrictEqual(findModule(v, 'mlx5_core')?.usedBy, ['mlx5_ib']);
    assert.strictEqual(findModule(v, 'nvidia_peermem'), undefined);
  });

  it('reads header-less "lsmod | grep nvid" with nvidia_peermem loaded', () => {
    const v = parsed(fixture('roce-ubuntu-grep-nvid-peermem-loaded.txt'));
    assert.strictEqual(v.hasHeader, false);
    assert.deepStrictEqual(
      v.modules.map((m) => m.name),
      ['nvidia_uvm', 'nvidia_peermem', 'ib_uverbs', 'nvidia_drm', 'nvidia_modeset', 'nvidia', 'video'],
    );
    assert.deepStrictEqual(findModule(v, 'nvidia_peermem'), {
      name: 'nvidia_peermem',
      size: 16384,
      useCount: 0,
      usedBy: [],
      permanent: false,
    });
    assert.deepStrictEqual(findModule(v, 'ib_uverbs')?.usedBy, ['nvidia_peermem', 'rdma_ucm', 'mlx5_ib']);
    assert.strictEqual(findModule(v, 'nvidia')?.size, 54292480);
    assert.strictEqual(findModule(v, 'nvidia')?.useCount, 63);
  });

  it('reads DOCA-era outputs: nvidia_peermem held through ib_uverbs, not ib_core', () => {
    const doca = parsed(fixture('doca-ofed-3.3-ubuntu2404-grep-nvidia-mlx5-peermem-uverbs.txt'));
    assert.deepStrictEqual(findModule(doca, 'ib_uverbs')?.usedBy, ['nvidia_peermem', 'rdma_ucm', 'mlx5_ib']);
    assert.ok(!findModule(doca, 'ib_core')?.usedBy.includes('nvidia_peermem'));
    assert.strictEqual(findModule(doca, 'mlx_compat')?.useCount, 13);
    const k68 = parsed(fixture('ubuntu-kernel68-grep-nvidia-peermem-uverbs.txt'));
    assert.deepStrictEqual(findModule(k68, 'ib_uverbs')?.usedBy, ['nvidia_peermem', 'rdma_ucm', 'mlx5_ib']);
    assert.strictEqual(findModule(k68, 'nvidia')?.useCount, 96);
  });

  it('finds modules with dashes or underscores, as modprobe does', () => {
    const v = parsed(fixture('gpu-operator-ib-grep-nvidia-peermem.txt'));
    assert.strictEqual(findModule(v, 'nvidia-peermem')?.name, 'nvidia_peermem');
    assert.strictEqual(findModule(v, 'ib_core')?.useCount, 9);
    assert.strictEqual(findModule(v, 'nvidia')?.usedBy.length, 3);
  });

  it('reads the legacy nv_peer_mem module and mlx4_ib among ib_core users', () => {
    const v = parsed(fixture('egx-grep-nv-peer-mem-legacy.txt'));
    assert.deepStrictEqual(
      v.modules.map((m) => m.name),
      ['nv_peer_mem', 'ib_core', 'nvidia'],
    );
    assert.ok(findModule(v, 'ib_core')?.usedBy.includes('mlx4_ib'));
    assert.strictEqual(findModule(v, 'ib_core')?.usedBy.length, 11);
    assert.deepStrictEqual(findModule(v, 'nvidia')?.usedBy, ['nvidia_uvm', 'nv_peer_mem', 'nvidia_modeset']);
  });

  it('accepts the trailing space old lsmod printed after a use count without users', () => {
    const v = parsed(fixture('ubuntu-2011-full-trailing-spaces-nvidia.txt'));
    assert.strictEqual(v.hasHeader, true);
    assert.strictEqual(v.modules.length, 30);
    assert.deepStrictEqual(findModule(v, 'nvidia'), { name: 'nvidia', size: 9766978, useCount: 40, usedBy: [], permanent: false });
    assert.strictEqual(findModule(v, 'snd')?.usedBy.length, 9);
    assert.strictEqual(v.modules[v.modules.length - 1].name, 'pata_jmicron');
  });

  it('rejects the NVSHMEM FAQ copy whose "Used by" lists were wrapped onto their own lines', () => {
    // Real published text: the doc wrapped each long line, so line 3 is a bare list.
    failsAt(fixture('malformed/nvshmem-faq-grep-nv-peer-mem-wrapped.txt'), 3, /expected "<module> <size> <use count>.*rdma_cm,ib_cm/);
  });

  it('treats empty input as an error unless grep output is expected', () => {
    const empty = fixture('nv-peer-memory-46-grep-no-match-empty.txt');
    assert.strictEqual(empty, '');
    failsAt(empty, 1, /empty input/);
    failsAt('\n  \n', 1, /empty input/);
    const r = parseLsmod(empty, { allowEmpty: true });
    assert.deepStrictEqual(r, { ok: true, value: { modules: [], hasHeader: false } });
  });

  it('reads a header with no modules as an empty list', () => {
    assert.deepStrictEqual(parsed('Module                  Size  Used by\n'), { modules: [], hasHeader: true });
  });

  it('drops a trailing comma and reads [permanent] as a flag', () => {
    const v = parsed('ib_core               356352  3 rdma_cm,ib_ipoib,\nfoo 100 1 [permanent],bar\n');
    assert.deepStrictEqual(v.modules[0].usedBy, ['rdma_cm', 'ib_ipoib']);
    assert.deepStrictEqual(v.modules[1], { name: 'foo', size: 100, useCount: 1, usedBy: ['bar'], permanent: true });
  });

  describe('malformed input', () => {
    const full = fixture('talos-connectx4-inbox-rdma-full-with-header.txt');

    it('reports a line cut inside its numbers', () => {
      const lines = full.split('\n');
      const cut = `${lines.slice(0, 5).join('\n')}\nmlx5_core            13`;
      failsAt(cut, 6, /expected "<module> <size> <use count>.*"mlx5_core            13"/);
    });

    it('reports garbage text at its line', () => {
      failsAt('Module                  Size  Used by\nhello world, this is not lsmod\n', 2, /hello world/);
    });

    it('reports a second header (two outputs pasted together)', () => {
      failsAt(`${full}${full}`, 13, /second "Module  Size  Used by" header/);
    });

    it('reports a module listed twice', () => {
      const grepped = fixture('gpu-operator-ib-grep-nvidia-peermem.txt');
      failsAt(`${grepped}${grepped}`, 4, /"nvidia_peermem" is listed twice/);
    });

    it('reports the wrong command output: modinfo', () => {
      failsAt('filename:       /lib/modules/4.15.0-46-generic/updates/dkms/nv_peer_mem.ko\nversion:        1.0-8\n', 1, /filename:/);
    });

    it('reports /proc/modules fed in place of lsmod', () => {
      failsAt('mlx5_ib 720896 0 - Live 0x0\n', 1, /looks like \/proc\/modules/);
    });

    it('reports a "Used by" item that is not a module name', () => {
      failsAt('ib_core 356352 2 rdma_cm, ib ipoib\n', 1, /comma-separated list of module names, found "ib ipoib"/);
    });

    it('reports binary input', () => {
      failsAt('nvidia 1 0\n\u0000\u0001', 2, /binary/);
    });
  });
});

describe('summarizeLsmod', () => {
  it('lists GPUDirect-relevant modules and flags both peer-memory modules', () => {
    const text = summarizeLsmod(parsed(fixture('roce-ubuntu-grep-nvid-peermem-loaded.txt')));
    assert.match(text, /^lsmod \(filtered, no header\): 7 module\(s\)/);
    assert.match(text, /nvidia_peermem +loaded, used 0x/);
    assert.match(text, /nv_peer_mem +not listed/);
    assert.doesNotMatch(text, /both nvidia_peermem/);
    const both = summarizeLsmod(parsed('nvidia_peermem 16384 0\nnv_peer_mem 16384 0\n'));
    assert.match(both, /both nvidia_peermem and the legacy nv_peer_mem are loaded/);
    assert.ok(!text.endsWith('\n'));
  });
});
