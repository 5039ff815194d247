// Where the answer depends on the NCCL release, a row per rule naming the tag and file it follows: the NIC a
// channel starts on, the GPU link NCCL reads, PXN's peer in 2.12, the 2.27.5 PXN bound, and which log lines
// each release prints for the confirm hint. Hosts: the lab's HGX (pcieHost.ts: real lspci tree, real matrix)
// with CONSTRUCTED link speeds, and small CONSTRUCTED path tables for the NIC pick.
import * as assert from 'node:assert/strict';
import { diagnose, readNcclAssumptions } from '../../../../src/core/diagnosis';
import { localNetOf } from '../../../../src/core/topology/nccl/local';
import { Path, PathTable, TableGpu, TableNet } from '../../../../src/core/topology/nccl/pathTable';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { parseNcclVersion } from '../../../../src/core/topology/nccl/version';
import { hostReport } from '../../diagnosis/hostReport';
import { pcieHost } from '../../diagnosis/pcieHost';

const rulesOf = (v: string) => ncclRules(parseNcclVersion(v) ?? { major: 2, minor: 30, patch: 7 });
function nccl(version: string, env: string[] = []) {
  const a = readNcclAssumptions(version, env);
  if (typeof a === 'string') throw new Error(a);
  return a;
}
const shape = (d: ReturnType<typeof diagnose>) =>
  d.pairs.map((p) => `${p.gpu} ${p.nics.map((n) => n.device).join('+')} ${p.ncclPath} ${p.proxyGpu ?? '-'} ${p.gdr}`);

describe('the channel-0 NIC: dev % localGpuCount from 2.30.7, the raw device number in 2.19 – 2.30.4 (src/graph/topo.cc ncclTopoGetLocalNet)', () => {
  // Eight GPUs; three NICs local to GPU4-7 only (GPU0-3 reach them over SYS).
  const path = (type: Path['type']): Path => ({ type, bw: 24, route: [] });
  const gpus: TableGpu[] = Array.from({ length: 8 }, (_, dev) => ({
    name: `GPU${dev}`,
    dev,
    busId: null,
    cc: 90,
    gdrSupport: true,
    c2c: false,
  }));
  const nets: TableNet[] = [0, 1, 2].map((i) => ({
    name: `mlx5_${i}:1`,
    device: `mlx5_${i}`,
    port: 1,
    nic: `mlx5_${i}`,
    linkLayer: 'IB',
    active: true,
  }));
  const gpuNet = gpus.map((g) => nets.map(() => path(g.dev >= 4 ? 'PIX' : 'SYS')));
  const table: PathTable = {
    source: 'sysfs',
    gpus,
    nets,
    cpus: [],
    gpuGpu: [],
    gpuNet,
    netGpu: nets.map((_, n) => gpus.map((g) => gpuNet[g.dev][n])),
    gpuCpu: [],
    netCpu: [],
  };
  const rows: [string, number, string][] = [
    ['2.30.7', 5, 'mlx5_1'], // 5 % 4 = 1
    ['2.30.4', 5, 'mlx5_2'], // 5 % 3 = 2
    ['2.19.3', 5, 'mlx5_2'],
    ['2.30.7', 6, 'mlx5_2'], // 6 % 4 = 2
    ['2.30.4', 6, 'mlx5_0'], // 6 % 3 = 0
  ];
  for (const [version, dev, nic] of rows) {
    it(`NCCL ${version}: GPU${dev} starts on ${nic}`, () => {
      assert.equal(nets[localNetOf(table, dev, 0, rulesOf(version)) ?? -1]?.device, nic);
    });
  }
});

describe("a GPU's PCI link: current (NVML) from 2.30.7, its maximum before (src/graph/xml.cc ncclTopoGetXmlFromGpu)", () => {
  // GPU0 (0000:19:00.0) idle, trained down to 2.5 GT/s: its link is the narrowest, so 2.30.7 relays its sends
  // over NVLink through GPU1 (PXN, "higher bw to that NIC"); 2.30.4 reads max_link_speed and sees nothing new.
  const idle = { '0000:19:00.0': { current_link_speed: '2.5 GT/s PCIe' } };
  for (const version of ['2.30.4', '2.29.7', '2.27.7']) {
    it(`NCCL ${version}: the downtrained idle GPU changes no verdict`, async () => {
      const plain = diagnose(await hostReport(pcieHost()), nccl(version));
      const down = diagnose(await hostReport(pcieHost({ patch: idle })), nccl(version));
      assert.deepEqual(shape(down), shape(plain));
      assert.equal(down.pairs[0].ncclPath, 'PIX');
    });
  }
  it('NCCL 2.30.7: GPU0 sends through GPU1 (PXN), still with GPUDirect RDMA', async () => {
    const d = diagnose(await hostReport(pcieHost({ patch: idle })), nccl('2.30.7'));
    assert.deepEqual([d.pairs[0].ncclPath, d.pairs[0].proxyGpu, d.pairs[0].gdr], ['PXN', 'GPU1', true]);
  });
});

describe('the confirm hint names only lines the release prints', () => {
  it('NCCL ≥ 2.13: "GPU Direct RDMA Enabled for HCA" (src/graph/topo.cc); ≤ 2.12 prints no such line', async () => {
    const report = await hostReport(pcieHost());
    assert.match(diagnose(report, nccl('2.13.4')).pairs[0].confirm, /GPU Direct RDMA Enabled for HCA <n> 'mlx5_0'/);
    const old = diagnose(report, nccl('2.12.12')).pairs[0].confirm;
    assert.doesNotMatch(old, /Enabled for HCA/);
    assert.match(old, /\[send\] via NET\/IB\/<n>\/GDRDMA/);
  });

  it('a distance block: the per-GPU "Disabled for GPU" line before 2.30, said to be TRACE-only from 2.30 (src/graph/paths.cc)', async () => {
    // NCCL_NET_GDR_LEVEL=LOC: every PIX pair is beyond it.
    const report = await hostReport(pcieHost());
    const before = diagnose(report, nccl('2.29.7', ['NCCL_NET_GDR_LEVEL=LOC'])).pairs[0].confirm;
    assert.match(before, /"GPU Direct RDMA Disabled for GPU … \/ HCA … \(distance a > b\)" gives the distance/);
    const now = diagnose(report, nccl('2.30.7', ['NCCL_NET_GDR_LEVEL=LOC'])).pairs[0].confirm;
    assert.match(now, /from NCCL 2\.30 the per-GPU "GPU Direct RDMA Disabled for GPU" line is printed only at NCCL_DEBUG=TRACE/);
  });
});
