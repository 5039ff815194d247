// What a lab run created outside its own folder (processes, bridge, route, namespaces,
// veths), written down *before* each thing is made, so a crashed run can be undone by
// the next one. Teardown acts only on what the records name, never on names it guesses.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shiftRecordsPath } from './sideBySide';

export type LabRecord =
  | { kind: 'proc'; pid: number; start: string; host: string }
  | { kind: 'route'; dst: string; metric?: number }
  | { kind: 'bridge'; name: string }
  | { kind: 'netns'; name: string }
  | { kind: 'veth'; name: string }
  /** A devices cgroup a Slurm node of the lab ran in (with the cgroups Slurm made below it). */
  | { kind: 'cgroup'; path: string };

export const defaultRecordsPath = path.join(os.tmpdir(), 'gdr-doctor-lab.records.json');

export class Records {
  readonly items: LabRecord[] = [];
  constructor(
    readonly file: string,
    readonly dir: string,
  ) {}

  /** Writes the (empty) records file, claiming it for this run. */
  claim(): void {
    this.save();
  }

  add(r: LabRecord): void {
    this.addAll([r]);
  }

  addAll(rs: readonly LabRecord[]): void {
    this.items.push(...rs);
    this.save();
  }

  private save(): void {
    fs.writeFileSync(this.file, JSON.stringify({ dir: this.dir, ownerPid: process.pid, items: this.items }, null, 1));
  }
}

/** Start time of a process (field 22 of /proc/<pid>/stat): tells a reused PID apart. */
export function procStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function tryIp(done: string[], what: string, ...args: string[]): void {
  try {
    ip(...args);
    done.push(what);
  } catch {
    // Already gone (deleting a netns takes its veth peer with it): nothing to undo.
  }
}

/**
 * Undoes the given records in reverse order. `unshare --fork` ignores SIGTERM, so each
 * recorded unshare gets SIGKILL; `--kill-child` then takes its whole PID namespace.
 * Returns what it did; waits (up to 5 s) until the recorded processes are gone.
 */
export async function undo(items: readonly LabRecord[]): Promise<string[]> {
  const done: string[] = [];
  const killed: number[] = [];
  for (const r of [...items].reverse()) {
    if (r.kind !== 'proc') continue;
    if (procStart(r.pid) !== r.start) continue; // exited, or the PID now belongs to another process
    try {
      process.kill(r.pid, 'SIGKILL');
      killed.push(r.pid);
      done.push(`killed unshare ${r.pid} (${r.host})`);
    } catch {
      // raced with its exit
    }
  }
  const deadline = Date.now() + 5000;
  while (killed.some((p) => procStart(p) !== undefined && !isZombie(p)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const r of [...items].reverse()) {
    // A killed host's processes leave the cgroup once reaped: Node reaps its child between these tries.
    if (r.kind === 'cgroup')
      for (const until = Date.now() + 5000; ; await new Promise((w) => setTimeout(w, 50))) {
        if (removeCgroup(r.path)) {
          done.push(`removed cgroup ${r.path}`);
          break;
        }
        if (Date.now() > until) break;
      }
    if (r.kind === 'veth') tryIp(done, `deleted veth ${r.name}`, 'link', 'del', r.name);
    if (r.kind === 'netns') tryIp(done, `deleted netns ${r.name}`, 'netns', 'del', r.name);
    if (r.kind === 'bridge') tryIp(done, `deleted bridge ${r.name}`, 'link', 'del', r.name);
    if (r.kind === 'route')
      tryIp(
        done,
        `deleted route blackhole ${r.dst}`,
        'route',
        'del',
        'blackhole',
        r.dst,
        ...(r.metric === undefined ? [] : ['metric', String(r.metric)]),
      );
  }
  return done;
}

/** rmdir, deepest first (a cgroup with processes in it stays, and so do its parents); true when it is gone. */
function removeCgroup(dir: string): boolean {
  if (!dir.startsWith(`${LAB_CGROUPS}/`) || dir.includes('..')) return false;
  const remove = (d: string): void => {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) remove(path.join(d, e.name));
    try {
      fs.rmdirSync(d);
    } catch {
      // still in use, or already gone
    }
  };
  remove(dir);
  return !fs.existsSync(dir);
}

/** Where the lab's Slurm nodes get their devices cgroups (the machine's cgroup v1 devices hierarchy). */
export const LAB_CGROUPS = '/sys/fs/cgroup/devices/gdrlab';

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Removes what a previous (crashed) lab run recorded, and its records file.
 * Only what the records name is touched. Returns a line per action taken.
 */
export async function cleanupStale(asWritten = defaultRecordsPath): Promise<string[]> {
  const recordsPath = shiftRecordsPath(asWritten);
  if (!fs.existsSync(recordsPath)) return [];
  const { items, ownerPid } = JSON.parse(fs.readFileSync(recordsPath, 'utf8')) as { items: LabRecord[]; ownerPid: number };
  if (ownerPid !== process.pid && procStart(ownerPid) !== undefined) {
    throw new Error(`lab records ${recordsPath} belong to process ${ownerPid}, which is still running; stop that lab first`);
  }
  const done = await undo(items);
  fs.rmSync(recordsPath, { force: true });
  return done;
}
