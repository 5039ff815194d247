// Reads what NCCL's GPU↔NIC decision needs out of a probe report: the GPUs (bus address, compute
// capability, GPUDirect RDMA support, C2C), their NVLinks, the RDMA ports in NCCL's device order, the
// CPU, the sysfs PCI tree, and the NIC-side support as a given NCCL release judges it.
import type { Lscpu } from '../parsers/lscpu';
import type { Topology } from '../parsers/topo';
import { CpuInfo, NvLink } from '../topology/nccl/bandwidth';
import { NcclModelInput } from '../topology/nccl/model';
import { TableGpu } from '../topology/nccl/pathTable';
import { NcclRules, SYS_MODULE_NVIDIA_PEERMEM } from '../topology/nccl/rules';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { gpuFacts } from './gpuFacts';
import { rdmaPorts } from './rdmaPorts';
import { hostTopoFiles } from './ncclHostConfig';
import type { PciSysfs } from '../probe/pciSysfs';

export function ncclModelInput(ctx: RuleContext): NcclModelInput {
  const { report } = ctx;
  const topology = factOf(report, 'topo') ?? null;
  const sysfs = factOf(report, 'pci-sysfs') ?? null;
  const gpus: TableGpu[] = gpuFacts(report, sysfs);
  return {
    topology,
    sysfs,
    gpus,
    nvlinks: nvlinksOf(topology, gpus),
    ports: rdmaPorts(report),
    cpu: cpuOf(factOf(report, 'lscpu')),
    topoFiles: hostTopoFiles(report),
    nicBusIds: nicBusIds(sysfs),
    pluginLibraries: factOf(report, 'nccl-net-plugin')?.libraries ?? null,
    // ctx.dmabuf already follows the job's NCCL; env is the model's own read, for callers with other settings.
    nicSupport: (rules, env) => nicSupport(ctx, rules, rules.dmabuf && (env.dmabufEnable ?? 1) !== 0),
  };
}

/** A saved `nvidia-smi topo -m` alone (editor, `parse topo`, the offline panel): nothing else is known. */
export function matrixModelInput(topology: Topology): NcclModelInput {
  const gpus: TableGpu[] = topology.gpus.map((g, dev) => ({
    name: g.name,
    dev,
    busId: null,
    cc: null,
    gdrSupport: null,
    c2c: /^\d+$/.test((g.gpuNumaId ?? '').trim()) ? true : null,
  }));
  return {
    topology,
    sysfs: null,
    gpus,
    nvlinks: nvlinksOf(topology, gpus),
    ports: null,
    cpu: { arch: null, vendor: null, family: null, model: null },
    topoFiles: null,
    nicBusIds: new Map(),
    pluginLibraries: null,
    nicSupport: () => null,
  };
}

/**
 * Each RDMA device's NIC as NCCL puts it on the bus: its PCI function, as device 00 function 0 (NCCL_IB_MERGE_VFS,
 * ncclIbGetPciPath in src/transport/net_ib/init.cc), from the sysfs path of the device.
 */
function nicBusIds(sysfs: PciSysfs | null): Map<string, string | null> {
  return new Map(
    (sysfs?.rdma ?? []).map((d) => {
      const bdf = d.path.slice(d.path.lastIndexOf('/') + 1).toLowerCase();
      return [d.name, /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(bdf) ? `${bdf.slice(0, -4)}00.0` : null];
    }),
  );
}

/** NV<n> cells between GPUs of the matrix (sysfs does not show NVLink). */
function nvlinksOf(topology: Topology | null, gpus: readonly TableGpu[]): NvLink[] {
  if (!topology) return [];
  const links: NvLink[] = [];
  gpus.forEach((a, i) =>
    gpus.forEach((b, j) => {
      const m = j > i ? /^NV(\d+)$/.exec(topology.links[a.name]?.[b.name] ?? '') : null;
      if (m) links.push({ a: i, b: j, count: Number(m[1]) });
    }),
  );
  return links;
}

function cpuOf(lscpu: Lscpu | undefined): CpuInfo {
  const f = lscpu?.fields ?? {};
  const arch = f.Architecture ?? '';
  const vendor = f['Vendor ID'] ?? '';
  const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s.trim()) ? Number(s.trim()) : null);
  return {
    arch: /^(x86_64|i[3-6]86)$/.test(arch) ? 'x86' : /^(aarch64|arm64)$/.test(arch) ? 'arm' : /^ppc64/.test(arch) ? 'power' : null,
    vendor:
      vendor === 'GenuineIntel' ? 'intel' : vendor === 'AuthenticAMD' ? 'amd' : /CentaurHauls|Shanghai/.test(vendor) ? 'zhaoxin' : null,
    family: int(f['CPU family']),
    model: int(f.Model),
  };
}

/**
 * The NIC side as NCCL sees it (ncclIbGdrSupport, or dma-buf): a peer-memory file the release checks,
 * or dma-buf when its prerequisites hold, the release has it (NCCL_PTR_DMABUF, from 2.13) and
 * NCCL_DMABUF_ENABLE (strtoll) is not 0.
 */
function nicSupport({ report, dmabuf, host }: RuleContext, rules: NcclRules, dmabufEnabledByEnv: boolean): boolean | null {
  const peers = factOf(report, 'memory-peers');
  const modules = factOf(report, 'sys-module-peermem');
  const present = [
    ...(peers?.peers.map((p) => `/sys/kernel/mm/memory_peers/${p.name}/version`) ?? []),
    ...(modules?.modules.filter((m) => m.version !== null).map((m) => `/sys/module/${m.name}/version`) ?? []),
    // A loaded nvidia_peermem has that file: the module declares MODULE_VERSION (kernel-open/nvidia-peermem).
    ...(host.peermem.newLoaded === true ? [SYS_MODULE_NVIDIA_PEERMEM] : []),
  ];
  if (present.some((f) => rules.peermemFiles.includes(f))) return true;
  if (dmabufEnabledByEnv && dmabuf.available === true) return true;
  const filesKnown = peers !== undefined && modules !== undefined;
  if (filesKnown && (dmabuf.available === false || !dmabufEnabledByEnv)) return false;
  return null;
}
