// The processes of one simulated host, read from the real /proc (outside view): tests check that a
// command the tool stopped is really gone on the host, or find a session's sshd to drop it.
import * as fs from 'node:fs';

export interface LabProcess {
  /** PID as seen from outside the host's PID namespace (usable with process.kill). */
  pid: number;
  ppid: number;
  /** /proc state letter: R, S, D, T (stopped), Z, ... */
  state: string;
  /** Command line, arguments joined with spaces. */
  args: string;
}

function readProcess(pid: number): LabProcess | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid: Number(fields[1]), state: fields[0], args };
  } catch {
    return undefined; // exited while we looked
  }
}

/** Every live process in the same PID namespace as `memberPid` (the host's listener). */
export function processesInNamespaceOf(memberPid: number): LabProcess[] {
  const ns = fs.readlinkSync(`/proc/${memberPid}/ns/pid`);
  const found: LabProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/ns/pid`) !== ns) continue;
    } catch {
      continue;
    }
    const p = readProcess(Number(entry));
    if (p && p.state !== 'Z') found.push(p);
  }
  return found;
}
