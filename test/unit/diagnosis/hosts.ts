// Host presets for the diagnosis tests. Like the demo host, each is ASSEMBLED FROM REAL OUTPUTS OF
// SEVERAL MACHINES (test/fixtures, sources in test/fixtures/SOURCES.md) plus the labelled constructed
// kernel-format inputs of constructedInputs.ts. Known seam of HEALTHY: ibv_devinfo shows a ConnectX-3
// (mlx4_0, both ports active) while topo's NIC legend names mlx5 devices, so pairs carry no port.
import { Finding } from '../../../src/core/diagnosis';
import {
  KALLSYMS_EXPORTED,
  NO_FILES,
  PERSISTED_PEERMEM,
  RUN_NVIDIA_DRIVER_ABSENT,
  cmdline,
  iommuGroups,
  memoryPeers,
  modinfoNotFound,
  nvPeerMemService,
  sysModule,
  unameFromModinfo,
} from './constructedInputs';
import { HostFiles, fixture } from './hostReport';

const OPEN_550 = 'modinfo/nvidia-550-open-ubuntu2204-signed.txt';
const PROPRIETARY_510 = 'modinfo/nvidia-510-proprietary-ubuntu2204-a6000.txt';

/**
 * 8 data-center GPUs (DGX-A100 topo: every GPU PXB to two NICs), nvidia_peermem loaded, registered and persisted.
 * nvidia-smi -q is an 8× H100 box's: eight GPU models read, so no verdict rests on an unread model (a 4-GPU
 * output would leave GPU4-7 unknown).
 */
export const HEALTHY: HostFiles = {
  topo: fixture('topo/dgx-a100-epyc-nic-legend.txt'),
  numactl: fixture('numactl/amd-epyc-2socket-nps4-8node-mi210.txt'),
  lscpu: fixture('lscpu/amd-epyc-9534-2socket-nps4-h100nvl-new-layout.txt'),
  'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt'),
  lsmod: fixture('lsmod/gpu-operator-ib-grep-nvidia-peermem.txt'),
  'modinfo-nv-peer-mem': modinfoNotFound('nv_peer_mem'),
  'modinfo-nvidia': fixture(OPEN_550),
  ibv: fixture('ibv/mlx4-connectx3-roce-2port-device-ports.txt'),
  ofed: fixture('ofed/mlnx-ofed-23.07-connectx5-daocloud.txt'),
  uname: unameFromModinfo(OPEN_550),
  'os-release': fixture('os-release/ubuntu-22.04.5.txt'),
  cmdline: cmdline('quiet splash'),
  'memory-peers': memoryPeers('550.54.15'),
  'sys-module-peermem': sysModule('nvidia_peermem', '550.54.15'),
  'modules-load': PERSISTED_PEERMEM,
  'etc-modules': NO_FILES,
  'run-nvidia-driver': RUN_NVIDIA_DRIVER_ABSENT,
  'kallsyms-peer': KALLSYMS_EXPORTED,
  'nv-peer-mem-service': nvPeerMemService('', 'inactive'),
  'iommu-groups': iommuGroups(0),
};

/**
 * HEALTHY with a proprietary 510 driver (no dma-buf) and no peer-memory module loaded, registered or
 * persisted: the base of the peer-memory cases, which each set the modules they need.
 */
export const NO_PEERMEM: HostFiles = {
  ...HEALTHY,
  lsmod: fixture('lsmod/talos-connectx4-inbox-rdma-full-with-header.txt'),
  'modinfo-nvidia': fixture(PROPRIETARY_510),
  uname: unameFromModinfo(PROPRIETARY_510),
  'memory-peers': NO_FILES,
  'sys-module-peermem': NO_FILES,
  'modules-load': NO_FILES,
};

export function ids(findings: readonly Finding[]): string[] {
  return findings.map((f) => f.id);
}

export function only(findings: readonly Finding[], id: string): Finding {
  const matching = findings.filter((f) => f.id === id);
  if (matching.length !== 1) throw new Error(`expected one ${id}, found ${matching.length} among ${ids(findings).join(', ')}`);
  return matching[0];
}

/** Errors and warnings only. */
export function problems(findings: readonly Finding[]): string[] {
  return findings.filter((f) => f.severity !== 'info').map((f) => `${f.severity} ${f.id}`);
}

/** A copy of a host without some outputs (those commands then count as not collected). */
export function without(files: HostFiles, ...omit: (keyof HostFiles)[]): HostFiles {
  return Object.fromEntries(Object.entries(files).filter(([id]) => !omit.includes(id as keyof HostFiles))) as HostFiles;
}
