// CONSTRUCTED INPUTS, not recorded outputs. These are tiny files whose format the kernel (or the
// probe's own script) defines, for which no real published copy exists among the fixtures:
// sysfs/procfs one-liners, a modules-load.d(5) file, and the probe's own printf/echo framing.
// Every nvidia-smi, ibv_devinfo, lsmod, modinfo, numactl, lscpu and ofed_info output in these
// tests comes from test/fixtures or the lab profiles instead.
import { fixture } from './hostReport';

/** The probe's `headedFiles()` framing (commands.ts) of files with the given content. */
export function headed(files: Record<string, string>): string {
  return Object.entries(files)
    .map(([p, content]) => `==> ${p} <==\n${content}\n\n`)
    .join('');
}

/** nv_mem's version file; its content is assumed to be the driver version (see test/lab/profiles/README.md). */
export function memoryPeers(version: string): string {
  return headed({ '/sys/kernel/mm/memory_peers/nv_mem/version': version });
}

/** `/sys/module/<m>/{initstate,refcnt,version}` of a loaded module (kernel format: one value per file). */
export function sysModule(module: string, version: string): string {
  return headed({
    [`/sys/module/${module}/initstate`]: 'live',
    [`/sys/module/${module}/refcnt`]: '0',
    [`/sys/module/${module}/version`]: version,
  });
}

/** A modules-load.d(5) file naming the module, as the persist fix writes it. */
export const PERSISTED_PEERMEM = headed({ '/etc/modules-load.d/nvidia-peermem.conf': 'nvidia-peermem' });
/** A headed-files command that found no file prints nothing. */
export const NO_FILES = '';

/** /proc/kallsyms line format ("address type name [module]"); addresses read as zeros without root. */
export const KALLSYMS_EXPORTED = '0000000000000000 T ib_register_peer_memory_client\t[ib_core]\n';
/** grep found nothing: empty output, exit 1. */
export const KALLSYMS_ABSENT = { stdout: '', rc: 1 } as const;

/** `uname -r`: the release string of a real fixture's modinfo vermagic (the kernel it was built for). */
export function unameFromModinfo(rel: string): string {
  const vermagic = /^vermagic:\s+(\S+)/m.exec(fixture(rel));
  if (!vermagic) throw new Error(`${rel} has no vermagic`);
  return `${vermagic[1]}\n`;
}

/** kmod's "not found" message (real: modinfo/not-found-nvidia-ubuntu1504.txt) for another module name. */
export function modinfoNotFound(module: string) {
  const real = fixture('modinfo/not-found-nvidia-ubuntu1504.txt');
  return { stdout: '', stderr: real.replace('Module nvidia not found', `Module ${module} not found`), rc: 1 } as const;
}

/** A shell's answer for a missing command (exit 127). */
export function commandNotFound(name: string) {
  return { stdout: '', stderr: `sh: 1: ${name}: not found\n`, rc: 127 } as const;
}

/** The probe's own /run/nvidia/driver check (commands.ts); the listing is a driver container's root. */
export const RUN_NVIDIA_DRIVER_ABSENT = 'absent\n';
export const RUN_NVIDIA_DRIVER_PRESENT = 'present\nbin\ndev\netc\nlib\nproc\nrun\nsys\nusr\n';

/** The probe's printf of `systemctl is-enabled` / `is-active` (single-word systemd answers). */
export function nvPeerMemService(enabled: string, active: string): string {
  return `is-enabled: ${enabled}\nis-active: ${active}\n`;
}

/** /proc/cmdline: one line of kernel parameters. */
export function cmdline(params: string): string {
  return `BOOT_IMAGE=/boot/vmlinuz root=/dev/sda2 ro ${params}\n`.replace(/ +\n/, '\n');
}

/** A group count, as probes before the per-group lines printed it (`ls /sys/kernel/iommu_groups | wc -l`). */
export function iommuGroups(n: number): string {
  return `${n}\n`;
}
