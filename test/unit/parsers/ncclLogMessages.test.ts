// NCCL message formats, one row per format and release: the NCCL tag and source file whose format
// string prints it, the message, and what must be read from it. `real` names where the line was
// published (a fixture or an issue); rows without it were formatted from the format string itself
// (values filled in by hand), for formats no public log was found of.
import * as assert from 'node:assert/strict';
import { classifyMessage } from '../../../src/core/parsers/ncclLogMessages';
import type { NcclMessage } from '../../../src/core/parsers/ncclLogTypes';

interface Row {
  readonly nccl: string;
  readonly source: string;
  readonly real?: string;
  readonly message: string;
  readonly expect: Partial<Record<string, unknown>> & { kind: NcclMessage['kind'] };
}

const net = (name: string, dev: number, more: Partial<Record<string, unknown>> = {}) => ({
  name,
  dev,
  proxyRank: null,
  gdr: false,
  gdrPci: false,
  shared: false,
  ...more,
});

const CONNECTIONS: Row[] = [
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/net.cc',
    real: 'Mellanox/nv_peer_memory#56',
    message: 'Ring 00 : 6 -> 2 [receive] via NET/IB/0',
    expect: {
      kind: 'connection',
      style: 'Ring',
      from: { rank: 6, tag: null },
      to: { rank: 2, tag: null },
      direction: 'receive',
      transport: 'NET',
      net: net('IB', 0),
    },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/net.cc',
    real: 'aws/aws-ofi-nccl#24',
    message: 'Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0',
    expect: { kind: 'connection', direction: 'send', net: net('AWS Libfabric', 0) },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/p2p.cc',
    real: 'aws/aws-ofi-nccl#24',
    message: 'Ring 00 : 26[2] -> 30[6] via P2P/IPC',
    expect: {
      kind: 'connection',
      from: { rank: 26, tag: '2' },
      to: { rank: 30, tag: '6' },
      direction: null,
      transport: 'P2P',
      via: 'P2P/IPC',
      net: null,
    },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/shm.cc',
    message: 'Ring 01 : 3[3] -> 4[0] via direct shared memory',
    expect: { kind: 'connection', transport: 'SHM', via: 'direct shared memory' },
  },
  {
    nccl: 'v2.5.6-1',
    source: 'src/transport/p2p.cc',
    real: 'NVIDIA/nccl#302',
    message: 'Ring 00 : 155[3d000] -> 157[b2000] via P2P/IPC',
    expect: { kind: 'connection', from: { rank: 155, tag: '3d000' }, to: { rank: 157, tag: 'b2000' }, transport: 'P2P' },
  },
  {
    nccl: 'v2.5.6-1',
    source: 'src/transport/net.cc',
    message: 'Ring 00 : 7[b2000] -> 8[1b000] [send] via NET/IB/3/GDRDMA',
    expect: { kind: 'connection', style: 'Ring', net: net('IB', 3, { gdr: true }) },
  },
  {
    nccl: 'v2.7.8-1',
    source: 'src/transport/net.cc',
    real: 'NVIDIA/nccl#707',
    message: 'Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA',
    expect: {
      kind: 'connection',
      style: 'Channel',
      channel: 1,
      connIndex: null,
      to: { rank: 0, tag: '87000' },
      net: net('IB', 5, { gdr: true }),
    },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/transport/net.cc',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'Channel 00/1 : 1[81000] -> 0[81000] [receive] via NET/IB/1/GDRDMA/Shared',
    expect: { kind: 'connection', channel: 0, connIndex: 1, net: net('IB', 1, { gdr: true, shared: true }) },
  },
  {
    nccl: 'v2.26.5-1',
    source: 'src/transport/net.cc (PXN: "via NET/%s/%d(%d)%s%s")',
    real: 'fixture roce-plugin-pxn-gdrdma-shared-cumem-nccl2.26.5',
    message: 'Channel 01/1 : 3[0] -> 0[1] [send] via NET/NCCL RDMA Plugin v6/0(2)/GDRDMA/Shared',
    expect: { kind: 'connection', net: net('NCCL RDMA Plugin v6', 0, { proxyRank: 2, gdr: true, shared: true }) },
  },
  {
    nccl: 'v2.27.5-1',
    source: 'src/transport/net.cc',
    real: 'fixture roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut',
    message: 'Channel 06/0 : 7[7] -> 14[6] [receive] via NET/IB/6/GDRDMA',
    expect: { kind: 'connection', from: { rank: 7, tag: '7' }, to: { rank: 14, tag: '6' }, net: net('IB', 6, { gdr: true }) },
  },
  {
    nccl: 'v2.27.7-1',
    source: 'src/transport/net.cc ("%s%s%s": "/GDRDMA", "(PCI)", "/Shared")',
    message: 'Channel 00/0 : 0[0] -> 4[0] [send] via NET/IB/0/GDRDMA(PCI)',
    expect: { kind: 'connection', net: net('IB', 0, { gdr: true, gdrPci: true }) },
  },
  {
    nccl: 'v2.27.7-1',
    source: 'src/transport/net.cc',
    message: 'Channel 00/0 : 1[1] -> 0[0] [receive] via NET/Socket/0',
    expect: { kind: 'connection', transport: 'NET', net: net('Socket', 0) },
  },
  {
    nccl: 'v2.27.7-1',
    source: 'src/transport/net.cc',
    real: 'NVIDIA/nccl#1814',
    message: 'Channel 01/0 : 38[6] -> 46[6] [send] via NET/IBext_v8/1',
    expect: { kind: 'connection', net: net('IBext_v8', 1) },
  },
  {
    nccl: 'v2.23.4-1',
    source: 'src/transport/p2p.cc ("via P2P/%s%s%s", CUMEM)',
    real: 'pytorch/torchtitan#1570',
    message: 'Channel 05/0 : 8[0] -> 15[7] via P2P/CUMEM',
    expect: { kind: 'connection', transport: 'P2P', via: 'P2P/CUMEM', net: null },
  },
  {
    nccl: 'v2.23.4-1',
    source: 'src/transport/p2p.cc',
    real: 'aws/aws-ofi-nccl#715',
    message: 'Channel 04/0 : 1[1] -> 0[0] via P2P/CUMEM/read',
    expect: { kind: 'connection', via: 'P2P/CUMEM/read' },
  },
  {
    nccl: 'v2.21.5-1',
    source: 'src/transport/p2p.cc',
    real: 'NVIDIA/nccl#1412',
    message: 'Channel 00/0 : 7[7] -> 6[6] via P2P/direct pointer/read',
    expect: { kind: 'connection', transport: 'P2P', via: 'P2P/direct pointer/read' },
  },
  {
    nccl: 'v2.18.3-1',
    source: 'src/transport/p2p.cc',
    message: 'Channel 00/0 : 0[0] -> 3[3] via P2P/indirect/1[1]',
    expect: { kind: 'connection', transport: 'P2P', via: 'P2P/indirect/1[1]' },
  },
  {
    nccl: 'v2.14.3-1',
    source: 'src/transport/shm.cc ("via SHM/%s/%s")',
    message: 'Channel 00 : 0[0] -> 1[1] via SHM/direct/direct',
    expect: { kind: 'connection', transport: 'SHM', connIndex: null },
  },
  {
    nccl: 'v2.14.3-1',
    source: 'src/transport/coll_net.cc',
    message: 'CollNet 00/0 : 3 [receive] via COLLNET/IBext/0/GDRDMA',
    expect: {
      kind: 'connection',
      style: 'CollNet',
      from: { rank: 3, tag: null },
      to: null,
      direction: 'receive',
      transport: 'COLLNET',
      net: net('IBext', 0, { gdr: true }),
    },
  },
  // Lines that look alike but say nothing about a transport: ring orders, graph rings.
  {
    nccl: 'v2.16.5-1',
    source: 'src/graph/rings.cc ("Channel %02d/%02d : ")',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'Channel 00/02 :    0   1',
    expect: { kind: 'topology' },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/init.cc ("Channel %02d : ")',
    real: 'NVIDIA/nccl#333 (its log says 2.5.6 but prints the format of 2.4)',
    message: 'Channel 00 :    0   1',
    expect: { kind: 'topology' },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/init.cc ("Ring %02d : %d -> %d -> %d", NCCL_GRAPH)',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'Ring 00 : 1 -> 0 -> 1',
    expect: { kind: 'topology' },
  },
];

