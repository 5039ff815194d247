// A probe command as a person would name it: the command line where it is short, what it reads where
// the line is a loop over files (commands.ts prints those with headedFiles) or a script. Raw-output
// tabs and rows show this, never the command's internal id.
import type { ProbeCommandId } from './commands';

const TITLES: Readonly<Partial<Record<ProbeCommandId, string>>> = {
  gpus: 'nvidia-smi --query-gpu=…',
  'memory-peers': 'cat /sys/kernel/mm/memory_peers/*/version',
  'sys-module-peermem': 'cat /sys/module/{nvidia_peermem,nv_peer_mem}/*',
  'modules-load': 'cat /etc/modules-load.d/*.conf',
  'etc-modules': 'cat /etc/modules',
  'run-nvidia-driver': 'ls /run/nvidia/driver',
  'sudo-n': 'sudo -n true',
  'nv-peer-mem-service': 'systemctl is-enabled nv_peer_mem',
  'pci-sysfs': 'PCI devices in /sys/bus/pci',
  'iommu-groups': 'ls /sys/kernel/iommu_groups',
  'pci-acs': 'lspci -vvv of the GPU↔NIC bridges (ACS)',
  dmi: 'cat /sys/class/dmi/id/{sys_vendor,product_name}',
  'nccl-conf': 'cat /etc/nccl.conf ~/.nccl.conf',
  'nccl-topo': 'cat virtualTopology.xml, NCCL_TOPO_FILE',
  'nccl-net-plugin': 'ls libnccl-net*.so (NCCL network plugins)',
  'roce-qos': 'mlnx_qos -i <each RoCE interface>',
};

/** Longer command lines than this are not titles: the id says more. */
const MAX_COMMAND = 60;

export function commandTitle(c: { readonly id: string; readonly command: string; readonly display?: string }): string {
  const title = (TITLES as Readonly<Record<string, string | undefined>>)[c.id];
  if (title !== undefined) return title;
  // What reports show of a command that runs differently from how it reads (ProbeCommandSpec.display).
  const shown = c.display ?? c.command;
  return shown.length <= MAX_COMMAND && !shown.includes('\n') ? shown : c.id;
}
