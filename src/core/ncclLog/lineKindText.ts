// What each kind of NCCL log line and each transport name in a connection line means, with the NCCL
// source that prints it (as read in NVIDIA/nccl's tags v2.4.8-1 … v2.30.7-1; the parsers in
// src/core/parsers/ncclLog*.ts cite the same). The editor's hovers show these words; one place, so
// they can be translated together.
import type { NcclMessageKind } from '../parsers/ncclLogTypes';
import { t } from '../l10n';

export interface Explanation {
  readonly title: string;
  readonly text: string;
  readonly source: string;
}

export const HEADER_TEXT: Explanation = {
  get title(): string {
    return t('NCCL log header');
  },
  get text(): string {
    return t(
      '`host:pid:tid [dev]`: the host name as NCCL reads it (up to its first dot, or NCCL_HOSTID), the process and thread ids, and the CUDA device of the thread that printed the line; then the level (INFO, WARN, TRACE). WARN lines name where NCCL printed them.',
    );
  },
  source: 'NVIDIA/nccl src/debug.cc ncclDebugLog (src/misc/utils.cc in 2.4)',
};

/** "NET/IB : No device found." shares the kind of the NIC list, not its explanation. */
export const NO_DEVICE_TEXT: Explanation = {
  get title(): string {
    return t('No RDMA device for this net');
  },
  get text(): string {
    return t(
      'NCCL found no usable device for this network transport: no RDMA device with an active port, none left after NCCL_IB_HCA, or libibverbs missing. NCCL then falls back to another net (Socket: TCP), which never uses GPU Direct RDMA.',
    );
  },
  source: 'NVIDIA/nccl src/transport/net_ib.cc ncclIbInit ("NET/IB : No device found."; src/transport/net_ib/init.cc from 2.28)',
};

