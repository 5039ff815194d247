// What one NCCL message says. Each pattern names the NCCL source that prints it and the releases
// it covers, as read in NVIDIA/nccl's tags (v2.4.8-1 … v2.30.7-1); plugin messages name the plugin.
// Connection lines ("Channel … via …") are read by ncclLogConnection.ts.
import { parseConnection } from './ncclLogConnection';
import type { NcclLevel, NcclMessage, NcclNetDevice } from './ncclLogTypes';

// "NCCL version %s" with VERSION_STRING "NCCL version X.Y.Z<suffix>+cudaA.B" (src/init.cc, every release).
const VERSION = /^NCCL version (\d+\.\d+\.\d+)[^\s+]*(?:\+cuda(\d+\.\d+))?/;
// "cudaDriverVersion %d" (src/misc/cudawrap.cc, 2.13+).
const CUDA_DRIVER = /^cudaDriverVersion (\d+)/;
// "Using network %s" (src/init.cc, 2.6+).
const NETWORK = /^Using network (.+)$/;
// "NET/IB : Using%s ; OOB %s:%s" (src/transport/net_ib.cc 2.4–2.11), "NET/IB : Using%s %s; OOB %s:%s"
// with "[RO]" (2.12+; src/transport/net_ib/init.cc from 2.28), "NET/Socket : Using%s"
// (src/transport/net_socket.cc); each device " [%d]%s:%d/%s" (IB: name, port, IB|RoCE; 2.19+ may add
// ":<rail>" or "::<plane>" after the port) or " [%d]%s:%s" (Socket: interface, address).
const NET_DEVICES = /^NET\/(\S+) : Using((?: \[\d+\]\S+)*) ?(\[RO\])? ?(?:; OOB (.+))?$/;
const NET_NO_DEVICE = /^NET\/(\S+) : No device found\.?$/;
const IB_DEVICE = /^\[(\d+)\]([^:\s]+):(\d+)(?::\d*)*\/(.+)$/;
const SOCKET_DEVICE = /^\[(\d+)\]([^:\s]+):(.+)$/;
// "NET/%s : GPU Direct RDMA %s for HCA %d '%s'" (src/graph/topo.cc, 2.14+),
// "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)" (src/transport/net_ib.cc 2.5–2.13),
// "NET/IB : GPU Direct RDMA Disabled for GPU %d[%d] / HCA %d '%s' (no module or not supported by GPU)" (2.4),
// "NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA %d '%s" (Mellanox nccl-rdma-sharp-plugins
// src/p2p_plugin.c; also "(nvidia-peermem)"; its closing quote is missing in the source).
const HCA_GDR =
  /^NET\/(.+?) : GPU Direct RDMA (?:\(([^)]+)\) )?(Enabled|Disabled|enabled|disabled) for (?:GPU \S+ \/ )?HCA (\d+) '([^']*)'?(?: \((.+)\))?$/;
// Per GPU/HCA pair (ncclTopoCheckGdr): "GPU Direct RDMA %s for GPU %lx / HCA %d (distance %d <= %d), read %d"
// (src/graph/paths.cc 2.7–2.20; HCA "%lx" 2.21+; GPU a rank "%d" 2.25+; ", read %d mode %s" 2.27–2.29);
// before 2.7 in src/transport/net.cc with "NET/%s : " in front and "<" / ">=".
const PAIR_GDR =
  /^(?:NET\/.+? : )?GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) \/ HCA (\S+) \(distance (\d+) (?:<=|<|>=|>) (\d+)\)(?:, read (\d+))?(?: mode (\S+))?$/;
// 2.30 prints it at TRACE level: "GPU Direct RDMA %s for GPU/%ld-%ld (rank %d) - NET/%ld-%ld (… distance %d <= %d, read %d, mode %s)".
const PAIR_GDR_TRACE =
  /^GPU Direct RDMA (Enabled|Disabled) for (GPU\/\S+ \(rank \d+\)) - NET\/(\S+) \(.*?distance (\d+) (?:<=|>) (\d+)(?:, read (\d+), mode (\w+))?\)$/;
