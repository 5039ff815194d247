import * as assert from 'node:assert/strict';
import { parseMlnxQos } from '../../../src/core/parsers/mlnxQos';
import { expectError, expectOk, readFixture } from '../../support/parsing';

const qos = (file: string) => expectOk(parseMlnxQos(readFixture('mlnx-qos', file)));
/** The DSCP values a priority takes, as the table holds them. */
const dscpsOf = (table: readonly (number | null)[], prio: number) => table.flatMap((p, d) => (p === prio ? [d] : []));

describe('parseMlnxQos', () => {
  it('reads trust dscp, the default dscp2prio map (DSCP n → priority n >> 3) and PFC on priority 3 (netarbiter, eth4)', () => {
    const q = qos('netarbiter-eth4-dscp-pfc3.txt');
    assert.equal(q.trust, 'dscp');
    assert.deepEqual(q.pfcEnabled, [3]);
    assert.deepEqual(
      q.dscpPriority,
      Array.from({ length: 64 }, (_, d) => d >> 3),
    );
  });

  it('reads a remapped table: DSCP 30 moved to priority 6, whose list runs over two lines; skips the buffer row', () => {
    const q = qos('ens14f0-dscp-30-moved-to-prio6-buffer-row.txt');
    assert.equal(q.trust, 'dscp');
    assert.deepEqual(dscpsOf(q.dscpPriority, 3), [24, 25, 26, 27, 28, 29, 31]);
    assert.deepEqual(dscpsOf(q.dscpPriority, 6), [30, 48, 49, 50, 51, 52, 53, 54, 55]);
    assert.deepEqual(q.pfcEnabled, [3]);
  });

  it('reads trust pcp (no dscp2prio lines) with PFC on 3, and with PFC on no priority', () => {
    const pcp = qos('ens14f0-pcp-pfc3-buffer-row.txt');
    assert.equal(pcp.trust, 'pcp');
    assert.deepEqual(pcp.pfcEnabled, [3]);
    assert.ok(pcp.dscpPriority.every((p) => p === null));
    const none = qos('centos12-ens6-pcp-no-pfc.txt');
    assert.equal(none.trust, 'pcp');
    assert.deepEqual(none.pfcEnabled, []);
  });

  it('reads rows separated by tabs and single spaces, without indentation', () => {
    const q = expectOk(
      parseMlnxQos('Priority trust state: dscp\nPFC configuration:\npriority\t0\t1\t2\t3\t4\t5\t6\t7\nenabled 1 0 1 0 0 0 1 1\n'),
    );
    assert.deepEqual(q.pfcEnabled, [0, 2, 6, 7]);
  });

  it('refuses an error message (no QoS shown), and a DSCP or priority out of range with its line', () => {
    expectError(parseMlnxQos('Netlink error: Operation not supported\n'), 1, /no "Priority trust state:" line and no PFC rows/);
    expectError(parseMlnxQos('Priority trust state: dscp\n        prio:3 dscp:64,\n'), 2, /DSCP above 63/);
    expectError(parseMlnxQos('Priority trust state: dscp\n        prio:8 dscp:01,\n'), 2, /priority above 7/);
    expectError(parseMlnxQos('        prio:3 dscp:1;2\n'), 1, /prio:<priority> dscp:<list>/);
  });

  it('reads a 64 KiB line of each kind and stays bounded (one pass per line)', () => {
    const long = 'x'.repeat(65536);
    expectOk(parseMlnxQos(`Priority trust state: ${long}\n`));
    expectError(parseMlnxQos(`        prio:3 dscp:${'1,'.repeat(32768)}x\n`), 1, /prio:<priority>/);
    const row = expectOk(parseMlnxQos(`        enabled${' 0'.repeat(32768)} 1\n`));
    assert.deepEqual(row.pfcEnabled, [32768]);
    expectError(parseMlnxQos(`${' \t'.repeat(32768)}priority\n`), 1, /no PFC rows/);
  });
});