export const LINE_KIND_TEXT: Record<NcclMessageKind, Explanation> = {
  version: {
    get title(): string {
      return t('NCCL version');
    },
    get text(): string {
      return t(
        'The NCCL release this process loaded, and after `+cuda` the CUDA version it was built for. Every rank of a job should print the same one.',
      );
    },
    source: 'NVIDIA/nccl src/init.cc (VERSION_STRING, every release)',
  },
  'cuda-driver': {
    get title(): string {
      return t('CUDA driver version');
    },
    get text(): string {
      return t('The CUDA driver API version the process found (12020 is CUDA 12.2): what the installed driver supports.');
    },
    source: 'NVIDIA/nccl src/misc/cudawrap.cc (2.13 and later)',
  },
  network: {
    get title(): string {
      return t('Network transport');
    },
    get text(): string {
      return t(
        'The network NCCL uses between hosts: `IB` (InfiniBand or RoCE verbs, the one that can do GPU Direct RDMA), `Socket` (TCP: never GPU Direct RDMA), or the name of a network plugin (AWS Libfabric, IBext…).',
      );
    },
    source: 'NVIDIA/nccl src/init.cc ("Using network %s", 2.6 and later)',
  },
  'net-devices': {
    get title(): string {
      return t('NICs NCCL will use');
    },
    get text(): string {
      return t(
        'Each `[n]` is the number NCCL gives a NIC port: the `n` of `via NET/IB/n` in connection lines. `mlx5_0:1/IB` is device, port and link layer (IB or RoCE); `[RO]` means relaxed ordering; `OOB` is the interface used to bootstrap. For Socket: interface and address.',
      );
    },
    source: 'NVIDIA/nccl src/transport/net_ib.cc (2.4–2.27; src/transport/net_ib/init.cc from 2.28), src/transport/net_socket.cc',
  },
  'hca-gdr': {
    get title(): string {
      return t('GPU Direct RDMA for one NIC');
    },
    get text(): string {
      return t(
        'Whether this NIC can read and write GPU memory: Enabled when NCCL finds a peer-memory module (nvidia-peermem) or a usable DMA-BUF path; Disabled otherwise. "(no module)" means no peer-memory module was loaded on this host.',
      );
    },
    source:
      'NVIDIA/nccl src/graph/topo.cc (2.14 and later), src/transport/net_ib.cc ncclIbGdrSupport (2.5–2.13); Mellanox nccl-rdma-sharp-plugins src/p2p_plugin.c',
  },
  'virtual-nic': {
    get title(): string {
      return t('A virtual NIC');
    },
    get text(): string {
      return t(
        'NCCL made a virtual network device: from here on, NET/IB/<n> in connection lines means this device, one NIC or several merged into one (their names joined by "+", NCCL_IB_MERGE_NICS).',
      );
    },
    source: 'NVIDIA/nccl src/transport/net_ib.cc ncclIbMakeVDeviceInternal (2.24–2.28; net_ib/init.cc from 2.29)',
  },
  'gpu-dmabuf': {
    get title(): string {
      return t('DMA-BUF on a GPU');
    },
    get text(): string {
      return t(
        'The GPU, its driver and CUDA support DMA-BUF, so NCCL can register GPU memory with the NIC without nvidia-peermem, where the kernel (5.12 and later) and the NIC driver support it too.',
      );
    },
    source: 'NVIDIA/nccl src/init.cc ("DMA-BUF is available on GPU device %d", 2.13 and later)',
  },
  'pair-gdr': {
    get title(): string {
      return t('GPU Direct RDMA for one GPU and NIC');
    },
    get text(): string {
      return t(
        "ncclTopoCheckGdr's answer for this GPU/NIC pair: the PCI distance between them (a path class number) against the threshold (NCCL_NET_GDR_LEVEL, default PXB); `read` says whether sends use it too.",
      );
    },
    source: 'NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr (2.7 and later; src/transport/net.cc before)',
  },
  connection: {
    get title(): string {
      return t('Channel connection');
    },
    get text(): string {
      return t(
        'One channel of a ring or tree between two ranks, `rank[device] -> rank[device]` (a busId in hex before 2.18.3), and the transport it uses after `via`: NET/… between hosts (`/GDRDMA` when the NIC reads GPU memory directly), P2P or SHM inside a host.',
      );
    },
    source:
      'NVIDIA/nccl src/transport/net.cc (sendSetup, recvSetup), src/transport/p2p.cc, src/transport/shm.cc, src/transport/coll_net.cc',
  },
  comm: {
    get title(): string {
      return t('Communicator init');
    },
    get text(): string {
      return t(
        "A communicator starts or finishes its init on this rank: its rank, the number of ranks, the CUDA and NVML device numbers and the GPU's busId.",
      );
    },
    source: 'NVIDIA/nccl src/init.cc (ncclCommInitRank)',
  },
  'rings-connected': {
    get title(): string {
      return t('Rings connected');
    },
    get text(): string {
      return t(
        'Every ring of the communicator is connected; from 2.24 it says whether the rings use PXN and GPU Direct RDMA (1) or not (0).',
      );
    },
    source: 'NVIDIA/nccl src/init.cc (2.12–2.23), src/transport/generic.cc (2.24 and later)',
  },
  env: {
    get title(): string {
      return t('NCCL setting');
    },
    get text(): string {
      return t('An NCCL_* variable NCCL read from the environment (or nccl.conf) and the value it took.');
    },
    source: 'NVIDIA/nccl src/misc/param.cc, src/include/param.h',
  },
  'gdr-off': {
    get title(): string {
      return t('GPU Direct RDMA turned off');
    },
    get text(): string {
      return t('The network plugin turned GPU Direct RDMA off and said why.');
    },
    source: 'aws-ofi-nccl src/nccl_ofi_ofiutils.cpp',
  },
  plugin: {
    get title(): string {
      return t('Network plugin');
    },
    get text(): string {
      return t('NCCL looking for or loading a network plugin (NCCL_NET_PLUGIN); without one it uses its own IB and Socket transports.');
    },
    source: 'NVIDIA/nccl src/plugin/net.cc (src/net.cc in older releases)',
  },
  topology: {
    get title(): string {
      return t('Topology');
    },
    get text(): string {
      return t(
        "NCCL's view of the host (GPUs, NICs, CPUs and the links between them) or what its search built from it: ring and tree orders, channels.",
      );
    },
    source: 'NVIDIA/nccl src/graph/topo.cc, src/graph/search.cc, src/graph/connect.cc',
  },
  warn: {
    get title(): string {
      return t('NCCL WARN');
    },
    get text(): string {
      return t('NCCL reports something wrong. It may go on (a fallback) or fail; the text before `NCCL WARN` names where it was printed.');
    },
    source: 'NVIDIA/nccl src/debug.cc (WARN)',
  },
  info: {
    get title(): string {
      return t('NCCL INFO');
    },
    get text(): string {
      return t('An NCCL message gdr-doctor has no specific reading for.');
    },
    source: 'NVIDIA/nccl src/debug.cc (INFO)',
  },
};

export type TransportToken =
  | 'gdrdma'
  | 'gdrdma-pci'
  | 'shared'
  | 'pxn'
  | 'p2p-ipc'
  | 'p2p-cumem'
  | 'p2p-direct'
  | 'p2p-other'
  | 'p2p-read'
  | 'p2p-ce'
  | 'shm'
  | 'net-socket'
  | 'net-ib'
  | 'net-plugin'
  | 'collnet'
  | 'dmabuf';

const NET_SOURCE = 'NVIDIA/nccl src/transport/net.cc (sendSetup, recvSetup)';
const P2P_SOURCE = 'NVIDIA/nccl src/transport/p2p.cc';

