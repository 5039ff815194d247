// NCCL's verdicts on whole hosts, end to end through diagnose(): real `nvidia-smi topo -m`, `nvidia-smi -q`
// and lscpu outputs (test/fixtures, SOURCES.md), with CONSTRUCTED sysfs trees (constructedSysfs.ts) and,
// where said, constructed port states. Each expectation names the NCCL code it follows.
import * as assert from 'node:assert/strict';
import { fixture, labFile } from '../../diagnosis/hostReport';
import { memoryPeers } from '../../diagnosis/constructedInputs';
import { diagnoseWith as run, pairOf as pair } from './diagnoseWith';
import { RdmaSpec, constructedSysfs, pciSysfsText } from './constructedSysfs';

// GB200 tray: 4 GPUs, two per Grace (PCI domains as on GH200/GB300: 0008/0009 on node 0, 0018/0019 on node 1);
// eight mlx5 functions, four per Grace, NIC2/NIC3 and NIC6/NIC7 two functions of one card (PIX in the matrix).
const root = (domain: string, bdf = '01:00.0') => `/sys/devices/pci${domain}:00/${domain}:00:00.0/${domain}:${bdf}`;
const GB200_NICS: RdmaSpec[] = [
  { name: 'mlx5_0', path: root('0000'), numa: 0, ports: [{}] },
  { name: 'mlx5_1', path: root('0002'), numa: 0, ports: [{}] },
  { name: 'mlx5_2', path: root('0006'), numa: 0, ports: [{}] },
  { name: 'mlx5_3', path: root('0006', '01:00.1'), numa: 0, ports: [{}] },
  { name: 'mlx5_4', path: root('0010'), numa: 1, ports: [{}] },
  { name: 'mlx5_5', path: root('0012'), numa: 1, ports: [{}] },
  { name: 'mlx5_6', path: root('0016'), numa: 1, ports: [{}] },
  { name: 'mlx5_7', path: root('0016', '01:00.1'), numa: 1, ports: [{}] },
];
/** The GPU models (the lab profiles' ASSEMBLED queries, test/lab/profiles/README.md) and nv_mem: read, so "on" is decided. */
const QUERY = 'out/nvidia-smi_--query-gpu=index,name,pci.bus%5Fid,driver%5Fversion_--format=csv.stdout';
const NV_MEM = { 'memory-peers': memoryPeers('580.105.08') };
const GB200 = {
  ...NV_MEM,
  gpus: labFile('grace-c2c', QUERY),
  topo: fixture('topo/gb200-4gpu-8nic-all-sys-numa-lists.txt'),
  lscpu: fixture('lscpu/grace-hopper-gh200-neoverse-v2-9node.txt'),
  'pci-sysfs': pciSysfsText(
    constructedSysfs(
      [
        { path: root('0008'), numa: 0 },
        { path: root('0009'), numa: 0 },
        { path: root('0018'), numa: 1 },
        { path: root('0019'), numa: 1 },
      ],
      GB200_NICS,
    ),
  ),
};

