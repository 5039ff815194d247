// The demo host is one machine: every recording in media/demo agrees with the others (GPUs and their
// bus ids, NICs and their ports, NUMA nodes and CPU lists, driver and kernel, module state), and each
// is what media/demo/SOURCES.md says it is: a byte-for-byte copy of a real fixture, or that fixture
// with exactly the changes it lists.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { factOf } from '../../../src/core/diagnosis/evidence';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport/demo';
import { formatCpuList } from '../../../src/core/parsers/cpuList';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { ProbeReport, runProbe } from '../../../src/core/probe/runProbe';
import { DEMO_DIR, FIXTURES, REPO_ROOT } from '../../support/paths';
import { pciSysfsOutput } from '../../support/pciSysfsOutput';

const host = (file: string) => fs.readFileSync(path.join(DEMO_DIR, 'host', file), 'utf8');
const fixture = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
/** `00000000:18:00.0` (nvidia-smi) and `/sys/devices/…/0000:18:00.0` (sysfs) as one bus id. */
const bdf = (id: string) =>
  id
    .slice(id.lastIndexOf('/') + 1)
    .replace(/^0000(\w{4}:)/, '$1')
    .toLowerCase();

async function demoReport(loaded = false): Promise<ProbeReport> {
  const demo = new DemoHost(DEMO_DIR);
  if (loaded) demo.update({ ...demo.current, peermemLoaded: true });
  return runProbe(demo.runner(), { host: DEMO_HOST_NAME });
}

