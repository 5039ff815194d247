// NCCL's GID choice on real GID tables (show_gids fixtures: the same entries as sysfs).
import * as assert from 'node:assert/strict';
import { GidEntry, parseShowGids } from '../../../../src/core/parsers/showGids';
import { bestGid, gidKind, ncclGidChoice } from '../../../../src/core/topology/nccl/gidIndex';
import { parseNcclVersion } from '../../../../src/core/topology/nccl/version';
import { expectOk, readFixture } from '../../../support/parsing';

const table = (name: string): GidEntry[] => expectOk(parseShowGids(readFixture('show-gids', name))).gids;
const v = (s: string) => parseNcclVersion(s)!;
const spectrum = table('cx6-mlx5_0-two-link-local-ipv6-plus-ipv4-spectrumscale.txt');
const sparse = table('k8s-sparse-ipv4-first-then-link-local-nccl-pr1587.txt');

describe("NCCL's RoCE GID index (ncclIbGetGidIndex)", () => {
  it('2.21 and later pick the RoCE v2 entry of the IPv4 address; 2.20 and older take index 0, a link-local v1 GID', () => {
    assert.equal(ncclGidChoice(spectrum, v('2.30.7'), {}).index, 5);
    assert.equal(ncclGidChoice(spectrum, v('2.21.5'), {}).index, 5);
    const old = ncclGidChoice(spectrum, v('2.20.5'), {});
    assert.deepEqual([old.index, old.entry && gidKind(old.entry.gid), old.entry?.roceVersion], [0, 'link-local', 1]);
    assert.equal(bestGid(spectrum)?.index, 5);
  });

  it('follows NCCL_IB_GID_INDEX and NCCL_IB_ADDR_FAMILY', () => {
    assert.equal(ncclGidChoice(spectrum, v('2.20.5'), { NCCL_IB_GID_INDEX: '5' }).index, 5);
    assert.equal(ncclGidChoice(spectrum, v('2.30.7'), { NCCL_IB_GID_INDEX: '3' }).index, 3);
    // Only link-local IPv6 entries: AF_INET6 finds no routable one and stays on index 0.
    assert.equal(ncclGidChoice(spectrum, v('2.30.7'), { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }).index, 0);
  });

  it('walks a sparse table past its empty slots to the IPv4 v2 entry', () => {
    assert.equal(ncclGidChoice(sparse, v('2.30.7'), {}).index, 7);
    assert.equal(ncclGidChoice(sparse, v('2.20.5'), {}).entry, null);
  });

  it('before 2.26 an entry whose type cannot be read fails the selection; 2.26 goes on', () => {
    const untyped = sparse.map((g) => (g.index === 6 ? { ...g, roceVersion: null } : g));
    assert.equal(ncclGidChoice(untyped, v('2.25.1'), {}).index, null);
    assert.equal(ncclGidChoice(untyped, v('2.26.2'), {}).index, 7);
  });
});
