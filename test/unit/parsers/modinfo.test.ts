import * as assert from 'assert';
import { ModinfoFound, nvidiaModuleFlavor, parseModinfo } from '../../../src/core/parsers/modinfo';
import { checksFor, readFixture } from '../../support/parsing';
import { summarizeModinfo } from '../../../src/cli/summary/modinfo';

const fixture = (name: string): string => readFixture('modinfo', name);
const { parsed, failure: failsAt } = checksFor(parseModinfo);

function found(text: string): ModinfoFound {
  const v = parsed(text);
  if (!v.found) assert.fail('expected a module, got "not found"');
  return v;
}

describe('parseModinfo', () => {
  it('reads the legacy nv_peer_mem 1.0-8 (DKMS, Ubuntu 18.04) with empty signer fields', () => {
    const v = found(fixture('nv-peer-mem-1.0-8-ubuntu1804-dkms.txt'));
    assert.strictEqual(v.module, 'nv_peer_mem');
    assert.strictEqual(v.fields.filename, '/lib/modules/4.15.0-46-generic/updates/dkms/nv_peer_mem.ko');
    assert.strictEqual(v.fields.version, '1.0-8');
    assert.strictEqual(v.fields.license, 'Dual BSD/GPL');
    assert.strictEqual(v.fields.description, 'NVIDIA GPU memory plug-in');
    assert.strictEqual(v.fields.vermagic, '4.15.0-46-generic SMP mod_unload');
    assert.strictEqual(v.fields.signer, '');
    assert.strictEqual(v.fields.sig_hashalgo, 'md4');
    assert.deepStrictEqual(v.depends, ['ib_core']);
    assert.deepStrictEqual(v.parm, []);
    assert.strictEqual(nvidiaModuleFlavor(v), null);
  });

  it('reads nv_peer_mem 1.0-9 on RHEL 7.8 (no name: field, two dependencies)', () => {
    const v = found(fixture('nv-peer-mem-1.0-9-rhel78.txt'));
    assert.strictEqual(v.module, 'nv_peer_mem');
    assert.strictEqual(v.fields.name, undefined);
    assert.strictEqual(v.fields.rhelversion, '7.8');
    assert.deepStrictEqual(v.depends, ['ib_core', 'nvidia']);
  });

  it('reads the proprietary nvidia 510 module with repeated alias and parm keys', () => {
    const v = found(fixture('nvidia-510-proprietary-ubuntu2204-a6000.txt'));
    assert.strictEqual(v.module, 'nvidia');
    assert.strictEqual(v.fields.version, '510.73.05');
    assert.strictEqual(v.fields.license, 'NVIDIA');
    assert.strictEqual(nvidiaModuleFlavor(v), 'proprietary');
    assert.deepStrictEqual(v.aliases, [
      'char-major-195-*',
      'pci:v000010DEd*sv*sd*bc06sc80i00*',
      'pci:v000010DEd*sv*sd*bc03sc02i00*',
      'pci:v000010DEd*sv*sd*bc03sc00i00*',
    ]);
    assert.strictEqual(v.fields.alias, 'char-major-195-*');
    assert.deepStrictEqual(v.firmware, ['nvidia/510.73.05/gsp.bin']);
    assert.deepStrictEqual(v.depends, ['drm']);
    assert.strictEqual(v.parm.length, 39);
    assert.deepStrictEqual(v.parm[0], { name: 'NvSwitchRegDwords', description: 'NvSwitch regkey (charp)', type: 'charp' });
    assert.deepStrictEqual(v.parm[2], { name: 'NVreg_ResmanDebugLevel', description: 'int', type: 'int' });
    assert.deepStrictEqual(v.parm[38], { name: 'rm_firmware_active', description: 'charp', type: 'charp' });
  });

  it('reads the open nvidia 595 module (Dual MIT/GPL, empty depends)', () => {
    const v = found(fixture('nvidia-595-open-endeavouros.txt'));
    assert.strictEqual(nvidiaModuleFlavor(v), 'open');
    assert.strictEqual(v.fields.import_ns, 'DMA_BUF');
    assert.strictEqual(v.fields.description, 'NVIDIA core GPU kernel module');
    assert.strictEqual(v.fields.depends, '');
    assert.deepStrictEqual(v.depends, []);
    assert.strictEqual(v.aliases.length, 8);
    assert.deepStrictEqual(v.firmware, ['nvidia/595.71.05/gsp_tu10x.bin', 'nvidia/595.71.05/gsp_ga10x.bin']);
    assert.strictEqual(v.fields.softdep, 'pre: ecdh_generic,ecdsa_generic');
    assert.strictEqual(v.parm.length, 53);
  });

  it('joins the wrapped signature hex lines back into one value', () => {
    const v = found(fixture('nvidia-550-open-ubuntu2204-signed.txt'));
    assert.strictEqual(v.fields.version, '550.54.15');
    assert.strictEqual(v.fields.signer, 'mlops Secure Boot Module Signature key');
    assert.strictEqual(v.fields.sig_key, '29:80:51:1E:7D:08:C7:7C:BD:8D:DF:82:64:3F:F4:5F:32:8F:3F:DE');
    const sig = v.fields.signature;
    assert.ok(sig.startsWith('36:97:C3:AA:30:BC:E2:4E:83:78:13:76:25:3C:E5:AD:C8:0B:01:79:86:9B:BB:8D:'), sig.slice(0, 80));
    assert.ok(sig.endsWith(':7A:EA:E3:5B:E1'));
    assert.doesNotMatch(sig, /\s/);
    // 12 full lines of 20 bytes plus 16 on the last line.
    assert.strictEqual(sig.split(':').length, 12 * 20 + 16);
    assert.strictEqual(v.parm[0].name, 'NvSwitchRegDwords');
    assert.strictEqual(v.parm.length, 44);
  });

  it('turns "Module … not found." into a typed answer', () => {
    assert.deepStrictEqual(parsed(fixture('not-found-nvidia-ubuntu1504.txt')), {
      found: false,
      module: 'nvidia',
      message: 'modinfo: ERROR: Module nvidia not found.',
    });
    assert.deepStrictEqual(parsed('modinfo: ERROR: Module nvidia_peermem not found.\n'), {
      found: false,
      module: 'nvidia_peermem',
      message: 'modinfo: ERROR: Module nvidia_peermem not found.',
    });
  });

  it('keeps a parm description that continues on an indented line', () => {
    const v = found(
      'filename:       /lib/x.ko\nvermagic:       4.10.0 SMP\nparm:           swenc:Set to 1 for software crypto (default 0)\n (bool)\n',
    );
    assert.deepStrictEqual(v.parm[0], { name: 'swenc', description: 'Set to 1 for software crypto (default 0)\n(bool)', type: 'bool' });
  });

  it('reads a copy indented as a whole, and keys named like Object properties', () => {
    const v = found('    filename:       /lib/modules/x/team.ko\n    constructor:    y\n    vermagic:       3.10.0\n');
    assert.strictEqual(v.fields.constructor, 'y');
    assert.strictEqual(v.module, 'team');
  });

  describe('malformed input', () => {
    const open = fixture('nvidia-595-open-endeavouros.txt');

    it('reports empty input', () => {
      failsAt('', 1, /empty input/);
    });

    it('reports an output cut before vermagic', () => {
      const cut = open.split('\n').slice(0, 12).join('\n');
      failsAt(cut, 12, /no "vermagic:" field.*cut off/);
    });

    it('reports a line cut in the middle of its key', () => {
      const cut = `${open.split('\n').slice(0, 21).join('\n')}\nver`;
      failsAt(cut, 22, /expected "key:   value", found "ver"/);
    });

    it('reports modinfo -F output (a bare value)', () => {
      failsAt('510.73.05\n', 1, /expected "key:   value", found "510.73.05"/);
    });

    it('reports output that does not start with filename:', () => {
      failsAt('version:        510.73.05\nvermagic:       x\n', 1, /expected "filename:" as the first field/);
    });

    it('reports two modules in one input', () => {
      const twice = `${fixture('nv-peer-mem-1.0-9-rhel78.txt')}${fixture('nv-peer-mem-1.0-9-rhel78.txt')}`;
      failsAt(twice, 11, /second "filename:"/);
    });

    it('reports the wrong command output: lsmod', () => {
      failsAt('Module                  Size  Used by\nnvidia 1 0\n', 1, /expected "key:   value"/);
    });

    it('reports text after a not-found error', () => {
      failsAt('modinfo: ERROR: Module nvidia not found.\nfilename: x\n', 2, /after the "not found" error/);
    });
  });
});

describe('summarizeModinfo', () => {
  it('names the flavour of the nvidia module and shortens long parameter lists', () => {
    const text = summarizeModinfo(parsed(fixture('nvidia-595-open-endeavouros.txt')));
    assert.match(text, /^Module nvidia 595\.71\.05/);
    assert.match(text, /license: +Dual MIT\/GPL \(open kernel module\)/);
    assert.match(text, /\(53 in all\)/);
    assert.match(summarizeModinfo(parsed(fixture('not-found-nvidia-ubuntu1504.txt'))), /^Module nvidia: not found/);
  });
});
