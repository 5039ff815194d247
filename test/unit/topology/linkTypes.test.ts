import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { parseTopo } from '../../../src/core/parsers/topo';
import { NVML_LEVEL, classifyLink, describeLink, knownLinkTypes, linkMeaning } from '../../../src/core/topology/linkTypes';
import { linkRule } from '../../../src/core/topology/nccl/linkRule';
import { NEWEST_NCCL, parseNcclVersion } from '../../../src/core/topology/nccl/version';

describe('classifyLink', () => {
  // token, NVML level, NCCL path, GDR under the newest NCCL's defaults (linkRule; ncclTopoCheckGdr)
  const table: [string, number | null, string | null, boolean | null][] = [
    ['X', 0, 'LOC', null],
    ['PIX', 10, 'PIX', true],
    ['PXB', 20, 'PXB', true],
    ['PHB', 30, 'PHB', false],
    ['NODE', 40, 'PHB', false],
    ['SYS', 50, 'SYS', false],
    ['SOC', 50, 'SYS', false],
  ];
  for (const [token, level, ncclPath, gdr] of table) {
    it(`${token}: NVML level ${level}, NCCL path ${ncclPath}, GDR by default ${gdr}`, () => {
      const link = classifyLink(token);
      assert.strictEqual(link.token, token);
      assert.strictEqual(link.nvmlLevel, level);
      assert.strictEqual(link.ncclPath, ncclPath);
      assert.strictEqual(linkRule(token, NEWEST_NCCL).usesGdr, gdr);
      assert.strictEqual(link.nvlinkCount, null);
    });
  }

  it('NV<n> of any count is NVLink with its count, no PCIe level and no GDR verdict', () => {
    for (const [token, count] of [
      ['NV1', 1],
      ['NV4', 4],
      ['NV12', 12],
      ['NV18', 18],
    ] as const) {
      const link = classifyLink(token);
      assert.strictEqual(link.kind, 'nvlink');
      assert.strictEqual(link.legendToken, 'NV#');
      assert.strictEqual(link.nvlinkCount, count);
      assert.strictEqual(link.nvmlLevel, null);
      assert.strictEqual(link.ncclPath, 'NVL');
      assert.strictEqual(linkRule(token, NEWEST_NCCL).usesGdr, null);
    }
  });

  it('an unknown token is kept and marked unknown', () => {
    const link = classifyLink('C2C');
    assert.strictEqual(link.kind, 'unknown');
    assert.strictEqual(link.token, 'C2C');
    assert.strictEqual(link.nvmlLevel, null);
    assert.strictEqual(link.ncclPath, null);
    assert.strictEqual(linkRule('C2C', NEWEST_NCCL).usesGdr, null);
    assert.strictEqual(classifyLink('NV').kind, 'unknown');
  });

  it("SOC is the older drivers' SYS", () => {
    assert.strictEqual(classifyLink('SOC').nvmlLevel, classifyLink('SYS').nvmlLevel);
    assert.strictEqual(classifyLink('SOC').currentLegend, null);
    assert.strictEqual(NVML_LEVEL.SYSTEM, 50);
  });
});

describe('linkRule at other NCCL_NET_GDR_LEVEL values and releases', () => {
  it('PHB reaches NODE and PHB but not SYS; SYS reaches everything; PIX not PXB', () => {
    assert.strictEqual(linkRule('NODE', NEWEST_NCCL, { NCCL_NET_GDR_LEVEL: 'PHB' }).usesGdr, true);
    assert.strictEqual(linkRule('SYS', NEWEST_NCCL, { NCCL_NET_GDR_LEVEL: 'PHB' }).usesGdr, false);
    assert.strictEqual(linkRule('SOC', NEWEST_NCCL, { NCCL_NET_GDR_LEVEL: 'SYS' }).usesGdr, true);
    assert.strictEqual(linkRule('PXB', NEWEST_NCCL, { NCCL_NET_GDR_LEVEL: 'PIX' }).usesGdr, false);
  });

  it('names the release and the function, and NODE as NCCL counts it', () => {
    const rule = linkRule('NODE', parseNcclVersion('2.21') ?? NEWEST_NCCL);
    assert.match(rule.sentence, /NCCL 2\.21 counts NODE as PHB .*beyond the default threshold PXB.*ncclTopoCheckGdr/);
  });
});

describe('describeLink and linkMeaning', () => {
  it('put the NVLink count into the meaning', () => {
    assert.strictEqual(describeLink('NV12'), 'NV12: direct NVLink connection, 12 link(s) bonded');
    assert.strictEqual(linkMeaning('NV2'), 'direct NVLink connection, 2 link(s) bonded');
  });

  it('give one plain line for every known token and for unknown ones', () => {
    for (const token of ['X', 'PIX', 'PXB', 'PHB', 'NODE', 'SYS', 'SOC', 'P2C']) {
      const line = describeLink(token);
      assert.ok(line.startsWith(`${token}: `) && !line.includes('\n') && line.length > token.length + 10, line);
    }
    assert.match(describeLink('SOC'), /older drivers/);
    assert.match(describeLink('P2C'), /does not know/);
  });
});

describe('knownLinkTypes legend wordings match real outputs', () => {
  const dir = path.join(__dirname, '../../fixtures/topo');
  const fixtures = fs.readdirSync(dir).filter((f) => f.endsWith('.txt'));
  const wordings = new Map(knownLinkTypes().map((info) => [info.legendToken, [info.currentLegend, ...info.olderLegends]]));

  it('every legend line printed in every fixture is a known wording of its token', () => {
    let checked = 0;
    for (const file of fixtures) {
      const result = parseTopo(fs.readFileSync(path.join(dir, file), 'utf8'));
      assert.ok(result.ok, file);
      for (const entry of result.value.legend) {
        assert.ok(wordings.get(entry.token)?.includes(entry.meaning), `${file}: ${entry.token} = ${entry.meaning}`);
        checked++;
      }
    }
    assert.ok(checked >= 7, `checked ${checked} legend lines`);
  });

  it('the seed prints the current wording of every token but SOC', () => {
    const seed = parseTopo(fs.readFileSync(path.join(dir, 'seed-xeon-gold-5318y-8gpu-3nic.txt'), 'utf8'));
    assert.ok(seed.ok);
    const current = knownLinkTypes().filter((info) => info.currentLegend !== null);
    assert.deepStrictEqual(
      seed.value.legend.map((e) => [e.token, e.meaning]).sort(),
      current.map((info) => [info.legendToken, info.currentLegend]).sort(),
    );
  });
});
