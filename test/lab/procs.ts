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

/**
 * Every PID in /proc (outside view) for which `test` holds; a process that exits while it is read (the read
 * throws) does not count. Tests walk /proc for a host's processes, a connection's children, a command line.
 */
export function pidsWhere(test: (pid: number) => boolean): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((p) => {
      try {
        return test(p);
      } catch {
        return false;
      }
    });
}

/** Every PID in the same PID namespace as `memberPid`. */
export function pidsInNamespaceOf(memberPid: number): number[] {
  const ns = fs.readlinkSync(`/proc/${memberPid}/ns/pid`);
  return pidsWhere((p) => fs.readlinkSync(`/proc/${p}/ns/pid`) === ns);
}

/** Every live process in the same PID namespace as `memberPid` (the host's listener). */
export function processesInNamespaceOf(memberPid: number): LabProcess[] {
  return pidsInNamespaceOf(memberPid)
    .map(readProcess)
    .filter((p): p is LabProcess => p !== undefined && p.state !== 'Z');
}
