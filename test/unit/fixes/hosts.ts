// Hosts for the fix tests: the diagnosis tests' presets (real fixtures + labelled constructed sysfs
// files, see ../diagnosis/hosts.ts), plus the probe's `id -u; sudo -n true` answers. The sudo messages
// are real sudo 1.9's, as it printed them in the lab (test/lab) for a user with and without sudo.
import { PersistState } from '../../../src/core/fixes';
import { ProbeReport } from '../../../src/core/probe/runProbe';
import { headed, KALLSYMS_ABSENT, RUN_NVIDIA_DRIVER_PRESENT, commandNotFound, modinfoNotFound } from '../diagnosis/constructedInputs';
import { HostFiles, fixture, hostReport, labFile } from '../diagnosis/hostReport';
import { HEALTHY, NO_PEERMEM } from '../diagnosis/hosts';

export const SUDO = {
  passwordless: { stdout: '1500\n', rc: 0 },
  password: { stdout: '1501\n', stderr: 'sudo: a password is required\n', rc: 1 },
  root: { stdout: '0\n', rc: 0 },
  notAllowed: { stdout: '1502\n', stderr: 'Sorry, user nosudo may not run sudo on fx.\n', rc: 1 },
  notInstalled: { stdout: '1502\n', stderr: 'sh: 1: sudo: not found\n', rc: 127 },
} as const;

/** nvidia_peermem exists (modinfo would say so), not loaded, proprietary driver: load-peermem's host. */
export const NEEDS_PEERMEM: HostFiles = { ...NO_PEERMEM, 'sudo-n': SUDO.passwordless };
/** nvidia_peermem loaded and registered, not persisted. */
export const LOADED_NOT_PERSISTED: HostFiles = { ...HEALTHY, 'modules-load': '', 'sudo-n': SUDO.passwordless };
export const LOADED_AND_PERSISTED: HostFiles = { ...HEALTHY, 'sudo-n': SUDO.passwordless };
/** Only the legacy module exists for this kernel. */
export const LEGACY_ONLY: HostFiles = {
  ...NEEDS_PEERMEM,
  'modinfo-nvidia-peermem': modinfoNotFound('nvidia_peermem'),
  'modinfo-nv-peer-mem': fixture('modinfo/nv-peer-mem-1.0-8-ubuntu1804-dkms.txt'),
};
/** Inbox ib_core: no OFED, symbol not exported. */
export const INBOX: HostFiles = { ...NEEDS_PEERMEM, 'kallsyms-peer': KALLSYMS_ABSENT, ofed: commandNotFound('ofed_info') };
export const NO_MODULE: HostFiles = {
  ...NEEDS_PEERMEM,
  'modinfo-nvidia-peermem': modinfoNotFound('nvidia_peermem'),
  'modinfo-nv-peer-mem': modinfoNotFound('nv_peer_mem'),
};
export const OPERATOR: HostFiles = { ...NEEDS_PEERMEM, 'run-nvidia-driver': RUN_NVIDIA_DRIVER_PRESENT };

export { headed, hostReport };

export function report(files: HostFiles): Promise<ProbeReport> {
  return hostReport(files);
}

export const CONF = '/etc/modules-load.d/nvidia-peermem.conf';
/** A real Ubuntu /etc/modules (source: test/lab/profiles/README.md, needs-peermem). */
export const ETC_MODULES_TEXT = labFile('needs-peermem', 'etc-modules-variant/modules');

/** A reading of the boot module files: modules-load.d as given, other files absent unless set. */
export function persistState(dir: PersistState['modulesLoadDir'], files: PersistState['files'] = {}): PersistState {
  const absent = { kind: 'absent' } as const;
  return {
    modulesLoadDir: dir,
    files: { [CONF]: absent, '/etc/modules-load.d/nv_peer_mem.conf': absent, '/etc/modules': absent, ...files },
  };
}
