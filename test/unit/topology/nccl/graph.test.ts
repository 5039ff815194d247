// NCCL's view of a PCI tree (src/graph/xml.cc ncclTopoGetXmlFromSys: rewind two path components at a
// time; a component that is no bus address is the CPU) and the path classes its search gives
// (src/graph/paths.cc ncclTopoSetPaths), on CONSTRUCTED trees (constructedSysfs.ts).
import * as assert from 'node:assert/strict';
import { ncclParent, tableFromSysfs } from '../../../../src/core/topology/nccl/fromSysfs';
import { PathTable, TableGpu, TableNet } from '../../../../src/core/topology/nccl/pathTable';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { NEWEST_NCCL } from '../../../../src/core/topology/nccl/version';
import { DeviceSpec, RdmaSpec, constructedSysfs } from './constructedSysfs';

const ORDER = ncclRules(NEWEST_NCCL).order;
const X86 = { arch: 'x86', vendor: 'intel', family: 6, model: 143 } as const;

function table(gpus: readonly DeviceSpec[], nics: readonly RdmaSpec[], c2c = false): PathTable {
  const sysfs = constructedSysfs(gpus, nics);
  const tableGpus: TableGpu[] = gpus.map((g, i) => ({
    name: `GPU${i}`,
    dev: i,
    busId: g.path.slice(g.path.lastIndexOf('/') + 1),
    cc: 90,
    gdrSupport: true,
    c2c,
  }));
  const nets: TableNet[] = nics.map((n) => ({ name: `${n.name}:1`, device: n.name, port: 1, nic: n.name, linkLayer: 'IB', active: true }));
  const built = tableFromSysfs(
    { sysfs, gpus: tableGpus, nets, netSpeedMbps: new Map(), nvlinks: [], cpu: X86, gpuLinkCurrent: true },
    ORDER,
  );
  if ('missing' in built) throw new Error(built.missing);
  return built;
}

describe("NCCL's PCI tree from sysfs", () => {
  const rows: [string, string | null][] = [
    // A device on a root port hangs off the CPU (the next component, pci0000:00, is no bus address).
    ['/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0', null],
    // Behind a switch: the downstream port is skipped, the upstream port is the parent.
    ['/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0', '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0'],
    // A device right on the root bus (VMs): the CPU.
    ['/sys/devices/pci0000:00/0000:00:05.0', null],
    // An odd depth: the rewind lands on the root port, which then stands as NCCL's switch node.
    ['/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0', '/sys/devices/pci0000:00/0000:00:01.0'],
    // A VMD domain (5 hex digits) is not a bus address to NCCL (checkBDFFormat: 12 characters).
    ['/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:01.0/10000:e1:00.0', null],
  ];
  for (const [path, parent] of rows) {
    it(`${path.replace('/sys/devices/', '')} → ${parent === null ? 'the CPU' : parent.replace('/sys/devices/', '')}`, () => {
      assert.equal(ncclParent(path), parent);
    });
  }
});

describe("path classes of NCCL's search (ncclTopoSetPaths)", () => {
  const sw = '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0';
  it('GPU and NIC on one switch: PIX; two switch levels: PXB', () => {
    const t = table(
      [{ path: `${sw}/0000:02:00.0/0000:03:00.0` }],
      [
        { name: 'mlx5_0', path: `${sw}/0000:02:01.0/0000:04:00.0`, ports: [{}] },
        { name: 'mlx5_1', path: `${sw}/0000:02:02.0/0000:05:00.0/0000:06:00.0/0000:07:00.0`, ports: [{}] },
      ],
    );
    assert.deepEqual(
      t.gpuNet[0].map((p) => p.type),
      ['PIX', 'PXB'],
    );
    assert.deepEqual(t.gpuNet[0][0].route, ['GPU/0000:03:00.0', 'PCI/0000:01:00.0', 'NIC/0000:04:00.0', 'NET/mlx5_0:1']);
  });

  it('different root ports of one NUMA node: PHB (nvidia-smi says NODE); another NUMA node: SYS', () => {
    const t = table(
      [{ path: '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0', numa: 0 }],
      [
        { name: 'mlx5_0', path: '/sys/devices/pci0000:20/0000:20:01.0/0000:21:00.0', numa: 0, ports: [{}] },
        { name: 'mlx5_1', path: '/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0', numa: 1, ports: [{}] },
      ],
    );
    assert.deepEqual(
      t.gpuNet[0].map((p) => p.type),
      ['PHB', 'SYS'],
    );
    assert.deepEqual(t.cpus, ['0', '1']);
  });

  it('two functions of one card are one NIC (function 0; NCCL_IB_MERGE_VFS)', () => {
    const t = table(
      [{ path: `${sw}/0000:02:00.0/0000:03:00.0` }],
      [
        { name: 'mlx5_0', path: `${sw}/0000:02:01.0/0000:04:00.0`, ports: [{}] },
        { name: 'mlx5_1', path: `${sw}/0000:02:01.0/0000:04:00.1`, ports: [{}] },
      ],
    );
    assert.deepEqual(
      t.netGpu.map((row) => row[0].route[0]),
      ['NET/mlx5_0:1', 'NET/mlx5_1:1'],
    );
    assert.equal(t.netGpu[1][0].route[1], 'NIC/0000:04:00.0');
  });

  it('a Grace GPU: C2C to its own CPU; its NIC on that CPU is PHB before ncclTopoComputePaths', () => {
    const t = table(
      [{ path: '/sys/devices/pci0009:00/0009:00:00.0/0009:01:00.0', numa: 0 }],
      [{ name: 'mlx5_0', path: '/sys/devices/pci0000:00/0000:00:00.0/0000:01:00.0', numa: 0, ports: [{}] }],
      true,
    );
    assert.equal(t.gpuCpu[0][0].type, 'C2C');
    assert.equal(t.gpuNet[0][0].type, 'PHB');
  });
});