// "NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d" (src/transport/net_ib.cc 2.24–2.28,
// src/transport/net_ib/init.cc 2.29+, " rail=%d plane=%d" added in 2.30): from then on `NET/IB/<n>` is that
// device, a NIC or several merged ("mlx5_0+mlx5_1", NCCL_IB_MERGE_NICS).
const VIRTUAL_NIC = /^NET\/(\S+) : Made virtual device \[(\d+)\] name=(\S+)/;
// "DMA-BUF is available on GPU device %d" (src/init.cc, 2.13+).
const GPU_DMABUF = /^DMA-BUF is available on GPU device (\d+)/;
// "comm %p rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE" (2.4), "… cudaDev %d busId %lx - Init COMPLETE"
// (2.7–2.18), "… nvmlDev %d busId %lx commId 0x%llx - Init START|COMPLETE" (2.19+, with a function name in front from 2.21).
// The ending is matched apart (COMM_INIT): one pattern with `.*` between them would retry every split of a long line.
const COMM = /\bcomm 0x[0-9a-f]+ rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))?(?: busId ([0-9a-f]+))?\b/;
const COMM_INIT = / Init (START|COMPLETE)$/;
// "Connected all rings" (src/init.cc 2.12–2.23), "Connected all rings, use ring PXN %d GDR %d" (src/transport/generic.cc 2.24+).
const RINGS = /^Connected all rings(?:, use ring PXN (\d) GDR (\d))?$/;
// "%s set by environment to %s" (src/include/param.h, src/misc/param.cc; "… to %lu." with a dot), "NCCL_IB_HCA set to %s".
// The value is what follows, less the trailing dot some formats add.
const ENV = /^(NCCL_\w+) set (?:by environment )?to (.*)$/;
// aws-ofi-nccl src/nccl_ofi_ofiutils.cpp: "Could not disable CUDA API usage for HMEM, disabling GDR".
const GDR_OFF = /\bdisabling GDR\b/;
// A plugin's lines: a line is one when any of these matches at its start.
const PLUGIN_NAMES = /^(?:NET\/(?:Plugin|OFI)\b|Plugin Path|P2P plugin)/;
const PLUGIN_LOADED = /^(?:Loaded (?:net|coll) plugin|Successfully loaded external plugin|Initialized NET plugin)/;
const PLUGIN_IN_USE = /^(?:Using non-device net plugin|NET\/Plugin:)/;
const PLUGIN = [PLUGIN_NAMES, PLUGIN_LOADED, PLUGIN_IN_USE];
// The topology NCCL found and what it built: the system dump, search patterns, trees, ring orders.
const TOPOLOGY_DUMP = /^(?:\s*\d+ : (?:NET|GPU)\/|=== System|={10}|CPU\/|GPU\/|NIC\/|NET\/\d|\s*\+ )/;
const TOPOLOGY_SEARCH = /^(?:Pattern \d|Trees? |Ring \d+ : -?\d+ -> \d+ -> -?\d+$|Channel \d+(?:\/\d+)? :(?:\s+\d+)+$)/;
const TOPOLOGY_SETUP = /^(?:Setting affinity|threadThresholds|\d+ coll channels|Connected all trees|NVLS )/;
const TOPOLOGY = [TOPOLOGY_DUMP, TOPOLOGY_SEARCH, TOPOLOGY_SETUP];

type Classifier = (text: string) => NcclMessage | null;

