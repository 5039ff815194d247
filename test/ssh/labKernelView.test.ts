// What a simulated host's kernel shows, as gdr-doctor's probe and NCCL read it. The PCI tree in sysfs:
// the probe's exact PCI_SYSFS_COMMAND run as the login user over real ssh, checked against the
// profile's sysfs.json and against the real `readlink -f` inside the host (NCCL resolves
// /sys/class/infiniband/<dev>/device with realpath). /proc/kallsyms: the symbols of the profile's
// loaded modules. A host must show none of the test machine's own devices or symbols.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PCI_SYSFS_COMMAND, PciSysfs, parsePciSysfs } from '../../src/core/probe/pciSysfs';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';
import { readSysfsSpec, SysfsSpec } from '../lab/sysfs';

const RECORDS = '/tmp/gdr-doctor-lab-pci-sysfs.records.json';
const profiles = path.join(__dirname, '..', 'lab', 'profiles');

let lab: Lab;

function ssh(host: string, command: string, input?: string): string {
  const r = spawnSync('ssh', ['-F', lab.sshConfigPath, host, command], { encoding: 'utf8', input, timeout: 30_000 });
  assert.equal(r.status, 0, `${host}: ${command}: ${r.stderr}`);
  return r.stdout;
}

/** The probe's read, as the probe runs it: sh, as the unprivileged login user. */
function probeRead(host: string): PciSysfs {
  const parsed = parsePciSysfs(ssh(host, 'sh', PCI_SYSFS_COMMAND));
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.value;
}

const bdfPath = (spec: SysfsSpec, bdf: string) => `/sys/devices/${Object.keys(spec.pci).find((p) => p.endsWith(`/${bdf}`))}`;

describe("a simulated host's kernel view: PCI tree in sysfs, /proc/kallsyms", function () {
  this.timeout(90_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    lab = await startLab({
      recordsPath: RECORDS,
      network: { bridge: 'gdrbr14', subnet: 14 },
      hosts: [
        { name: 'tree-grace', profile: 'grace-c2c' },
        { name: 'tree-hgx', profile: 'pxn-port-down', netns: true },
        { name: 'no-tree', profile: 'healthy' },
        { name: 'inbox', profile: 'no-nic' },
      ],
    });
  });
  after(async () => lab?.stop());

  for (const [host, profile] of [
    ['tree-grace', 'grace-c2c'],
    ['tree-hgx', 'pxn-port-down'],
  ]) {
    it(`${profile}: every RDMA device at its PCI path with its ports, every NVIDIA GPU, as sysfs.json lays them out (${host})`, () => {
      const spec = readSysfsSpec(path.join(profiles, profile, 'sysfs.json'));
      const read = probeRead(host);
      const rdma = Object.entries(spec.infiniband ?? {});
      assert.deepEqual(
        read.rdma.map((d) => [d.name, d.path]),
        rdma.map(([name, d]) => [name, bdfPath(spec, d.pci)]),
      );
      for (const [name, d] of rdma) {
        const ports = read.rdma.find((r) => r.name === name)?.ports.map((p) => [String(p.port), p.state, p.linkLayer, p.rate]);
        assert.deepEqual(
          ports,
          Object.entries(d.ports).map(([n, p]) => [n, p.state.replace(/^\d+: /, ''), p.link_layer, p.rate]),
          name,
        );
      }
      const gpus = Object.entries(spec.pci)
        .filter(([, a]) => a.vendor === '0x10de' && a.class.startsWith('0x03'))
        .map(([p]) => `/sys/devices/${p}`);
      assert.deepEqual(read.nvidia, gpus);
      // Each device on those paths, once, with the attributes of the tree (the root ports too).
      for (const [p, attrs] of Object.entries(spec.pci)) {
        const dev = read.devices.get(`/sys/devices/${p}`);
        assert.ok(dev, p);
        assert.deepEqual(
          [dev.class, dev.numaNode, dev.maxLinkSpeed],
          [attrs.class, Number(attrs.numa_node), attrs.max_link_speed ?? ''],
          p,
        );
      }
    });

    it(`${profile}: readlink -f resolves the class and bus links to the same paths (${host})`, () => {
      const spec = readSysfsSpec(path.join(profiles, profile, 'sysfs.json'));
      const names = Object.keys(spec.infiniband ?? {});
      const links = ssh(host, `readlink -f ${names.map((n) => `/sys/class/infiniband/${n}/device`).join(' ')}`)
        .trim()
        .split('\n');
      assert.deepEqual(
        links,
        names.map((n) => bdfPath(spec, spec.infiniband?.[n].pci as string)),
      );
      const bdfs = Object.keys(spec.pci).map((p) => p.slice(p.lastIndexOf('/') + 1));
      const bus = ssh(host, `readlink -f ${bdfs.map((b) => `/sys/bus/pci/devices/${b}`).join(' ')}`)
        .trim()
        .split('\n');
      assert.deepEqual(
        bus,
        Object.keys(spec.pci).map((p) => `/sys/devices/${p}`),
      );
    });
  }

  it('a profile without a tree shows no RDMA device, no NVIDIA device and no PCI device of the test machine', () => {
    const read = probeRead('no-tree');
    assert.deepEqual([read.rdma, read.nvidia, read.devices.size], [[], [], 0]);
    assert.equal(ssh('no-tree', 'ls -A /sys/bus/pci/devices /sys/class/infiniband'), '/sys/bus/pci/devices:\n\n/sys/class/infiniband:\n');
  });

  it("keeps the rest of the real /sys: other classes, the CPUs, a netns host's own network devices", () => {
    assert.match(ssh('no-tree', 'ls /sys/class/net'), /^lo$/m);
    assert.match(ssh('no-tree', 'cat /sys/devices/system/cpu/online'), /^\d/);
    assert.match(ssh('tree-hgx', 'ls /sys/class/net'), /^eth0$/m);
  });

  it("/proc/kallsyms lists OFED's ib_register_peer_memory_client while its module is loaded, and only then", () => {
    const grep = 'grep -c ib_register_peer_memory_client /proc/kallsyms || true';
    assert.equal(ssh('no-tree', grep), '7\n');
    assert.equal(ssh('inbox', grep), '0\n', 'the inbox ib_core exports no peer-memory API');
    ssh('no-tree', 'sudo modprobe -r nvidia_peermem rdma_ucm mlx5_ib ib_uverbs');
    assert.equal(ssh('no-tree', grep), '0\n');
    ssh('no-tree', 'sudo modprobe ib_uverbs');
    assert.match(
      ssh('no-tree', 'grep ib_register_peer_memory_client /proc/kallsyms'),
      /^0{16} T ib_register_peer_memory_client\t\[ib_uverbs\]$/m,
    );
  });
});