const MESSAGES: Row[] = [
  {
    nccl: 'v2.16.5-1',
    source: 'src/init.cc (VERSION_STRING)',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'NCCL version 2.16.5+cuda11.8',
    expect: { kind: 'version', nccl: '2.16.5', cuda: '11.8' },
  },
  {
    nccl: 'v2.4.7-1',
    source: 'src/init.cc, built without CUDA_MAJOR defined',
    real: 'tensorflow/tensorflow#34375',
    message: 'NCCL version 2.4.7+cudaCUDA_MAJOR.CUDA_MINOR',
    expect: { kind: 'version', nccl: '2.4.7', cuda: null },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/misc/cudawrap.cc',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'cudaDriverVersion 12080',
    expect: { kind: 'cuda-driver', version: 12080 },
  },
  {
    nccl: 'v2.26.5-1',
    source: 'src/init.cc ("Using network %s")',
    real: 'NVIDIA/nccl#1597',
    message: 'Using network Libfabric',
    expect: { kind: 'network', name: 'Libfabric' },
  },
  {
    nccl: 'v2.4.7-1',
    source: 'src/transport/net_ib.cc ("NET/IB : Using%s ; OOB %s:%s")',
    real: 'Mellanox/nv_peer_memory#56',
    message: 'NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>',
    expect: {
      kind: 'net-devices',
      net: 'IB',
      devices: [{ index: 0, name: 'mlx5_0', port: 1, link: 'IB' }],
      relaxedOrdering: false,
      oob: 'ib0:192.168.11.1<0>',
    },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/transport/net_ib.cc ("NET/IB : Using%s %s; OOB %s:%s")',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ibp209s0f0:10.128.3.13<0>',
    expect: {
      kind: 'net-devices',
      devices: [
        { index: 0, name: 'mlx5_0', port: 1, link: 'RoCE' },
        { index: 1, name: 'mlx5_2', port: 1, link: 'IB' },
      ],
      relaxedOrdering: true,
    },
  },
  {
    nccl: 'v2.30.7-1',
    source: 'src/transport/net_ib/init.cc (" [%d]%s:%d" then ":%d" rail, "/%s")',
    message: 'NET/IB : Using [0]mlx5_0:1:0/IB [1]mlx5_1:1:1/IB [RO]; OOB eth0:10.0.0.1<0>',
    expect: {
      kind: 'net-devices',
      devices: [
        { index: 0, name: 'mlx5_0', port: 1, link: 'IB' },
        { index: 1, name: 'mlx5_1', port: 1, link: 'IB' },
      ],
    },
  },
  {
    nccl: 'v2.5.6-1',
    source: 'src/transport/net_socket.cc ("NET/Socket : Using%s")',
    real: 'NVIDIA/nccl#300',
    message: 'NET/Socket : Using [0]lo:127.0.0.1<0>',
    expect: { kind: 'net-devices', net: 'Socket', devices: [{ index: 0, name: 'lo', port: null, link: '127.0.0.1<0>' }] },
  },
  {
    nccl: 'v2.5.6-1',
    source: 'src/transport/net_ib.cc',
    real: 'NVIDIA/nccl#300',
    message: 'NET/IB : No device found.',
    expect: { kind: 'net-devices', net: 'IB', devices: [] },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/graph/topo.cc ("NET/%s : GPU Direct RDMA %s for HCA %d \'%s\'")',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
    expect: { kind: 'hca-gdr', net: 'IB', hca: 0, name: 'mlx5_0', enabled: true, mechanism: null, reason: null },
  },
  {
    nccl: 'v2.7.8-1',
    source: 'src/transport/net_ib.cc ("… Disabled for HCA %d \'%s\' (no module)")',
    real: 'NVIDIA/nccl#899',
    message: "NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)",
    expect: { kind: 'hca-gdr', hca: 1, name: 'mlx5_1', enabled: false, reason: 'no module' },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/net_ib.cc (per GPU and HCA)',
    message: "NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)",
    expect: { kind: 'hca-gdr', name: 'mlx5_0', enabled: false, reason: 'no module or not supported by GPU' },
  },
  {
    nccl: 'v2.19.3-1',
    source: 'src/graph/topo.cc (net "Socket")',
    real: 'huggingface/accelerate#2183',
    message: "NET/Socket : GPU Direct RDMA Disabled for HCA 0 'enp1s0f0'",
    expect: { kind: 'hca-gdr', net: 'Socket', name: 'enp1s0f0', enabled: false },
  },
  {
    nccl: 'plugin',
    source: 'Mellanox/nccl-rdma-sharp-plugins src/p2p_plugin.c (no closing quote)',
    real: 'a GB10 report quoting its log (code index id 55120155377)',
    message: "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f0",
    expect: { kind: 'hca-gdr', name: 'rocep1s0f0', enabled: true, mechanism: 'DMABUF' },
  },
  {
    nccl: 'v2.13.4-1',
    source: 'src/init.cc',
    real: 'NVIDIA/nccl-tests#245',
    message: 'DMA-BUF is available on GPU device 0',
    expect: { kind: 'gpu-dmabuf', dev: 0 },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/transport/net.cc ("NET/%s : … for GPU %d[%d] / HCA %d (distance %d >= %d)")',
    real: 'Mellanox/nv_peer_memory#56',
    message: 'NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)',
    expect: { kind: 'pair-gdr', enabled: false, gpu: '2[2]', hca: '0', distance: 3, threshold: 2, read: null },
  },
  {
    nccl: 'v2.7.8-1',
    source: 'src/graph/paths.cc',
    real: 'NVIDIA/DeepLearningExamples#383',
    message: 'GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 5 > 4)',
    expect: { kind: 'pair-gdr', enabled: false, gpu: '18000', distance: 5, threshold: 4 },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/graph/paths.cc',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'GPU Direct RDMA Enabled for GPU 81000 / HCA 1 (distance 6 <= 7), read 0',
    expect: { kind: 'pair-gdr', enabled: true, gpu: '81000', hca: '1', distance: 6, threshold: 7, read: false, mode: null },
  },
  {
    nccl: 'v2.27.7-1',
    source: 'src/graph/paths.cc ("…, read %d mode %s")',
    message: 'GPU Direct RDMA Enabled for GPU 3 / HCA 10000 (distance 4 <= 5), read 1 mode Default',
    expect: { kind: 'pair-gdr', enabled: true, gpu: '3', hca: '10000', read: true, mode: 'Default' },
  },
  {
    nccl: 'v2.30.7-1',
    source: 'src/graph/paths.cc (TRACE, gpuNetMsg)',
    message: 'GPU Direct RDMA Enabled for GPU/0-110592 (rank 0) - NET/0-0 (distance 4 <= 5, read 1, mode Default)',
    expect: {
      kind: 'pair-gdr',
      enabled: true,
      gpu: 'GPU/0-110592 (rank 0)',
      hca: '0-0',
      distance: 4,
      threshold: 5,
      read: true,
      mode: 'Default',
    },
  },
  {
    nccl: 'v2.4.8-1',
    source: 'src/init.cc',
    real: 'tensorflow/tensorflow#34375',
    message: 'comm 0x7f94740025b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE',
    expect: { kind: 'comm', state: 'COMPLETE', rank: 0, nranks: 2, cudaDev: 0, nvmlDev: 0, busId: null },
  },
  {
    nccl: 'v2.27.5-1',
    source: 'src/init.cc ("%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START")',
    real: 'fixture roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut',
    message: 'ncclCommInitRank comm 0x5654997a1f80 rank 9 nranks 16 cudaDev 1 nvmlDev 1 busId 2a000 commId 0xde4443395863ef4a - Init START',
    expect: { kind: 'comm', state: 'START', rank: 9, nranks: 16, cudaDev: 1, nvmlDev: 1, busId: '2a000' },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/init.cc',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'Connected all rings',
    expect: { kind: 'rings-connected', pxn: null, gdr: null },
  },
  {
    nccl: 'v2.24.3-1',
    source: 'src/transport/generic.cc',
    real: 'fixture roce-gb10-gdr0-nccl2.30.7-header-stripped-by-author',
    message: 'Connected all rings, use ring PXN 0 GDR 0',
    expect: { kind: 'rings-connected', pxn: false, gdr: false },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/graph/paths.cc ("%s set by environment to %s")',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'NCCL_NET_GDR_LEVEL set by environment to SYS',
    expect: { kind: 'env', name: 'NCCL_NET_GDR_LEVEL', value: 'SYS' },
  },
  {
    nccl: 'v2.4.7-1',
    source: 'src/include/param.h ("%s set by environment to %lu.")',
    real: 'Mellanox/nv_peer_memory#56',
    message: 'NCCL_IB_DISABLE set by environment to 0.',
    expect: { kind: 'env', name: 'NCCL_IB_DISABLE', value: '0' },
  },
  {
    nccl: 'v2.18.5-1',
    source: 'src/transport/net_ib.cc ("NCCL_IB_HCA set to %s")',
    real: 'NVIDIA/nccl#1052',
    message: 'NCCL_IB_HCA set to mlx5_4',
    expect: { kind: 'env', name: 'NCCL_IB_HCA', value: 'mlx5_4' },
  },
  {
    nccl: 'plugin',
    source: 'aws-ofi-nccl src/nccl_ofi_ofiutils.cpp',
    real: 'NVIDIA/nccl-tests#245',
    message: 'NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR',
    expect: { kind: 'gdr-off' },
  },
  {
    nccl: 'v2.5.6-1',
    source: 'src/init.cc (net plugin loader)',
    real: 'NVIDIA/nccl#302',
    message: 'NET/Plugin : No plugin found (libnccl-net.so), using internal implementation',
    expect: { kind: 'plugin' },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/graph/topo.cc (ncclTopoPrint)',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: '=== System : maxBw 24.0 totalBw 24.0 ===',
    expect: { kind: 'topology' },
  },
  {
    nccl: 'v2.16.5-1',
    source: 'src/proxy.cc',
    real: 'fixture ib-roce-gdrdma-dmabuf-shared-nccl-tests-nccl2.16.5',
    message: 'New proxy recv connection 0 from local rank 0, transport 2',
    expect: { kind: 'info' },
  },
];

