// Every NCCL variable that changes a GPUDirect RDMA verdict, one table row each, naming the NCCL tag and
// file it follows. Hosts: real matrices and nvidia-smi -q outputs (test/fixtures), constructed port states
// and peer-memory files (constructedSysfs.ts, constructedInputs.ts).
import * as assert from 'node:assert/strict';
import { shortVerdict } from '../../../../src/core/diagnosis';
import { readNcclEnv } from '../../../../src/core/topology/nccl/env';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { NEWEST_NCCL } from '../../../../src/core/topology/nccl/version';
import { commandNotFound, memoryPeers, NO_FILES, unameFromModinfo } from '../../diagnosis/constructedInputs';
import { fixture } from '../../diagnosis/hostReport';
import { NO_PEERMEM } from '../../diagnosis/hosts';
import { constructedSysfs, pciSysfsText } from './constructedSysfs';
import { diagnoseWith as run, pairOf as pair } from './diagnoseWith';

const newest = ncclRules(NEWEST_NCCL);

/** Port states of the 8 mlx5 NICs of the H100 HGX matrix, GPU1's own one down. */
function ports(down: number | null): string {
  const rdma = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
    name: `mlx5_${i}`,
    path: `/sys/devices/pci0000:${(0x10 + i).toString(16)}/0000:${(0x10 + i).toString(16)}:00.0/0000:${(0x11 + i).toString(16)}:00.0`,
    ports: [{ state: i === down ? 'DOWN' : 'ACTIVE' }],
  }));
  return pciSysfsText(constructedSysfs([], rdma));
}
const HGX = {
  topo: fixture('topo/h100-hgx-8gpu-nic-legend-spaces.txt'),
  'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt'),
  'memory-peers': memoryPeers('565.57.01'),
};

describe('NCCL_P2P_DISABLE / NCCL_P2P_LEVEL: GPU pairs through the CPU (v2.30.7-1 src/graph/paths.cc ncclTopoCheckP2p, ncclTopoComputePaths)', () => {
  const rows: [string[], 'PXN' | 'PHB'][] = [
    [[], 'PXN'],
    [['NCCL_P2P_DISABLE=1'], 'PHB'],
    [['NCCL_P2P_DISABLE=0x1'], 'PHB'], // strtol base 0
    [['NCCL_P2P_DISABLE=2'], 'PXN'], // only 1 disables (ncclGetLevel: disable == 1)
    [['NCCL_P2P_DISABLE=0'], 'PXN'],
    [['NCCL_P2P_LEVEL=NVL'], 'PXN'], // NVLink pairs are within NVL
    [['NCCL_P2P_LEVEL=LOC'], 'PHB'],
    [['NCCL_P2P_LEVEL=0'], 'PHB'], // old numbering: 0 = LOC
    [['NCCL_P2P_LEVEL=SYS'], 'PXN'],
  ];
  for (const [env, path] of rows) {
    it(`${env.join(' ') || 'unset'}: GPU1 (own NIC down) ${path === 'PXN' ? 'relays through GPU0 (PXN)' : 'has no NVLink peer to relay through'}`, async () => {
      const p = pair(await run({ ...HGX, 'pci-sysfs': ports(1) }, undefined, env), 'GPU1');
      assert.equal(p.ncclPath, path, p.reason);
      assert.equal(p.gdr, path === 'PXN', p.reason);
    });
  }

  it('NCCL 2.18 (GDR-read rule for every GPU): with P2P disabled a GPU has no NVLink peer, so its sends lose GPUDirect RDMA', async () => {
    const on = pair(await run({ ...HGX, 'pci-sysfs': ports(null) }, '2.18.6'), 'GPU0');
    assert.deepEqual([on.ncclPath, on.gdr], ['PIX', true]);
    const d = await run({ ...HGX, 'pci-sysfs': ports(null) }, '2.18.6', ['NCCL_P2P_DISABLE=1']);
    const off = pair(d, 'GPU0');
    assert.deepEqual([off.gdr, off.send, off.receive], [false, false, true], off.reason);
    assert.match(off.reason, /without an NVLink peer/);
    assert.ok(d.findings.some((f) => f.id === 'topo.gdr-receive-only'));
  });

  it('reads a name or an old number, and says what it ignores', () => {
    assert.equal(readNcclEnv({ NCCL_P2P_LEVEL: 'PXB' }, newest).p2pLevel, 'PXB');
    assert.equal(readNcclEnv({ NCCL_P2P_DISABLE: '1', NCCL_P2P_LEVEL: 'SYS' }, newest).p2pLevel, 'LOC');
    assert.match(readNcclEnv({ NCCL_P2P_LEVEL: 'NODE' }, newest).problems[0], /^NCCL_P2P_LEVEL=NODE is not a level NCCL accepts/);
  });
});

