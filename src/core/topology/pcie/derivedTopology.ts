// A `nvidia-smi topo -m`-shaped matrix worked out from the sysfs PCI tree (distance.ts), for a host where
// nvidia-smi topo failed or is missing: GPU and NIC columns named as nvidia-smi names them (GPU<n> in
// NVML order, NIC<n> with a NIC legend), each cell the PCIe distance, each GPU's NUMA node from sysfs.
// Like `nvidia-smi topo -mp` it shows no NVLink (sysfs does not): every caller marks it derived.
import type { PciSysfs } from '../../probe/pciSysfs';
import type { TopoGpu, TopoLinks, Topology } from '../../parsers/topo';
import { pcieDistance } from './distance';
import { splitPciPath } from './tree';

export interface DerivedTopologyInput {
  readonly sysfs: PciSysfs;
  /** In NVML order, with the names the rest of the diagnosis uses (`GPU0`). */
  readonly gpus: readonly { readonly name: string; readonly busId: string | null }[];
  /** RDMA devices in the order NCCL lists them (ibv_devinfo's, else sysfs'). */
  readonly nics: readonly string[];
}

/** Null when no GPU can be placed in the tree (no bus addresses, or none in sysfs). */
export function derivedTopology(input: DerivedTopologyInput): Topology | null {
  const byBdf = new Map([...input.sysfs.devices.values()].map((d) => [d.bdf, d.path]));
  const gpuPaths = input.gpus.map((g) => (g.busId === null ? null : (byBdf.get(g.busId.toLowerCase()) ?? null)));
  if (!gpuPaths.some((p) => p !== null)) return null;
  const nicPaths = input.nics.map((n) => input.sysfs.rdma.find((r) => r.name === n)?.path ?? null);
  const nics = input.nics.map((device, i) => ({ name: `NIC${i}`, device }));
  const columns = [...input.gpus.map((g) => g.name), ...nics.map((n) => n.name)];
  const paths = [...gpuPaths, ...nicPaths];
  const numaOf = (path: string) => hostBridgeNuma(input.sysfs, path);
  const links: TopoLinks = {};
  columns.forEach((row, r) => {
    links[row] = Object.fromEntries(
      columns.map((column, c) => {
        const [a, b] = [paths[r], paths[c]];
        return [column, r === c ? 'X' : a === null || b === null ? null : pcieDistance(a, b, numaOf)];
      }),
    );
  });
  const gpus: TopoGpu[] = input.gpus.map((g, i) => {
    const numa = gpuPaths[i] === null ? null : nodeOf(input.sysfs, gpuPaths[i] as string);
    return { name: g.name, cpuAffinity: null, numaAffinity: numa === null ? null : String(numa), gpuNumaId: null };
  });
  return { gpus, nics, links, columns, infoColumns: ['NUMA Affinity'], legend: [] };
}

/** The NUMA node of a device's host bridge: its root port's, else its own. */
export function hostBridgeNuma(sysfs: PciSysfs, path: string): number | null {
  const split = splitPciPath(path);
  const root = split ? `${path.slice(0, path.indexOf(split.hostBridge) + split.hostBridge.length)}/${split.bdfs[0]}` : path;
  return nodeOf(sysfs, root) ?? nodeOf(sysfs, path);
}

function nodeOf(sysfs: PciSysfs, path: string): number | null {
  const n = sysfs.devices.get(path)?.numaNode;
  return n === undefined || n === null || n < 0 ? null : n;
}