function check(row: Row): void {
  const m = classifyMessage(row.message, 'INFO') as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(row.expect)) assert.deepEqual(m[key], value, `${key} of ${JSON.stringify(row.message)}`);
}

describe('NCCL log messages, format by format', () => {
  describe('connection lines', () => {
    for (const row of CONNECTIONS) it(`${row.nccl} ${row.source}${row.real ? ` — ${row.real}` : ''}: ${row.message}`, () => check(row));
  });
  describe('other messages', () => {
    for (const row of MESSAGES) it(`${row.nccl} ${row.source}${row.real ? ` — ${row.real}` : ''}: ${row.message}`, () => check(row));
  });

  it('reads every WARN as a warning, whatever it says', () => {
    assert.deepEqual(classifyMessage("NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument", 'WARN'), {
      kind: 'warn',
      text: "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
    });
  });

  it('does not read a connection line cut before its transport as a connection, nor as a ring order', () => {
    // Both real: the first wrapped by its poster (deepseek-ai/DeepEP#106), the second cut (NVIDIA/nccl#707).
    assert.equal(classifyMessage('Channel 15/0 : 12[4] -> 4[4] [receive] via', 'INFO').kind, 'info');
    assert.equal(classifyMessage('Channel 02 : 0[87000] -> 1[', 'INFO').kind, 'info');
    assert.equal(classifyMessage('Ring 00 : 6 -> 2 [recei', 'INFO').kind, 'info');
  });
});
