// Reading a probe report for the rules: a command's parsed value (or nothing), and the output
// lines a finding quotes as evidence. Rules never re-parse; they only look up printed lines.
import { ProbeCommandId } from '../probe/commands';
import { FactTypes } from '../probe/facts';
import { CommandResult } from '../probe/frames';
import { ProbeReport } from '../probe/runProbe';

/** How a command is named in evidence: what a user would type, not the probe's wrapper. */
const LABELS: Partial<Record<ProbeCommandId, string>> = {
  'memory-peers': 'ls /sys/kernel/mm/memory_peers/*/version',
  'sys-module-peermem': 'ls /sys/module/{nvidia_peermem,nv_peer_mem}',
  'modules-load': 'cat /etc/modules-load.d/*.conf',
  'etc-modules': 'cat /etc/modules',
  'run-nvidia-driver': 'ls /run/nvidia/driver',
  'nv-peer-mem-service': 'systemctl is-enabled/is-active nv_peer_mem',
  'iommu-groups': 'ls /sys/kernel/iommu_groups',
  'pci-acs': 'lspci -vvv -s <bdf>',
  dmi: 'cat /sys/class/dmi/id/{sys_vendor,product_name}',
  'sudo-n': 'sudo -n true',
  'pci-sysfs': 'readlink -f /sys/class/infiniband/*/device /sys/bus/pci/devices/* (PCI paths of RDMA devices and GPUs)',
};

const MAX_QUOTED_LINES = 4;

export function commandOf(report: ProbeReport, id: ProbeCommandId): CommandResult | undefined {
  return report.commands.find((c) => c.id === id);
}

export function labelOf(report: ProbeReport, id: ProbeCommandId): string {
  return LABELS[id] ?? commandOf(report, id)?.command ?? id;
}

/** The parsed value of a command, or undefined when it did not run, failed, or could not be read. */
export function factOf<K extends ProbeCommandId>(report: ProbeReport, id: K): FactTypes[K] | undefined {
  const fact = report.facts[id];
  return fact?.parsed.ok ? (fact.parsed.value as FactTypes[K]) : undefined;
}

/** The lines the fact was read from: stdout, or stderr for a command that printed only there. */
export function outputLines(report: ProbeReport, id: ProbeCommandId): string[] {
  const c = commandOf(report, id);
  if (!c) return [];
  const text = c.stdout.trim() === '' ? c.stderr : c.stdout;
  return text.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
}

/** `<command>: <line>` for each output line matching, at most a few, trimmed as printed. */
export function quote(report: ProbeReport, id: ProbeCommandId, match: (line: string) => boolean): string[] {
  const lines = outputLines(report, id)
    .filter(match)
    .map((l) => `${labelOf(report, id)}: ${l.trim()}`);
  if (lines.length <= MAX_QUOTED_LINES) return lines;
  return [...lines.slice(0, MAX_QUOTED_LINES), `${labelOf(report, id)}: (${lines.length - MAX_QUOTED_LINES} more lines)`];
}

/** Evidence of an absence, or of a state that has no line of its own. */
export function note(report: ProbeReport, id: ProbeCommandId, text: string): string {
  return `${labelOf(report, id)}: (${text})`;
}

/** A line that starts with a word (a module in lsmod, a row in topo), whatever the indentation. */
export function startsWithWord(word: string): (line: string) => boolean {
  return (line) => line.trim().split(/\s+/)[0] === word;
}
