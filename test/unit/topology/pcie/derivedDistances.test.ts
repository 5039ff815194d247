// Distances derived from the sysfs PCI tree, held to the `nvidia-smi topo -m` each lab profile records
// next to its tree (test/lab/profiles: pxn-port-down, gh200, grace-c2c; trees ASSEMBLED from named real
// data, topo outputs real). NVLink cells are not compared: sysfs does not show NVLink.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTopo, Topology } from '../../../../src/core/parsers/topo';
import { derivedTopology } from '../../../../src/core/topology/pcie/derivedTopology';
import { pcieDistance } from '../../../../src/core/topology/pcie/distance';
import { labGpus, labSysfs } from './labSysfs';

function recordedTopo(profile: string): Topology {
  const parsed = parseTopo(
    fs.readFileSync(path.join(__dirname, '../../../lab/profiles', profile, 'out/nvidia-smi_topo_-m.stdout'), 'utf8'),
  );
  assert.ok(parsed.ok);
  return parsed.value;
}

/** Every cell that is not NVLink, as `row/column token`, from a matrix over the recorded topo's columns. */
function pcieCells(t: Topology): string[] {
  return t.columns
    .flatMap((row) => t.columns.map((column) => `${row}/${column} ${t.links[row]?.[column]}`))
    .filter((c) => !/ NV\d+$/.test(c));
}

function derivedFor(profile: string): { recorded: Topology; derived: Topology } {
  const recorded = recordedTopo(profile);
  const sysfs = labSysfs(profile);
  const derived = derivedTopology({ sysfs, gpus: labGpus(sysfs), nics: recorded.nics.map((n) => n.device ?? n.name) });
  assert.ok(derived);
  return { recorded, derived };
}

describe('derived nvidia-smi distances from the sysfs PCI tree', () => {
  for (const profile of ['pxn-port-down', 'gh200']) {
    it(`${profile}: every PCIe cell equals the recorded topo -m`, () => {
      const { recorded, derived } = derivedFor(profile);
      assert.deepEqual(derived.columns, recorded.columns);
      assert.deepEqual(
        pcieCells(derived).filter((c) => !isGpuGpu(c)),
        pcieCells(recorded).filter((c) => !isGpuGpu(c)),
      );
    });
  }

  it("pxn-port-down: each GPU's NUMA node from sysfs, as topo prints it", () => {
    const { recorded, derived } = derivedFor('pxn-port-down');
    assert.deepEqual(
      derived.gpus.map((g) => g.numaAffinity),
      recorded.gpus.map((g) => g.numaAffinity),
    );
  });

  it("grace-c2c (GB200): the two functions of each BlueField-3 are PIX as recorded; the rest is NODE/SYS by NUMA node, where this tray's nvidia-smi prints SYS throughout", () => {
    const { recorded, derived } = derivedFor('grace-c2c');
    const pix = (t: Topology) => pcieCells(t).filter((c) => c.endsWith(' PIX'));
    assert.deepEqual(pix(derived), pix(recorded));
    // GPU0 (NUMA 0) to mlx5_0 on Grace 0 is NODE by the tree; the real GB200 output says SYS (docs/topo-matrix.md:
    // derived, not nvidia-smi).
    assert.equal(derived.links.GPU0.NIC0, 'NODE');
    assert.equal(recorded.links.GPU0.NIC0, 'SYS');
    assert.equal(derived.links.GPU0.NIC4, 'SYS');
  });

  it("follows NVML's levels on paths the lab trees lack: PXB across two switch levels, PHB across root ports of one host bridge", () => {
    const numa = () => 0;
    const under = (...bdfs: string[]) => `/sys/devices/pci0000:00/${bdfs.join('/')}`;
    // root port 00:01.0 → switch 01:00.0 (downstream 02:00.0, 02:01.0) → switch 03:00.0 (downstream 04:00.0) → GPU 05:00.0
    const gpu = under('0000:00:01.0', '0000:01:00.0', '0000:02:00.0', '0000:03:00.0', '0000:04:00.0', '0000:05:00.0');
    const nic = under('0000:00:01.0', '0000:01:00.0', '0000:02:01.0', '0000:06:00.0');
    const sameSwitch = under('0000:00:01.0', '0000:01:00.0', '0000:02:00.0', '0000:03:00.0', '0000:04:01.0', '0000:07:00.0');
    const otherRootPort = under('0000:00:02.0', '0000:08:00.0');
    assert.equal(pcieDistance(gpu, nic, numa), 'PXB');
    assert.equal(pcieDistance(gpu, sameSwitch, numa), 'PIX');
    assert.equal(pcieDistance(gpu, otherRootPort, numa), 'PHB');
    assert.equal(pcieDistance(gpu, '/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0', numa), 'NODE');
    assert.equal(
      pcieDistance(gpu, '/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0', (p) => (p.includes('pci0000:80') ? 1 : 0)),
      'SYS',
    );
  });
});

function isGpuGpu(cell: string): boolean {
  return /^GPU\d+\/GPU\d+ /.test(cell);
}
