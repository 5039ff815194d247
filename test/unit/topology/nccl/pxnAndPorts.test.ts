// PXN, inactive ports, NCCL_IB_HCA and the GDR-read rule on real matrices (test/fixtures/topo). Port
// states are CONSTRUCTED (constructedSysfs.ts): which port is down is the scenario.
import * as assert from 'node:assert/strict';
import { fixture } from '../../diagnosis/hostReport';
import { diagnoseWith as run, pairOf as pair } from './diagnoseWith';
import { constructedSysfs, pciSysfsText } from './constructedSysfs';
import { memoryPeers } from '../../diagnosis/constructedInputs';

/** The facts a GPUDirect RDMA "yes" also rests on (unread, it is unknown): nv_mem registered, the GPU models. */
const NV_MEM = { 'memory-peers': memoryPeers('565.57.01') };
const READ = { ...NV_MEM, 'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt') };

/** Only the RDMA ports of a sysfs read (no GPUs: the verdicts come from the matrix). */
function ports(states: Record<string, string>): string {
  const rdma = Object.entries(states).map(([name, state], i) => ({
    name,
    path: `/sys/devices/pci0000:${(0x10 + i).toString(16)}/0000:${(0x10 + i).toString(16)}:00.0/0000:${(0x11 + i).toString(16)}:00.0`,
    ports: [{ state }],
  }));
  return pciSysfsText(constructedSysfs([], rdma));
}

describe("PXN and inactive ports on an 8× H100 HGX (each GPU PIX to its own NIC, NODE to its socket's others)", () => {
  const topo = fixture('topo/h100-hgx-8gpu-nic-legend-spaces.txt');
  const down1 = ports(Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`mlx5_${i}`, i === 1 ? 'DOWN' : 'ACTIVE'])));

  it("GPU1's own NIC is down: NCCL relays its sends through GPU0 to mlx5_0 (PXN) and keeps GPUDirect RDMA", async () => {
    const d = await run({ ...READ, topo, 'pci-sysfs': down1 });
    const p = pair(d, 'GPU1');
    // ncclTopoComputePaths: mlx5_0's local GPU is GPU0 (PIX); GPU1's own path is NODE (PHB) > PXN; NVLink to GPU0.
    assert.deepEqual([p.nics[0].device, p.link, p.ncclPath, p.proxyGpu, p.gdr], ['mlx5_0', 'NODE', 'PXN', 'GPU0', true]);
    assert.match(p.reason, /through GPU0 \(PXN: GPU1's own path is PHB/);
    assert.match(p.reason, /mlx5_1:1 \(PIX\) has no active port/);
    assert.match(p.confirm, /\[send\] via NET\/IB\/<n>\(<rank of GPU0>\)\/GDRDMA/);
    assert.deepEqual([pair(d, 'GPU0').ncclPath, pair(d, 'GPU0').nics.map((n) => n.device)], ['PIX', ['mlx5_0']]);
    assert.ok(!d.findings.some((f) => f.id === 'topo.nic-far'));
    // Without ibv_devinfo the down port is read from sysfs for rdma.port-down too.
    const down = d.findings.find((f) => f.id === 'rdma.port-down');
    assert.equal(down?.title, 'No active port on mlx5_1');
    assert.match(down?.evidence[0] ?? '', /port\tmlx5_1\t1\t1: DOWN/);
  });

  const off: [string | undefined, string[], string][] = [
    [undefined, ['NCCL_PXN_DISABLE=1'], 'NCCL_PXN_DISABLE=1'],
    ['2.11.4', [], 'no PXN before 2.12'],
  ];
  for (const [version, env, why] of off) {
    it(`${why}: GPU1 falls back to a NODE NIC (PHB) and loses GPUDirect RDMA`, async () => {
      const d = await run({ ...READ, topo, 'pci-sysfs': down1 }, version, env);
      const p = pair(d, 'GPU1');
      assert.deepEqual([p.ncclPath, p.proxyGpu, p.gdr], ['PHB', null, false]);
      assert.deepEqual(
        p.nics.map((n) => n.device),
        ['mlx5_0', 'mlx5_2', 'mlx5_3'],
      );
      assert.match(d.findings.find((f) => f.id === 'topo.nic-far')?.title ?? '', /^GPU1: nearest usable NIC is PHB/);
    });
  }

  it('NCCL_IB_HCA naming other NICs leaves the nearer ones out, and says so', async () => {
    const d = await run(
      { ...READ, topo, 'pci-sysfs': ports(Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [`mlx5_${i}`, 'ACTIVE']))) },
      undefined,
      ['NCCL_IB_HCA==mlx5_4,mlx5_5'],
    );
    const p = pair(d, 'GPU0');
    // GPU0 is SYS to mlx5_4/5; their local GPUs GPU4/GPU5 are PIX and NVLinked to GPU0: PXN.
    assert.deepEqual([p.ncclPath, p.gdr], ['PXN', true]);
    assert.match(p.reason, /mlx5_0:1 \(PIX\) is left out by NCCL_IB_HCA/);
  });
});

describe('GDR read: sends from GPUs without an NVLink peer (ncclTopoCheckGdr, NCCL_NET_GDR_READ)', () => {
  // PCIe box, no NVLink, one NIC NODE to GPU4-7.
  const topo = fixture('topo/pcie-8gpu-no-nvlink-1nic-node-half.txt');

  it('NCCL 2.18 with NCCL_NET_GDR_LEVEL=PHB: GPU4-7 receive with GPUDirect RDMA, send through host memory', async () => {
    const d = await run({ ...READ, topo }, '2.18.6', ['NCCL_NET_GDR_LEVEL=PHB']);
    const p = pair(d, 'GPU4');
    assert.deepEqual([p.ncclPath, p.gdr, p.send, p.receive], ['PHB', false, false, true]);
    assert.match(p.reason, /sends: GPUDirect RDMA off: sends from a GPU without an NVLink peer/);
    assert.match(p.reason, /before NCCL 2\.19 this applies to every GPU/);
    const f = d.findings.find((x) => x.id === 'topo.gdr-receive-only');
    assert.match(f?.title ?? '', /^GPU4, GPU5, GPU6, GPU7: NCCL 2\.18\.6 uses GPUDirect RDMA for receives only/);
  });

  it("NCCL 2.30 without the GPUs' model: unknown, not yes; the verdict says what is missing and how to read it", async () => {
    const p = pair(await run({ ...NV_MEM, topo }, undefined, ['NCCL_NET_GDR_LEVEL=PHB']), 'GPU4');
    assert.equal(p.gdr, null);
    assert.match(p.reason, /compute capability is 8\.0 or more \(not read/);
    assert.deepEqual(
      p.missing.map((m) => m.fact),
      ['gpu-support', 'compute-capability'],
    );
    // With the model read (H100: compute capability 9.0), NCCL 2.30 sends with GPUDirect RDMA too.
    assert.equal(pair(await run({ ...READ, topo }, undefined, ['NCCL_NET_GDR_LEVEL=PHB']), 'GPU4').gdr, true);
  });

  it('NCCL_NET_GDR_READ=1 forces it for sends', async () => {
    const p = pair(await run({ ...READ, topo }, '2.18.6', ['NCCL_NET_GDR_LEVEL=PHB', 'NCCL_NET_GDR_READ=1']), 'GPU4');
    assert.deepEqual([p.gdr, p.send], [true, undefined]);
  });
});
