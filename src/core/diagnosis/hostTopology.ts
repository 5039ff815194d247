// A host's GPU/NIC matrix and PCIe tree as every view shows them: `nvidia-smi topo -m` when it was read,
// else the matrix derived from the sysfs PCI tree (topology/pcie/derivedTopology.ts), marked derived;
// and the PCIe tree itself with the matrix's names on its GPUs and NICs.
import type { Topology } from '../parsers/topo';
import type { PciSysfs } from '../probe/pciSysfs';
import { ProbeReport } from '../probe/runProbe';
import { derivedTopology } from '../topology/pcie/derivedTopology';
import { PcieTree, pcieTree } from '../topology/pcie/tree';
import { factOf } from './evidence';
import { gpuFacts } from './gpuFacts';
import { rdmaPorts } from './rdmaPorts';

export interface HostTopology {
  readonly topology: Topology;
  /** Worked out from the sysfs PCI tree because `nvidia-smi topo -m` was not read: no NVLink, distances derived. */
  readonly derived: boolean;
}

export function hostTopology(report: ProbeReport): HostTopology | null {
  const topo = factOf(report, 'topo');
  if (topo) return { topology: topo, derived: false };
  const sysfs = factOf(report, 'pci-sysfs');
  if (!sysfs) return null;
  const nics = [...new Set((rdmaPorts(report) ?? []).map((p) => p.device))];
  const topology = derivedTopology({ sysfs, gpus: gpuFacts(report, sysfs), nics });
  return topology ? { topology, derived: true } : null;
}

/** The PCIe tree of the sysfs read, its GPUs and NICs named as `topology` names them; null without a sysfs read. */
export function hostPcieTree(report: ProbeReport, topology: Topology | null): PcieTree | null {
  const sysfs: PciSysfs | undefined = factOf(report, 'pci-sysfs');
  if (!sysfs || (sysfs.rdma.length === 0 && sysfs.nvidia.length === 0)) return null;
  const nicColumns = new Map((topology?.nics ?? []).map((n) => [n.device ?? n.name, n.name] as [string, string]));
  return pcieTree({ sysfs, gpus: gpuFacts(report, sysfs), nicColumns });
}

/** What the topology panel draws for a diagnosed host: its matrix (read or derived), its PCIe tree, its C2C GPUs. */
export interface HostDrawing extends HostTopology {
  readonly tree: PcieTree | null;
  readonly c2cGpus: string[];
}

export function hostDrawing(report: ProbeReport): HostDrawing | null {
  const host = hostTopology(report);
  if (!host) return null;
  const c2cGpus = gpuFacts(report, factOf(report, 'pci-sysfs') ?? null)
    .filter((g) => g.c2c === true)
    .map((g) => g.name);
  return { ...host, tree: hostPcieTree(report, host.topology), c2cGpus };
}
