import * as assert from 'node:assert/strict';
import { parseShowGids, roceVersionOf } from '../../../src/core/parsers/showGids';
import { expectError, expectOk, readFixture } from '../../support/parsing';

describe('parseShowGids', () => {
  it('reads a ConnectX-6 port with two link-local addresses and one IPv4 address, as show_gids prints sysfs', () => {
    const v = expectOk(parseShowGids(readFixture('show-gids', 'cx6-mlx5_0-two-link-local-ipv6-plus-ipv4-spectrumscale.txt')));
    assert.equal(v.found, 6);
    assert.deepEqual(
      v.gids.map((g) => [g.index, g.roceVersion, g.netdev]),
      [
        [0, 1, 'ens1f0'],
        [1, 2, 'ens1f0'],
        [2, 1, 'ens1f0'],
        [3, 2, 'ens1f0'],
        [4, 1, 'ens1f0'],
        [5, 2, 'ens1f0'],
      ],
    );
    assert.equal(v.gids[5].gid, '0000:0000:0000:0000:0000:ffff:ac13:003c');
  });

  it('reads a sparse Kubernetes table (entries 6-9 only)', () => {
    const v = expectOk(parseShowGids(readFixture('show-gids', 'k8s-sparse-ipv4-first-then-link-local-nccl-pr1587.txt')));
    assert.deepEqual(
      v.gids.map((g) => g.index),
      [6, 7, 8, 9],
    );
    assert.equal(v.found, null);
  });

  it('reads gid_attrs/types as the kernel prints them', () => {
    assert.deepEqual(['IB/RoCE v1', 'RoCE v2', '', 'RoCE v1\n'].map(roceVersionOf), [1, 2, null, 1]);
  });

  it('refuses a missing header, a bad row and a wrong count', () => {
    expectError(parseShowGids('mlx5_0 1 0 fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8 v1 ens1f0\n'), 1, /header/);
    const head = 'DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n';
    expectError(parseShowGids(`${head}mlx5_0  1  0  fe80::1  v1 ens1f0\n`), 2, /expected/);
    expectError(parseShowGids(`${head}n_gids_found=2\n`), 2, /n_gids_found=2 but 0/);
  });
});