describe('NCCL verdicts on a GB200 tray (C2C; every GPU↔NIC cell SYS in nvidia-smi)', () => {
  const rows: [string | undefined, string[], string, boolean][] = [
    // ncclTopoComputePaths (≥ 2.29): P2C where GPU→CPU is C2C and NIC→CPU PHB; threshold P2C (NCCL_NET_GDR_C2C=1).
    [undefined, [], 'P2C', true],
    ['2.29.2', [], 'P2C', true],
    // 2.27.3-2.28: P2C path, ncclTopoCheckGdr maps the P2C distance to C2C (NCCL_NET_GDR_C2C default 1).
    ['2.27.3', [], 'P2C', true],
    ['2.28.9', [], 'P2C', true],
    // NCCL_NET_GDR_C2C=0: threshold PXB, P2C is beyond it.
    [undefined, ['NCCL_NET_GDR_C2C=0'], 'P2C', false],
    // 2.26: no P2C path; PHB, mapped to C2C only with NCCL_NET_GDR_C2C=1 (default 0).
    ['2.26.2', [], 'PHB', false],
    ['2.26.2', ['NCCL_NET_GDR_C2C=1'], 'PHB', true],
    // Before 2.26 NCCL knows no C2C: PHB is beyond PXB.
    ['2.25.1', [], 'PHB', false],
  ];
  for (const [version, env, path, gdr] of rows) {
    const job = `NCCL ${version ?? 'newest'}${env.length ? ` ${env.join(' ')}` : ''}`;
    it(`${job}: each GPU uses its own Grace's NICs over ${path}, GPUDirect RDMA ${gdr ? 'on' : 'off'}`, async () => {
      const d = await run(GB200, version, env);
      assert.equal(d.nccl.topologySource, 'sysfs');
      assert.deepEqual(
        pair(d, 'GPU0')
          .nics.map((n) => n.device)
          .sort(),
        ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3'],
      );
      assert.deepEqual(
        pair(d, 'GPU3')
          .nics.map((n) => n.device)
          .sort(),
        ['mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7'],
      );
      for (const p of d.pairs) assert.deepEqual([p.gpu, p.link, p.ncclPath, p.gdr], [p.gpu, 'SYS', path, gdr]);
      assert.equal(
        d.findings.some((f) => f.id === 'topo.nic-far'),
        !gdr,
      );
    });
  }

  it('says why nvidia-smi disagrees, and that the release matters', async () => {
    const p = pair(await run(GB200), 'GPU0');
    assert.match(p.reason, /over P2C \(C2C to the GPU's own Grace CPU.*nvidia-smi prints SYS or NODE here/);
    assert.match(p.reason, /C2C-attached NICs get GPUDirect RDMA by default from NCCL 2\.27/);
    assert.match(p.confirm, /NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET/);
  });
});

describe('NCCL verdicts on a GH200 (one Grace: nvidia-smi says NODE to every NIC)', () => {
  const topo = fixture('topo/gh200-1gpu-4nic-bf3-node.txt');
  // The topo's own host: GPU 0009:01:00.0, BlueField-3 ports 0000:01:00.0/.1 and 0002:01:00.0/.1 (its SOURCES entry).
  const sysfs = pciSysfsText(
    constructedSysfs(
      [{ path: root('0009'), numa: 0 }],
      [
        { name: 'mlx5_0', path: root('0000'), ports: [{ linkLayer: 'Ethernet' }] },
        { name: 'mlx5_1', path: root('0000', '01:00.1'), ports: [{ linkLayer: 'Ethernet' }] },
        { name: 'mlx5_2', path: root('0002'), ports: [{ linkLayer: 'Ethernet' }] },
        { name: 'mlx5_3', path: root('0002', '01:00.1'), ports: [{ linkLayer: 'Ethernet' }] },
      ],
    ),
  );

  it('from sysfs (C2C read from the numeric GPU NUMA ID): P2C to all four ports, GPUDirect RDMA on', async () => {
    const d = await run({ ...NV_MEM, gpus: labFile('gh200', QUERY), topo, 'pci-sysfs': sysfs });
    assert.equal(d.nccl.topologySource, 'sysfs');
    assert.deepEqual(
      [pair(d, 'GPU0').link, pair(d, 'GPU0').ncclPath, pair(d, 'GPU0').gdr, pair(d, 'GPU0').nics.length],
      ['NODE', 'P2C', true, 4],
    );
  });

  it('from the matrix alone, with nvidia-smi -q\'s "GPU C2C Mode : Enabled" (another GH200, whose bus id is not in this sysfs)', async () => {
    const d = await run({ ...NV_MEM, topo, 'smi-q': fixture('smi-q/gh200-480gb-vm-c2c-mode-enabled-driver550.txt'), 'pci-sysfs': sysfs });
    assert.equal(d.nccl.topologySource, 'matrix');
    assert.match(d.nccl.sysfsMissing ?? '', /GPU0 \(0000:dd:00\.0\) is not among the NVIDIA devices read from sysfs/);
    // A NODE cell shares the GPU's CPU: NCCL's mergePathType(C2C, PHB) = P2C.
    assert.deepEqual([pair(d, 'GPU0').ncclPath, pair(d, 'GPU0').gdr], ['P2C', true]);
  });

  it('a GB200 matrix without sysfs: SYS cells of a C2C GPU are not judged', async () => {
    const d = await run({ topo: GB200.topo, lscpu: GB200.lscpu });
    assert.equal(d.nccl.topologySource, 'matrix');
    assert.match(pair(d, 'GPU0').reason, /^GPU0: GPUDirect RDMA unknown: nvidia-smi prints SYS between a C2C \(Grace\) GPU and every NIC/);
    assert.ok(!d.findings.some((f) => f.id === 'topo.nic-far'));
  });
});
