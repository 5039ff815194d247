// The probe's command table: what one diagnosis collects from a host, each command under a stable id.
//
// Every command is a constant string written here: nothing from the user, the host or the network ever
// goes into the probe script. All of them are read-only. Only one reads as root: `pci-acs` runs lspci
// through `sudo -n` (never asking a password) to read ACS, which lives where non-root lspci cannot see.
// `sudo -n true` asks whether sudo would run without a password (so a fix knows whether it will need
// one); on hosts that mail the admin about refused sudo attempts, a user who is not a sudoer triggers
// such a mail (pci-acs asks once more).
//
// Files that may be absent, and globs, are printed by `headedFiles()`: for each file that exists,
//   ==> /path/to/file <==
//   <the file's content>
//   <one empty line>
// (like `head` prints several files). No header at all means no such file: `headedFiles.ts` reads it.

import { NCCL_CONF_COMMAND, NCCL_TOPO_COMMAND } from './ncclConfig';
import { FI_INFO_COMMAND, NET_PLUGIN_COMMAND } from './netPlugin';
import { PCI_ACS_COMMAND } from './pciAcs';
import { PCI_SYSFS_COMMAND } from './pciSysfs';
import { ROCE_QOS_COMMAND } from './roceQos';

export interface ProbeCommandSpec {
  /** Stable id: section name in the probe stream, file name (`<id>.txt`) in an offline folder. */
  readonly id: string;
  /** POSIX sh command line, run by `sh -c`, stdin from /dev/null. */
  readonly command: string;
  /** Seconds after which the probe's watchdog stops it on the host (TERM, then KILL 2 s later). */
  readonly timeoutS: number;
  /** What reports and evidence show as the command, when `command` wraps it (see kallsyms-peer). */
  readonly display?: string;
}

/** Prints each existing file of `paths` (sh globs allowed) with a `==> path <==` header. */
export function headedFiles(paths: readonly string[]): string {
  return `for f in ${paths.join(' ')}; do [ -f "$f" ] || continue; printf '==> %s <==\\n' "$f"; cat "$f"; printf '\\n'; done`;
}

/** Most groups printed: hosts have one per PCI device or function, a few hundred at most. */
const MAX_IOMMU_GROUPS = 4096;

/** `group ID TYPE VFIO DEVICE…` per IOMMU group (tab-separated; builtins only, no process per group). */
const IOMMU_GROUPS_COMMAND =
  `n=0; for g in /sys/kernel/iommu_groups/*; do [ -d "$g" ] || continue; n=$((n+1)); [ $n -le ${MAX_IOMMU_GROUPS} ] || break; ` +
  't=; [ -r "$g/type" ] && read -r t < "$g/type"; v=0; [ -e "/dev/vfio/${g##*/}" ] && v=1; printf \'group\\t%s\\t%s\\t%s\' "${g##*/}" "$t" "$v"; ' +
  'for d in "$g"/devices/*; do [ -e "$d" ] && printf \'\\t%s\' "${d##*/}"; done; printf \'\\n\'; done';

/** Printed instead of the grep when a peer-memory module is live; parseKallsymsPeer reads it. */
export const KALLSYMS_NOT_READ = '# not read: loaded peer-memory module';

const KALLSYMS_PEER_COMMAND =
  'for m in nvidia_peermem nv_peer_mem; do s=; [ -r /sys/module/$m/initstate ] && read -r s < /sys/module/$m/initstate; ' +
  `if [ "$s" = live ]; then echo "${KALLSYMS_NOT_READ} $m"; exit 0; fi; done; exec grep ib_register_peer_memory_client /proc/kallsyms`;

const NVIDIA_SMI_S = 30;
const DEFAULT_S = 10;

