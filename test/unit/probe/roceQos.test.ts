// The probe's roce-qos output: one frame per RoCE interface (device, port, interface), MLNX_OFED's device-wide
// traffic class, each mlnx_qos output read on its own; the count and byte caps said when hit.
import * as assert from 'node:assert/strict';
import { MAX_QOS_BYTES, parseRoceQos } from '../../../src/core/probe/roceQos';
import { expectError, expectOk, readFixture } from '../../support/parsing';

const DSCP = readFixture('mlnx-qos', 'netarbiter-eth4-dscp-pfc3.txt');

describe('parseRoceQos (the probe framing of mlnx_qos -i per RoCE interface)', () => {
  it('attributes each output to its port and interface, with the device-wide class where shown', () => {
    const v = expectOk(
      parseRoceQos(
        `==> mlx5_0 1 ens1f0np0 <==\n# tc/1/traffic_class: Global tclass=106\n${DSCP}\n==> mlx5_1 1 ens1f1np1 <==\nNetlink error: Operation not supported\n\n`,
      ),
    );
    assert.equal(v.installed, true);
    assert.deepEqual(
      v.ports.map((p) => [p.device, p.port, p.netdev, p.globalTclass, p.qos?.trust ?? null, p.error]),
      [
        ['mlx5_0', 1, 'ens1f0np0', 'Global tclass=106', 'dscp', null],
        ['mlx5_1', 1, 'ens1f1np1', null, null, 'Netlink error: Operation not supported'],
      ],
    );
    assert.deepEqual(v.ports[0].qos?.pfcEnabled, [3]);
  });

  it('says mlnx_qos is not installed; an empty output is no RoCE interface', () => {
    assert.deepEqual(expectOk(parseRoceQos('mlnx_qos: not installed\n')), { installed: false, ports: [], more: false });
    assert.deepEqual(expectOk(parseRoceQos('')), { installed: true, ports: [], more: false });
  });

  it('marks the interface cap and a cut output; refuses text before the first frame', () => {
    const cut = `==> mlx5_0 1 eth0 <==\n${DSCP}${'x'.repeat(MAX_QOS_BYTES)}\n# more RoCE interfaces, not read\n`;
    const v = expectOk(parseRoceQos(cut));
    assert.equal(v.more, true);
    assert.equal(v.ports[0].cut, true);
    assert.deepEqual(v.ports[0].qos?.pfcEnabled, [3]);
    expectError(parseRoceQos('Priority trust state: dscp\n'), 1, /expected "==> <device> <port> <interface> <=="/);
    expectError(parseRoceQos('==> mlx5_0 1 eth0;reboot <==\n'), 1, /expected "==> <device>/);
  });
});