describe('NCCL_IB_DISABLE: NET/Socket, never GPUDirect RDMA (v2.30.7-1 src/transport/net_ib/init.cc ncclIbInit)', () => {
  const rows: [string, boolean][] = [
    ['1', true],
    ['0x1', true],
    ['2', true], // any nonzero value
    ['0', false],
    ['00', false], // strtoll base 0
    ['0x0', false],
  ];
  for (const [value, socket] of rows) {
    it(`NCCL_IB_DISABLE=${value}: ${socket ? 'sockets, no GDR' : 'NET/IB as before'}`, async () => {
      const d = await run({ ...HGX, 'pci-sysfs': ports(null) }, undefined, [`NCCL_IB_DISABLE=${value}`]);
      const p = pair(d, 'GPU0');
      assert.equal(p.network, socket ? 'Socket' : 'IB');
      assert.equal(p.gdr, !socket);
      if (socket) {
        assert.equal(shortVerdict(p), 'no GDR: TCP sockets');
        assert.match(p.reason, /sends over TCP sockets \(NET\/Socket\), which never use GPUDirect RDMA/);
        assert.match(p.confirm, /via NET\/Socket/);
        assert.ok(!d.findings.some((f) => f.id === 'topo.nic-far'));
      }
    });
  }
});

describe('NCCL_DMABUF_ENABLE, and dma-buf only from NCCL 2.13 (v2.13.4-1 src/init.cc NCCL_PARAM(DmaBufEnable), NCCL_PTR_DMABUF)', () => {
  // An inbox-RDMA host whose only NIC-side path is dma-buf: open 595 modules, kernel 7.0, no OFED, no peer memory.
  const open = 'modinfo/nvidia-595-open-endeavouros.txt';
  const DMABUF_ONLY = {
    ...NO_PEERMEM,
    ofed: commandNotFound('ofed_info'),
    'kallsyms-peer': { stdout: '', rc: 1 },
    'modinfo-nvidia': fixture(open),
    uname: unameFromModinfo(open),
    'memory-peers': NO_FILES,
  };
  const rows: [string | undefined, string[], boolean][] = [
    [undefined, [], true],
    [undefined, ['NCCL_DMABUF_ENABLE=0'], false],
    [undefined, ['NCCL_DMABUF_ENABLE=00'], false], // strtoll base 0: octal 0
    [undefined, ['NCCL_DMABUF_ENABLE=0x0'], false],
    [undefined, ['NCCL_DMABUF_ENABLE=1'], true],
    ['2.13.4', [], true],
    ['2.12.12', [], false], // no NCCL_PTR_DMABUF before 2.13
  ];
  for (const [version, env, gdr] of rows) {
    it(`NCCL ${version ?? 'newest'} ${env.join(' ') || ''}: ${gdr ? 'GPUDirect RDMA through dma-buf' : 'no dma-buf, so no GPUDirect RDMA'}`, async () => {
      const d = await run(DMABUF_ONLY, version, env);
      assert.ok(d.pairs.length > 0);
      for (const p of d.pairs.filter((x) => x.link === 'PXB')) assert.equal(p.gdr, gdr, `${p.gpu}: ${p.reason}`);
      const available = d.findings.some((f) => f.id === 'dmabuf.available');
      assert.equal(available, gdr);
      // Without dma-buf for that job, the inbox stack's missing peer-memory API is an error again.
      assert.equal(d.findings.find((f) => f.id === 'peermem.ofed-mismatch')?.severity, gdr ? 'info' : 'error');
    });
  }
});