export const PROBE_COMMANDS = [
  { id: 'topo', command: 'nvidia-smi topo -m', timeoutS: NVIDIA_SMI_S },
  { id: 'gpus', command: 'nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv', timeoutS: NVIDIA_SMI_S },
  { id: 'smi-q', command: 'nvidia-smi -q', timeoutS: NVIDIA_SMI_S },
  { id: 'lscpu', command: 'lscpu', timeoutS: DEFAULT_S },
  { id: 'numactl', command: 'numactl -H', timeoutS: DEFAULT_S },
  { id: 'lsmod', command: 'lsmod', timeoutS: DEFAULT_S },
  { id: 'modinfo-nvidia-peermem', command: 'modinfo nvidia_peermem', timeoutS: DEFAULT_S },
  { id: 'modinfo-nv-peer-mem', command: 'modinfo nv_peer_mem', timeoutS: DEFAULT_S },
  // license "Dual MIT/GPL" = open kernel modules, the ones dma-buf needs (docs/dma-buf.md §3).
  { id: 'modinfo-nvidia', command: 'modinfo nvidia', timeoutS: DEFAULT_S },
  { id: 'ibv', command: 'ibv_devinfo -v', timeoutS: 20 },
  { id: 'ofed', command: 'ofed_info -s', timeoutS: DEFAULT_S },
  { id: 'uname', command: 'uname -r', timeoutS: DEFAULT_S },
  { id: 'os-release', command: 'cat /etc/os-release', timeoutS: DEFAULT_S },
  { id: 'nvidia-version', command: 'cat /proc/driver/nvidia/version', timeoutS: DEFAULT_S },
  { id: 'cmdline', command: 'cat /proc/cmdline', timeoutS: DEFAULT_S },
  // NCCL's test for peer memory (docs/nccl-gdr.md §3): any of these version files.
  { id: 'memory-peers', command: headedFiles(['/sys/kernel/mm/memory_peers/*/version']), timeoutS: DEFAULT_S },
  {
    id: 'sys-module-peermem',
    command: headedFiles(
      ['nvidia_peermem', 'nv_peer_mem'].flatMap((m) => ['initstate', 'refcnt', 'version'].map((f) => `/sys/module/${m}/${f}`)),
    ),
    timeoutS: DEFAULT_S,
  },
  // modules-load.d(5) directories; on merged-/usr systems /lib and /usr/lib show the same files.
  {
    id: 'modules-load',
    command: headedFiles([
      '/etc/modules-load.d/*.conf',
      '/run/modules-load.d/*.conf',
      '/usr/lib/modules-load.d/*.conf',
      '/lib/modules-load.d/*.conf',
    ]),
    timeoutS: DEFAULT_S,
  },
  { id: 'etc-modules', command: headedFiles(['/etc/modules']), timeoutS: DEFAULT_S },
  // The GPU Operator's driver container mounts its root here; then the operator owns the module.
  {
    id: 'run-nvidia-driver',
    command: 'if [ -d /run/nvidia/driver ]; then echo present; ls -A /run/nvidia/driver | head -n 50; else echo absent; fi',
    timeoutS: DEFAULT_S,
  },
  { id: 'sudo-n', command: 'id -u; sudo -n true', timeoutS: DEFAULT_S },
  // Exported only by MLNX_OFED/DOCA-OFED's ib_core or ib_uverbs (docs/peer-memory.md §2); names are readable without
  // root. Reading /proc/kallsyms makes the kernel format every symbol (tens of ms of CPU), and the answer
  // only matters when no peer-memory module is loaded: a live one has resolved the symbol (hostChecks.ts).
  {
    id: 'kallsyms-peer',
    command: KALLSYMS_PEER_COMMAND,
    display: 'grep ib_register_peer_memory_client /proc/kallsyms',
    timeoutS: DEFAULT_S,
  },
  // The legacy service must be off when nvidia-peermem is used (docs/peer-memory.md §1). stderr is
  // dropped: for a SysV script systemctl says it redirects to systemd-sysv-install; an empty
  // is-enabled = no such unit.
  {
    id: 'nv-peer-mem-service',
    command:
      'command -v systemctl >/dev/null 2>&1 || exit 127; printf \'is-enabled: %s\\n\' "$(systemctl is-enabled nv_peer_mem.service 2>/dev/null)"; printf \'is-active: %s\\n\' "$(systemctl is-active nv_peer_mem.service 2>/dev/null)"',
    timeoutS: DEFAULT_S,
  },
  // Where NCCL learns locality: every RDMA device and NVIDIA GPU with its PCI path, port states (pciSysfs.ts).
  // 20 s: it reads the error counters twice, a second apart.
  { id: 'pci-sysfs', command: PCI_SYSFS_COMMAND, timeoutS: 20 },
  // IOMMU groups exist only when an IOMMU is active; each group's default domain type says whether DMA
  // is translated (DMA, DMA-FQ) or passed through (identity), and /dev/vfio/<n> whether VFIO holds it
  // (a device passed to a VM): docs/platform.md §2 and Documentation/ABI/testing/sysfs-kernel-iommu_groups.
  {
    id: 'iommu-groups',
    command: IOMMU_GROUPS_COMMAND,
    display: 'cat /sys/kernel/iommu_groups/*/type; ls /sys/kernel/iommu_groups/*/devices /dev/vfio',
    timeoutS: DEFAULT_S,
  },
  // ACS and ATS of the devices between GPUs and NICs, read by lspci as root where that needs no password (pciAcs.ts).
  {
    id: 'pci-acs',
    command: PCI_ACS_COMMAND,
    display: 'lspci -vvv -s <each GPU, NIC and bridge between them> (as root, or through sudo -n)',
    timeoutS: 20,
  },
  // NCCL's own configuration (ncclConfig.ts): its conf files, and the XML topologies it loads by itself.
  { id: 'nccl-conf', command: NCCL_CONF_COMMAND, display: 'cat /etc/nccl.conf ~/.nccl.conf', timeoutS: DEFAULT_S },
  {
    id: 'nccl-topo',
    command: NCCL_TOPO_COMMAND,
    display: 'cat /var/run/nvidia-topologyd/virtualTopology.xml <the NCCL_TOPO_FILE of nccl.conf>',
    timeoutS: DEFAULT_S,
  },
  // Network plugins NCCL loads before its own transports, and libfabric's efa provider (netPlugin.ts).
  { id: 'nccl-net-plugin', command: NET_PLUGIN_COMMAND, display: 'ldconfig -p; ls <plugin folders>/libnccl-net*.so', timeoutS: DEFAULT_S },
  { id: 'fi-info', command: FI_INFO_COMMAND, display: 'fi_info -p efa', timeoutS: DEFAULT_S },
  // The RoCE NICs' trust mode, DSCP→priority map and PFC priorities, as the login user (roceQos.ts); 30 s: one
  // mlnx_qos (a Python program) per RoCE interface.
  { id: 'roce-qos', command: ROCE_QOS_COMMAND, display: 'mlnx_qos -i <each RoCE interface>', timeoutS: 30 },
  // Who made the machine: a hypervisor names itself here (QEMU, VMware, Amazon EC2…); Xen guests in /sys/hypervisor.
  {
    id: 'dmi',
    command: headedFiles(['/sys/class/dmi/id/sys_vendor', '/sys/class/dmi/id/product_name', '/sys/hypervisor/type']),
    timeoutS: DEFAULT_S,
  },
] as const satisfies readonly ProbeCommandSpec[];

export type ProbeCommandId = (typeof PROBE_COMMANDS)[number]['id'];

/** Output kept per stream (stdout, stderr) of each command; more is cut and flagged. */
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** A client-side deadline for the whole probe: the slowest command, `timeout -k 2`'s grace, and slack. */
export function probeDeadlineMs(commands: readonly ProbeCommandSpec[]): number {
  const slowest = commands.reduce((max, c) => Math.max(max, c.timeoutS), 0);
  return (slowest + 2 + 15) * 1000;
}
