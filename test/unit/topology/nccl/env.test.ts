// NCCL_* values read the way NCCL reads them: ncclGetLevel (src/graph/paths.cc) for NCCL_NET_GDR_LEVEL,
// ncclLoadParam (src/misc/param.cc: strtoll, base 0) for integers, parseStringList/matchIfList
// (src/misc/utils.cc) and the net_ib `^`/`=` prefixes for NCCL_IB_HCA.
import * as assert from 'node:assert/strict';
import { ibHcaKeeps, parseIbHca, readNcclEnv, strtoll } from '../../../../src/core/topology/nccl/env';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { NEWEST_NCCL, parseNcclVersion } from '../../../../src/core/topology/nccl/version';

const newest = ncclRules(NEWEST_NCCL);
const v2_25 = ncclRules(parseNcclVersion('2.25.1') ?? NEWEST_NCCL);

describe('NCCL environment as NCCL reads it', () => {
  const levels: [string, string | null, typeof newest][] = [
    ['PHB', 'PHB', newest],
    ['SYS', 'SYS', newest],
    ['LOC', 'LOC', newest],
    ['P2C', 'P2C', newest],
    ['P2C', null, v2_25], // no P2C before 2.27: not a name NCCL knows, and not a digit
    ['0', 'LOC', newest],
    ['1', 'PIX', newest],
    ['2', 'PXB', newest],
    ['3', 'PHB', newest],
    ['4', 'SYS', newest],
    ['5', 'SYS', newest],
    ['9', 'SYS', newest], // old numbers above 5 are capped (maxOldLevel)
    ['0x3', 'PHB', newest],
    ['010', 'SYS', newest], // strtol base 0: hex, and octal 010 = 8, capped
    ['NODE', null, newest],
    ['phb', null, newest], // names are compared exactly (strcmp)
  ];
  for (const [text, expected, rules] of levels) {
    it(`NCCL_NET_GDR_LEVEL=${text} (NCCL ${rules.version.major}.${rules.version.minor}) → ${expected ?? 'ignored, default kept'}`, () => {
      const env = readNcclEnv({ NCCL_NET_GDR_LEVEL: text }, rules);
      assert.equal(env.gdrLevel, expected);
      assert.equal(env.problems.length, expected === null ? 1 : 0);
    });
  }

  it('says why NODE is refused', () => {
    assert.match(
      readNcclEnv({ NCCL_NET_GDR_LEVEL: 'NODE' }, newest).problems[0],
      /not a level NCCL accepts.*nvidia-smi's NODE is PHB in NCCL/,
    );
  });

  it('integers: strtoll(str, NULL, 0) takes a leading number and ignores the rest', () => {
    for (const [text, value] of [
      ['1', 1],
      ['1abc', 1],
      ['yes', 0],
      ['  3', 3],
      ['-2', -2],
      ['0x10', 16],
      ['017', 15],
      ['', 0],
    ] as const) {
      assert.equal(strtoll(text), value, text);
    }
    assert.equal(readNcclEnv({ NCCL_PXN_DISABLE: 'true' }, newest).pxnDisable, 0);
    assert.equal(readNcclEnv({ NCCL_NET_GDR_READ: '1' }, newest).gdrRead, 1);
  });

  it('variables that change no GPUDirect RDMA verdict are named as ignored', () => {
    assert.match(readNcclEnv({ NCCL_SOCKET_IFNAME: 'eth0' }, newest).problems[0], /NCCL_SOCKET_IFNAME does not change/);
  });

  it('NCCL_IB_HCA: prefixes, exact names, ports, exclusion', () => {
    const rows: [string, string, number, boolean][] = [
      ['mlx5_1', 'mlx5_1', 1, true],
      ['mlx5_1', 'mlx5_10', 1, true], // a prefix without "=" matches mlx5_10 too
      ['=mlx5_1', 'mlx5_10', 1, false],
      ['=mlx5_1', 'mlx5_1', 1, true],
      ['mlx5_0:1', 'mlx5_0', 2, false],
      ['mlx5_0:1', 'mlx5_0', 1, true],
      ['^mlx5_0', 'mlx5_0', 1, false],
      ['^mlx5_0', 'mlx5_1', 1, true],
      ['^=mlx5_1', 'mlx5_10', 1, true],
      ['^', 'mlx5_0', 1, false], // an empty list matches every device, so "^" leaves none
      ['', 'mlx5_0', 1, true],
    ];
    for (const [value, device, port, kept] of rows)
      assert.equal(ibHcaKeeps(parseIbHca(value), device, port), kept, `${value} ${device}:${port}`);
  });
});
