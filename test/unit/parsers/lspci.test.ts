import * as assert from 'node:assert/strict';
import { acsWord, parseLspci, redirects } from '../../../src/core/parsers/lspci';
import { expectError, expectOk, firstLines, readFixture } from '../../support/parsing';

const hgx = readFixture('lspci', 'hgx-h100-pex890xx-cx7-full-vvv-acs-off.txt');
const hygon = readFixture('lspci', 'hygon-14c3-root-port-acs-redirect-on-vvv.txt');

describe('parseLspci', () => {
  it('reads a whole HGX box: 517 functions, ACS on 55 of them, all off on the PEX890xx ports', () => {
    const v = expectOk(parseLspci(hgx));
    assert.equal(v.devices.length, 517);
    assert.equal(v.devices.filter((d) => d.acs).length, 55);
    const dsp = v.devices.find((d) => d.slot === '17:01.0');
    assert.ok(dsp?.acs?.cap && dsp.acs.ctl);
    assert.match(dsp.description, /^PCI bridge: Broadcom \/ LSI PEX890xx PCIe Gen 5 Switch/);
    assert.equal(dsp.acs.cap.ReqRedir, true);
    assert.equal(redirects(dsp.acs.ctl), false);
    assert.equal(acsWord(dsp.acs.ctl), 0);
    assert.deepEqual(
      [dsp.linkCapability, dsp.linkStatus, dsp.numaNode, dsp.driver],
      [{ speed: '32GT/s', width: 16 }, { speed: '32GT/s', width: 16 }, 0, 'pcieport'],
    );
    const gpu = v.devices.find((d) => d.slot === '19:00.0');
    assert.deepEqual([gpu?.acs, gpu?.driver], [null, 'nvidia']);
    // A port that trained slower than it can: LnkSta "16GT/s (downgraded)".
    assert.deepEqual(v.devices.find((d) => d.slot === '17:00.0')?.linkStatus, { speed: '16GT/s', width: 4 });
  });

  it('reads ACS redirect on (the bits Linux sets with an IOMMU) on a Hygon root port', () => {
    const d = expectOk(parseLspci(hygon)).devices[0];
    assert.ok(d.acs?.ctl);
    assert.equal(redirects(d.acs.ctl), true);
    assert.equal(acsWord(d.acs.ctl), 0x1d);
    assert.equal(d.acs.ctlLine, 'ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-');
    assert.deepEqual(d.linkStatus, { speed: '16GT/s', width: 4 });
  });

  it('keeps what non-root lspci prints: the header lines and "Capabilities: <access denied>"', () => {
    const cut = firstLines(hygon, 13).replace(/\n$/, '\n\tCapabilities: <access denied>\n\tKernel driver in use: pcieport\n');
    const d = expectOk(parseLspci(cut)).devices[0];
    assert.deepEqual([d.capabilitiesDenied, d.acs, d.driver], [true, null, 'pcieport']);
  });

  it('refuses text that is not lspci output, naming the line', () => {
    expectError(parseLspci(''), 1, /no device/);
    expectError(parseLspci(`pcilib: Cannot open /sys/bus/pci/devices/0000:17:01.0/config\nnot a device\n`), 2, /expected a device line/);
  });
});
