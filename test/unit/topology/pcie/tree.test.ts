// The PCIe tree drawn in the topology panel, built from the lab profiles' sysfs trees (labSysfs.ts):
// CPUs per NUMA node, host bridges with their root ports folded in, switches with their downstream
// ports, GPUs and NICs as leaves with their links; a degraded link is flagged.
import * as assert from 'node:assert/strict';
import type { PciSysfs } from '../../../../src/core/probe/pciSysfs';
import { linkText, pcieLinkOf } from '../../../../src/core/topology/pcie/link';
import { PcieNode, pcieTree } from '../../../../src/core/topology/pcie/tree';
import { labGpus, labSysfs } from './labSysfs';

function treeOf(profile: string, sysfs: PciSysfs = labSysfs(profile)) {
  const nicColumns = new Map(sysfs.rdma.map((r, i) => [r.name, `NIC${i}`]));
  return pcieTree({ sysfs, gpus: labGpus(sysfs), nicColumns });
}

function node(nodes: readonly PcieNode[], id: string): PcieNode {
  const found = nodes.find((n) => n.id === id);
  assert.ok(found, `no node ${id}`);
  return found;
}

describe('the PCIe tree from sysfs', () => {
  it('pxn-port-down (8× H100 HGX): per socket four host bridges, each with one PCIe switch holding a GPU and a NIC', () => {
    const { nodes } = treeOf('pxn-port-down');
    const count = (kind: string) => nodes.filter((n) => n.kind === kind).length;
    assert.deepEqual([count('cpu'), count('host-bridge'), count('switch'), count('gpu'), count('nic')], [2, 8, 8, 8, 8]);
    assert.deepEqual(
      nodes.filter((n) => n.kind === 'cpu').map((n) => n.id),
      ['cpu:0', 'cpu:1'],
    );
    const gpu0 = node(nodes, '0000:18:00.0');
    assert.deepEqual([gpu0.kind, gpu0.column, gpu0.parent, gpu0.via], ['gpu', 'GPU0', '0000:16:00.0', '0000:17:00.0']);
    const nic1 = node(nodes, '0000:29:00.0');
    assert.deepEqual([nic1.kind, nic1.column, nic1.rdma, nic1.parent], ['nic', 'NIC1', ['mlx5_1'], '0000:27:00.0']);
    const sw = node(nodes, '0000:16:00.0');
    assert.deepEqual(
      [sw.kind, sw.parent, sw.via, sw.ports, sw.vendor, sw.device],
      ['switch', 'pci0000:15', '0000:15:01.0', ['0000:17:00.0', '0000:17:01.0'], '0x1000', '0xc030'],
    );
    assert.deepEqual(node(nodes, 'pci0000:15').ports, ['0000:15:01.0']);
    assert.equal(node(nodes, 'pci0000:97').parent, 'cpu:1');
    assert.equal(linkText(gpu0.link ?? assert.fail()), 'Gen5 x16');
    // Depth first: each node comes after its parent.
    nodes.forEach((n, i) => assert.ok(n.parent === null || nodes.findIndex((p) => p.id === n.parent) < i, n.id));
  });

  it("gh200: the GPU and both BlueField-3 functions hang off root ports; the GPU's x1 link as sysfs gives it", () => {
    const { nodes } = treeOf('gh200');
    const gpu = node(nodes, '0009:01:00.0');
    assert.deepEqual([gpu.kind, gpu.parent, gpu.via], ['gpu', 'pci0009:00', '0009:00:00.0']);
    assert.equal(gpu.link?.width, 1);
    assert.deepEqual(
      nodes.filter((n) => n.parent === 'pci0000:00').map((n) => n.column),
      ['NIC0', 'NIC1'],
    );
    assert.deepEqual(
      nodes.filter((n) => n.kind === 'cpu').map((n) => n.id),
      ['cpu:0'],
    );
  });

  it('grace-c2c: a ConnectX-7 behind a bridge pair is one switch level, its parent the host bridge', () => {
    const { nodes } = treeOf('grace-c2c');
    const nic = nodes.find((n) => n.rdma.includes('mlx5_0'));
    assert.deepEqual([nic?.parent, nic?.via], ['0000:01:00.0', '0000:02:00.0']);
    assert.deepEqual([node(nodes, '0000:01:00.0').kind, node(nodes, '0000:01:00.0').parent], ['switch', 'pci0000:00']);
    assert.deepEqual(
      nodes.filter((n) => n.kind === 'gpu').map((n) => `${n.column}@${n.numaNode}`),
      ['GPU0@0', 'GPU1@0', 'GPU2@1', 'GPU3@1'],
    );
  });

  it('flags a link trained below its maximum, and says when only the speed is lower (an idle GPU)', () => {
    const base = {
      path: '/sys/devices/pci0000:00/0000:00:01.0',
      bdf: '0000:00:01.0',
      class: '0x030200',
      vendor: '0x10de',
      device: '0x2330',
      numaNode: 0,
    };
    const x8 = pcieLinkOf({
      ...base,
      maxLinkSpeed: '32.0 GT/s PCIe',
      maxLinkWidth: 16,
      currentLinkSpeed: '32.0 GT/s PCIe',
      currentLinkWidth: 8,
    });
    assert.deepEqual([x8?.degraded, x8?.speedOnly, x8 && linkText(x8)], [true, false, 'Gen5 x8 (max Gen5 x16)']);
    const idle = pcieLinkOf({
      ...base,
      maxLinkSpeed: '32.0 GT/s PCIe',
      maxLinkWidth: 16,
      currentLinkSpeed: '2.5 GT/s PCIe',
      currentLinkWidth: 16,
    });
    assert.deepEqual([idle?.degraded, idle?.speedOnly, idle && linkText(idle)], [true, true, 'Gen1 x16 (max Gen5 x16)']);
    assert.equal(pcieLinkOf({ ...base, maxLinkSpeed: '', maxLinkWidth: null, currentLinkSpeed: '', currentLinkWidth: null }), null);
  });
});
