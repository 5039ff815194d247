// Evidence lines about the peer-memory modules, shared by the peermem rule files.
import { ProbeReport } from '../probe/runProbe';
import { factOf, note, quote, startsWithWord } from './evidence';
import { LEGACY_MODULE, NEW_MODULE } from './hostState';

/** The lsmod and /sys/module lines that show a module loaded. */
export function loadedEvidence(report: ProbeReport, module: string): string[] {
  return [
    ...quote(report, 'lsmod', startsWithWord(module)),
    ...quote(report, 'sys-module-peermem', (l) => l.includes(`/sys/module/${module}/initstate`)),
  ];
}

/** Why neither module counts as loaded. */
export function notLoadedEvidence(report: ProbeReport): string[] {
  const lsmod = factOf(report, 'lsmod');
  const sys = factOf(report, 'sys-module-peermem');
  return [
    ...(lsmod ? [note(report, 'lsmod', `no ${NEW_MODULE} or ${LEGACY_MODULE} line among ${lsmod.modules.length} modules`)] : []),
    ...(sys && sys.modules.length === 0 ? [note(report, 'sys-module-peermem', 'neither directory exists')] : []),
  ];
}

/** `modinfo` lines: the module file found (filename/version), or the "not found" error. */
export function modinfoEvidence(report: ProbeReport, id: 'modinfo-nvidia-peermem' | 'modinfo-nv-peer-mem'): string[] {
  return quote(report, id, (l) => /^(filename|version):/.test(l) || l.startsWith('modinfo: ERROR'));
}

export function registrationEvidence(report: ProbeReport): string[] {
  const peers = factOf(report, 'memory-peers');
  if (!peers) return [];
  if (peers.peers.length === 0) return [note(report, 'memory-peers', 'no /sys/kernel/mm/memory_peers/*/version file')];
  return peers.peers.map((p) => `${p.path}: ${p.version}`);
}