const CLASSIFIERS: readonly Classifier[] = [
  parseConnection,
  (t) => map(VERSION, t, (m) => ({ kind: 'version', nccl: m[1], cuda: m[2] ?? null })),
  (t) =>
    map(HCA_GDR, t, (m) => ({
      kind: 'hca-gdr',
      net: m[1],
      hca: Number(m[4]),
      name: m[5],
      enabled: m[3].toLowerCase() === 'enabled',
      mechanism: m[2] ?? null,
      reason: m[6] ?? null,
    })),
  (t) => map(PAIR_GDR, t, (m) => pair(m)),
  (t) => map(PAIR_GDR_TRACE, t, (m) => pair(m)),
  (t) =>
    map(NET_DEVICES, t, (m) => ({
      kind: 'net-devices',
      net: m[1],
      found: true,
      devices: devices(m[1], m[2]),
      relaxedOrdering: m[3] !== undefined,
      oob: m[4] ?? null,
    })),
  (t) => map(VIRTUAL_NIC, t, (m) => ({ kind: 'virtual-nic', net: m[1], index: Number(m[2]), name: m[3] })),
  (t) => map(NET_NO_DEVICE, t, (m) => ({ kind: 'net-devices', net: m[1], found: false, devices: [], relaxedOrdering: false, oob: null })),
  (t) => map(NETWORK, t, (m) => ({ kind: 'network', name: m[1] })),
  (t) => map(GPU_DMABUF, t, (m) => ({ kind: 'gpu-dmabuf', dev: Number(m[1]) })),
  (t) => map(CUDA_DRIVER, t, (m) => ({ kind: 'cuda-driver', version: Number(m[1]) })),
  (t) => {
    const init = COMM_INIT.exec(t);
    return init === null ? null : map(COMM, t.slice(0, init.index), (m) => comm(m, init[1] as 'START' | 'COMPLETE'));
  },
  (t) =>
    map(RINGS, t, (m) => ({
      kind: 'rings-connected',
      pxn: m[1] === undefined ? null : m[1] === '1',
      gdr: m[2] === undefined ? null : m[2] === '1',
    })),
  (t) => map(ENV, t, (m) => ({ kind: 'env', name: m[1], value: (m[2].endsWith('.') ? m[2].slice(0, -1) : m[2]).trimEnd() })),
  (t) => (GDR_OFF.test(t) ? { kind: 'gdr-off', text: t } : null),
  (t) => (PLUGIN.some((re) => re.test(t)) ? { kind: 'plugin', text: t } : null),
  (t) => (TOPOLOGY.some((re) => re.test(t)) ? { kind: 'topology', text: t } : null),
];

/** What an NCCL message of the given level says; `info`/`warn` with its text when no pattern knows it. */
export function classifyMessage(text: string, level: NcclLevel): NcclMessage {
  // The patterns end at `$` on the trimmed text: none has to skip trailing blanks (which made them backtrack).
  const trimmed = text.trimEnd();
  if (level === 'WARN') return { kind: 'warn', text: trimmed };
  for (const classify of CLASSIFIERS) {
    const message = classify(trimmed);
    if (message) return message;
  }
  return { kind: 'info', text: trimmed };
}

function map(pattern: RegExp, text: string, build: (m: RegExpExecArray) => NcclMessage): NcclMessage | null {
  const m = pattern.exec(text);
  return m ? build(m) : null;
}

function comm(m: RegExpExecArray, state: 'START' | 'COMPLETE'): NcclMessage {
  return {
    kind: 'comm',
    state,
    rank: Number(m[1]),
    nranks: Number(m[2]),
    cudaDev: Number(m[3]),
    nvmlDev: m[4] === undefined ? null : Number(m[4]),
    busId: m[5] ?? null,
  };
}

function pair(m: RegExpExecArray): NcclMessage {
  return {
    kind: 'pair-gdr',
    enabled: m[1] === 'Enabled',
    gpu: m[2],
    hca: m[3],
    distance: Number(m[4]),
    threshold: Number(m[5]),
    read: m[6] === undefined ? null : m[6] === '1',
    mode: m[7] ?? null,
  };
}

function devices(net: string, list: string): NcclNetDevice[] {
  const socket = net === 'Socket';
  return list
    .trim()
    .split(' ')
    .filter((t) => t !== '')
    .flatMap((token): NcclNetDevice[] => {
      const m = (socket ? SOCKET_DEVICE : IB_DEVICE).exec(token);
      if (!m) return [];
      return socket
        ? [{ index: Number(m[1]), name: m[2], port: null, link: m[3] }]
        : [{ index: Number(m[1]), name: m[2], port: Number(m[3]), link: m[4] }];
    });
}