export const TRANSPORT_TEXT: Record<TransportToken, Explanation> = {
  gdrdma: {
    get title(): string {
      return t('GDRDMA');
    },
    get text(): string {
      return t(
        "GPU Direct RDMA: the NIC reads and writes this GPU's memory directly, with no copy through host memory. NCCL prints it when ncclTopoCheckGdr allowed it for this GPU and NIC.",
      );
    },
    source: NET_SOURCE,
  },
  'gdrdma-pci': {
    get title(): string {
      return t('GDRDMA(PCI)');
    },
    get text(): string {
      return t('GPU Direct RDMA forced through PCIe on a system whose GPU reaches its CPU over NVLink-C2C (Grace), 2.27 and later.');
    },
    source: NET_SOURCE,
  },
  shared: {
    get title(): string {
      return t('/Shared');
    },
    get text(): string {
      return t(
        'A point-to-point (send/receive, not ring or tree) connection that shares its buffers with the other peers (NCCL_NET_SHARED_BUFFERS, on by default; 2.8 and later) instead of having its own.',
      );
    },
    source: NET_SOURCE,
  },
  pxn: {
    get title(): string {
      return t('PXN (proxy rank)');
    },
    get text(): string {
      return t(
        'The number in parentheses is the rank whose GPU sends for this one: the data crosses NVLink to that GPU and leaves through its NIC. NCCL prints it when the proxy rank is not this rank (2.12 and later).',
      );
    },
    source: `${NET_SOURCE}; src/graph/paths.cc ncclTopoComputePaths`,
  },
  'p2p-ipc': {
    get title(): string {
      return t('P2P/IPC');
    },
    get text(): string {
      return t(
        "Peer to peer between two GPUs of one host (NVLink or PCIe), each process mapping the other's buffer through a CUDA IPC handle. No network.",
      );
    },
    source: P2P_SOURCE,
  },
  'p2p-cumem': {
    get title(): string {
      return t('P2P/CUMEM');
    },
    get text(): string {
      return t(
        'Peer to peer between two GPUs of one host, buffers shared through CUDA virtual memory (cuMem) handles instead of legacy IPC (2.18 and later). No network.',
      );
    },
    source: P2P_SOURCE,
  },
  'p2p-direct': {
    get title(): string {
      return t('P2P/direct pointer');
    },
    get text(): string {
      return t("Peer to peer between two GPUs driven by the same process: it uses the other GPU's pointer directly.");
    },
    source: P2P_SOURCE,
  },
  'p2p-other': {
    get title(): string {
      return t('P2P');
    },
    get text(): string {
      return t(
        'Peer to peer between GPUs without the network: `indirect` goes through an intermediate GPU, `MNNVL` over a multi-node NVLink domain.',
      );
    },
    source: P2P_SOURCE,
  },
  'p2p-read': {
    get title(): string {
      return t('/read');
    },
    get text(): string {
      return t(
        "P2P read mode: the receiving GPU reads from the sender's buffer instead of the sender writing (NCCL_P2P_READ_ENABLE; on by default over NVLink between Ampere GPUs).",
      );
    },
    source: P2P_SOURCE,
  },
  'p2p-ce': {
    get title(): string {
      return t('/CE');
    },
    get text(): string {
      return t("The copy engine moves the data instead of the GPU's own kernels.");
    },
    source: P2P_SOURCE,
  },
  shm: {
    get title(): string {
      return t('SHM');
    },
    get text(): string {
      return t('Through host shared memory, between GPUs of one host that cannot use P2P (no NVLink, P2P disabled or across sockets).');
    },
    source: 'NVIDIA/nccl src/transport/shm.cc',
  },
  'net-socket': {
    get title(): string {
      return t('NET/Socket');
    },
    get text(): string {
      return t(
        "TCP sockets between hosts: no RDMA, so no GPU Direct RDMA either; every byte is copied through host memory and the kernel's network stack.",
      );
    },
    source: 'NVIDIA/nccl src/transport/net_socket.cc',
  },
  'net-ib': {
    get title(): string {
      return t('NET/IB');
    },
    get text(): string {
      return t("NCCL's InfiniBand/RoCE verbs transport between hosts; the number after it is the NIC from the `NET/IB : Using [n]…` list.");
    },
    source: 'NVIDIA/nccl src/transport/net_ib.cc (src/transport/net_ib/ from 2.28)',
  },
  'net-plugin': {
    get title(): string {
      return t('Network plugin');
    },
    get text(): string {
      return t(
        "A connection through a network plugin (AWS Libfabric for EFA, IBext from the HPC-X plugin, …), named as the plugin names itself; the number is the plugin's NIC.",
      );
    },
    source: NET_SOURCE,
  },
  collnet: {
    get title(): string {
      return t('COLLNET');
    },
    get text(): string {
      return t('The collective network (in-network reduction such as SHARP) through a collective plugin.');
    },
    source: 'NVIDIA/nccl src/transport/coll_net.cc',
  },
  dmabuf: {
    get title(): string {
      return t('DMABUF');
    },
    get text(): string {
      return t(
        'The NIC registers GPU memory through DMA-BUF (kernel 5.12 and later, open GPU driver) instead of the nvidia-peermem module.',
      );
    },
    source: 'Mellanox nccl-rdma-sharp-plugins src/p2p_plugin.c; NVIDIA/nccl src/transport/net_ib.cc (DMA-BUF support, 2.13 and later)',
  },
};
