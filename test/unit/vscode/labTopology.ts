// The topology panel's data for lab hosts, built as Show Topology builds it after a diagnosis, from the
// profiles' recordings (test/lab/profiles, README there) and their sysfs trees — without the lab.
import { diagnose } from '../../../src/core/diagnosis';
import { hostDrawing } from '../../../src/core/diagnosis/hostTopology';
import type { ProbeCommandId } from '../../../src/core/probe/commands';
import type { TopologyData } from '../../../src/protocol/topology';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { HostFiles, hostReport, labFile } from '../diagnosis/hostReport';
import { labSysfsText } from '../topology/pcie/labSysfs';

/** Which recordings of which profile each lab host has (profiles with `base: healthy` read healthy's). */
const RECORDINGS: Record<string, [ProbeCommandId, string, string][]> = {
  'pxn-port-down': [
    ['topo', 'pxn-port-down', 'out/nvidia-smi_topo_-m.stdout'],
    ['smi-q', 'healthy', 'out/nvidia-smi_-q.stdout'],
    ['lscpu', 'healthy', 'out/lscpu.stdout'],
    ['numactl', 'healthy', 'out/numactl_-H.stdout'],
  ],
  'grace-c2c': [
    ['topo', 'grace-c2c', 'out/nvidia-smi_topo_-m.stdout'],
    ['lscpu', 'grace-c2c', 'out/lscpu.stdout'],
    ['numactl', 'grace-c2c', 'out/numactl_-H.stdout'],
    ['gpus', 'grace-c2c', 'out/nvidia-smi_--query-gpu=index,name,pci.bus%5Fid,driver%5Fversion_--format=csv.stdout'],
  ],
  gh200: [
    ['topo', 'gh200', 'out/nvidia-smi_topo_-m.stdout'],
    ['smi-q', 'gh200', 'out/nvidia-smi_-q.stdout'],
    ['lscpu', 'gh200', 'out/lscpu.stdout'],
    ['numactl', 'gh200', 'out/numactl_-H.stdout'],
    ['gpus', 'gh200', 'out/nvidia-smi_--query-gpu=index,name,pci.bus%5Fid,driver%5Fversion_--format=csv.stdout'],
  ],
};

/** `without` leaves recordings out, as a host where they failed (`topo`: nvidia-smi topo -m missing). */
export async function labTopologyData(profile: string, without: readonly ProbeCommandId[] = []): Promise<TopologyData> {
  const files: HostFiles = { 'pci-sysfs': labSysfsText(profile) };
  for (const [id, from, rel] of RECORDINGS[profile] ?? []) if (!without.includes(id)) files[id] = labFile(from, rel);
  const report = await hostReport(files);
  const diagnosis = diagnose(report);
  const drawing = hostDrawing(report);
  if (!drawing) throw new Error(`${profile}: nothing to draw`);
  return topologyData({
    title: profile,
    source: 'test',
    topology: drawing.topology,
    pairs: diagnosis.pairs,
    suggestedEnv: diagnosis.suggestedEnv,
    tree: drawing.tree,
    derived: drawing.derived,
    c2cGpus: drawing.c2cGpus,
  });
}