describe('the demo host: one coherent machine', () => {
  let r: ProbeReport;
  let loaded: ProbeReport;
  before(async () => {
    r = await demoReport();
    loaded = await demoReport(true);
  });
  const fact = <K extends Parameters<typeof factOf>[1]>(id: K, report = r) => {
    const f = factOf(report, id);
    assert.ok(f, `${id} did not parse`);
    return f;
  };
  const modinfo = (id: 'modinfo-nvidia' | 'modinfo-nvidia-peermem') => {
    const m = fact(id);
    assert.ok(m.found, `${id} found no module`);
    return m;
  };

  it('has every diagnostic, each complete and read', () => {
    assert.deepEqual(
      r.commands.map((c) => c.id),
      PROBE_COMMANDS.map((c) => c.id),
    );
    for (const c of r.commands) {
      assert.equal(c.state, 'complete', c.id);
      assert.ok(r.facts[c.id as keyof typeof r.facts]?.parsed.ok, `${c.id} is not read`);
    }
    // The one non-zero exit is modinfo's answer for a module that is not installed.
    assert.deepEqual(
      r.commands.filter((c) => c.exitCode !== 0).map((c) => [c.id, c.exitCode]),
      [['modinfo-nv-peer-mem', 1]],
    );
    assert.equal(fact('modinfo-nv-peer-mem').found, false);
  });

  it('the same eight GPUs everywhere: matrix, nvidia-smi -q, the query and sysfs, by bus id and name', () => {
    const smi = fact('smi-q');
    const query = fact('gpus');
    const sysfs = fact('pci-sysfs');
    assert.equal(fact('topo').gpus.length, 8);
    assert.equal(smi.attachedGpus, 8);
    const buses = smi.gpus.map((g) => bdf(g.busId));
    assert.deepEqual(
      query.gpus.map((g) => bdf(g.pciBusId ?? '')),
      buses,
    );
    assert.deepEqual(sysfs.nvidia.map(bdf), buses);
    assert.deepEqual(
      query.gpus.map((g) => g.name),
      smi.gpus.map((g) => g.productName),
    );
    // nvidia-smi numbers GPUs by bus id, as the matrix's GPU0…GPU7.
    assert.deepEqual(
      query.gpus.map((g) => g.index),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    for (const path of sysfs.nvidia) assert.equal(sysfs.devices.get(path)?.device, '0x2330', path); // H100 SXM
  });

  it('one driver, 565.57.01, proprietary, in every output that names it (no dma-buf)', () => {
    const versions = [
      fact('smi-q').driverVersion,
      ...fact('gpus').gpus.map((g) => g.driverVersion),
      modinfo('modinfo-nvidia').fields.version,
      fact('nvidia-version').driverVersion,
      modinfo('modinfo-nvidia-peermem').fields.version,
      ...fact('sys-module-peermem', loaded).modules.map((m) => m.version),
      ...fact('memory-peers', loaded).peers.map((p) => p.version),
    ];
    assert.deepEqual([...new Set(versions)], ['565.57.01']);
    assert.equal(fact('nvidia-version').openKernelModule, false);
    assert.equal(modinfo('modinfo-nvidia').fields.license, 'NVIDIA');
  });

  it("one kernel: uname, both modules' vermagic and DKMS paths; the OFED of that kernel; Ubuntu 22.04", () => {
    const release = fact('uname').release;
    assert.equal(release, '6.8.0-58-generic');
    for (const id of ['modinfo-nvidia', 'modinfo-nvidia-peermem'] as const) {
      assert.equal(modinfo(id).fields.vermagic.split(' ')[0], release, id);
      assert.ok(modinfo(id).fields.filename.startsWith(`/lib/modules/${release}/updates/dkms/`), id);
    }
    assert.match(host('ofed.txt'), /^MLNX_OFED_LINUX-24\.10-/);
    assert.match(host('os-release.txt'), /^VERSION_ID="22\.04"$/m);
  });

  it('the same eight NICs: the matrix legend, ibv_devinfo and sysfs, with the same ports and states', () => {
    const names = ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7'];
    const ibv = fact('ibv');
    const sysfs = fact('pci-sysfs');
    assert.deepEqual(
      fact('topo').nics.map((n) => n.device),
      names,
    );
    assert.deepEqual(
      ibv.devices.map((d) => d.hca_id),
      names,
    );
    assert.deepEqual(
      sysfs.rdma.map((d) => d.name),
      names,
    );
    for (const d of ibv.devices) {
      const own = sysfs.rdma.find((s) => s.name === d.hca_id);
      assert.ok(own);
      const ibvState = (p: (typeof d.ports)[number]) => String(p.state).replace(/^PORT_(\w+) \(\d\)$/, '$1');
      assert.deepEqual(
        own.ports.map((p) => [p.port, p.state, p.linkLayer]),
        d.ports.map((p) => [p.port, ibvState(p), String(p.link_layer)]),
        d.hca_id,
      );
      // ConnectX-6: vendor_part_id 4123 = PCI device 0x101b.
      assert.equal(Number(sysfs.devices.get(own.path)?.device), Number(d.vendor_part_id), d.hca_id);
    }
    const down = sysfs.rdma.filter((d) => d.ports.every((p) => p.state !== 'ACTIVE')).map((d) => d.name);
    assert.deepEqual(down, ['mlx5_1']);
  });

  it('the same two NUMA nodes and CPU lists: matrix, sysfs, numactl and lscpu', () => {
    const topo = fact('topo');
    const numactl = fact('numactl');
    const lscpu = fact('lscpu');
    const sysfs = fact('pci-sysfs');
    assert.deepEqual(
      numactl.nodes.map((n) => formatCpuList(n.cpus)),
      Object.values(lscpu.numaNodes),
    );
    topo.gpus.forEach((g, i) => {
      const node = Number(g.numaAffinity);
      assert.equal(sysfs.devices.get(sysfs.nvidia[i])?.numaNode, node, g.name);
      assert.equal(g.cpuAffinity, ['0-47,96-143', '48-95,144-191'][node], g.name);
      // GPUn and mlx5_n share a PCIe switch (PIX): the same node.
      const nic = sysfs.rdma.find((d) => d.name === `mlx5_${i}`);
      assert.equal(sysfs.devices.get(nic?.path ?? '')?.numaNode, node, `mlx5_${i}`);
    });
    assert.deepEqual(
      numactl.nodes.map((n) => n.cpus.length),
      [96, 96],
    );
  });

  it('the matrix and the PCI tree NCCL reads give each GPU the same path to its NIC (once GPUDirect RDMA is on)', () => {
    const d = diagnose(loaded);
    assert.equal(d.nccl.topologySource, 'sysfs');
    // GPU1's own NIC is down: NCCL relays it through GPU0 (PXN), the matrix shows its nearest active NIC.
    for (const p of d.pairs.filter((x) => x.gpu !== 'GPU1'))
      assert.deepEqual([p.nics[0]?.device, p.ncclPath], [`mlx5_${p.gpu.slice(3)}`, p.link], p.gpu);
  });

  it("module state agrees: OFED's ib_core exports the peer-memory API; nvidia_peermem built against it, not loaded until the fix", () => {
    const lsmod = fact('lsmod');
    const has = (name: string, report = r) => fact('lsmod', report).modules.some((m) => m.name === name);
    for (const m of ['ib_core', 'ib_uverbs', 'mlx5_ib', 'mlx5_core', 'nvidia']) assert.ok(has(m), m);
    assert.ok(!has('nvidia_peermem'));
    assert.ok(lsmod.modules.length > 0);
    assert.equal(fact('kallsyms-peer').exported, true);
    assert.deepEqual(modinfo('modinfo-nvidia-peermem').depends, ['ib_core', 'nvidia']);
    assert.deepEqual(fact('sys-module-peermem').modules, []);
    assert.deepEqual(fact('memory-peers').peers, []);
    assert.ok(has('nvidia_peermem', loaded));
    assert.deepEqual(
      fact('memory-peers', loaded).peers.map((p) => p.name),
      ['nv_mem'],
    );
    assert.deepEqual(
      fact('sys-module-peermem', loaded).modules.map((m) => m.name),
      ['nvidia_peermem'],
    );
  });
});

describe('the demo host: each recording is what media/demo/SOURCES.md says', () => {
  const COPIES: Record<string, string> = {
    'topo.txt': 'topo/h100-hgx-8gpu-nic-legend-spaces.txt',
    'smi-q.txt': 'smi-q/h100-80gb-hbm3-x8-driver565.txt',
    'lscpu.txt': 'lscpu/xeon-platinum-8558p-2socket-h20-hgx-old-layout.txt',
    'numactl.txt': 'numactl/hopper-hgx-nv18-2node-192cpu-1tb.txt',
    'ofed.txt': 'ofed/mlnx-ofed-24.10-no-trailing-colon.txt',
    'os-release.txt': 'os-release/ubuntu-22.04.5.txt',
    'nvidia-version.txt': 'nvidia-version/proprietary-565-x86_64-ubuntu2204.txt',
  };

  it('the real copies are byte for byte their fixtures', () => {
    for (const [file, rel] of Object.entries(COPIES)) assert.equal(host(file), fixture(rel), file);
    assert.equal(
      host('kallsyms-peer.txt'),
      fs.readFileSync(path.join(REPO_ROOT, 'test/lab/profiles/healthy/kallsyms/ib_uverbs.txt'), 'utf8'),
    );
  });

  it('ibv_devinfo: the real two blocks, and six copies of mlx5_0 differing only in name, GUIDs and LID', () => {
    const real = fixture('ibv/mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt');
    const split = (text: string) => text.split(/(?=^hca_id:)/m);
    const [real0, real1] = split(real);
    const blocks = split(host('ibv.txt'));
    assert.equal(blocks.length, 8);
    assert.equal(blocks[0], real0);
    assert.equal(blocks[1], `${real1.replace('sys_image_guid:\t\t\t88e9:a4ff:ff25:a462', 'sys_image_guid:\t\t\t88e9:a4ff:ff25:a463')}\n`);
    for (let n = 2; n < 8; n++) {
      const guid = `88e9:a4ff:ff25:${(0xa462 + 0x20 * n).toString(16)}`;
      const back = blocks[n]
        .replace(`hca_id:\tmlx5_${n}`, 'hca_id:\tmlx5_0')
        .split(guid)
        .join('88e9:a4ff:ff25:a462')
        .replace(`port_lid:\t\t${4 + n}\n`, 'port_lid:\t\t4\n');
      assert.equal(back, real0, `mlx5_${n}`);
    }
  });

  it('modinfo nvidia: the real 510 proprietary output with exactly the listed lines moved to 565 and this kernel', () => {
    const real = fixture('modinfo/nvidia-510-proprietary-ubuntu2204-a6000.txt').split('\n');
    const demo = host('modinfo-nvidia.txt').split('\n');
    const changed = (lines: string[]) => lines.filter((l) => /^(filename|firmware|version|srcversion|vermagic):/.test(l));
    const kept = (lines: string[]) => lines.filter((l) => !/^(filename|firmware|version|srcversion|vermagic):/.test(l));
    assert.deepEqual(kept(demo), kept(real));
    assert.deepEqual(changed(demo), [
      'filename:       /lib/modules/6.8.0-58-generic/updates/dkms/nvidia.ko',
      'firmware:       nvidia/565.57.01/gsp_tu10x.bin',
      'firmware:       nvidia/565.57.01/gsp_ga10x.bin',
      'version:        565.57.01',
      'vermagic:       6.8.0-58-generic SMP preempt mod_unload modversions ',
    ]);
  });

  it("the sysfs read is what the probe's own command prints over pci-tree.json", () => {
    const tree = JSON.parse(fs.readFileSync(path.join(DEMO_DIR, 'pci-tree.json'), 'utf8'));
    assert.equal(host('pci-sysfs.txt'), pciSysfsOutput(tree));
  });

  it('pci-tree.json is the pxn-port-down tree with only the NICs made ConnectX-6 HDR', () => {
    const tree = JSON.parse(fs.readFileSync(path.join(DEMO_DIR, 'pci-tree.json'), 'utf8'));
    const lab = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test/lab/profiles/pxn-port-down/sysfs.json'), 'utf8'));
    assert.deepEqual(Object.keys(tree.pci), Object.keys(lab.pci));
    for (const [p, attrs] of Object.entries<Record<string, string>>(tree.pci)) {
      const was = lab.pci[p];
      if (was.vendor !== '0x15b3') assert.deepEqual(attrs, was, p);
      else assert.deepEqual(attrs, { ...was, device: '0x101b', max_link_speed: '16.0 GT/s PCIe', current_link_speed: '16.0 GT/s PCIe' }, p);
    }
    for (const [name, dev] of Object.entries<{ pci: string; ports: Record<string, Record<string, string>> }>(tree.infiniband)) {
      const was = lab.infiniband[name];
      assert.equal(dev.pci, was.pci);
      const rate = name === 'mlx5_1' ? '10 Gb/sec (4X SDR)' : '200 Gb/sec (4X HDR)';
      assert.deepEqual(dev.ports, { 1: { ...was.ports[1], rate } }, name);
    }
  });
});
