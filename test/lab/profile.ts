// Turns a profile folder (profile.json + out/ + files/) into the flat files that the
// shell side (hostinit.sh, fakecmd.sh) reads: shell has no JSON parser, and checking
// the profile here makes a broken profile fail before any host starts.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PciProfile } from './pciState';
import { NcclTestsSpec, writeNcclTestsStandIn } from './ncclTestsProfile';
import { SysfsPatch, patchSysfs, readSysfsSpec } from './sysfs';

export interface ModuleSpec {
  /** Size column of lsmod (from a real lsmod of that module). */
  size: number;
  /** Modules it needs; loaded first and shown in their "Used by". */
  deps?: string[];
  /** /sys/module/<m>/version. */
  version?: string;
  /** Profile-relative file holding a real `modinfo <m>` output. Absent: modinfo fails loudly (rc 99). */
  modinfo?: string;
  /** Files that appear while the module is loaded, e.g. the nv_mem registration. */
  onLoad?: Record<string, string>;
  /** Profile-relative file holding the /proc/kallsyms lines the module adds while loaded (a real recording). */
  kallsyms?: string;
}

export interface Profile extends PciProfile {
  description: string;
  /** Attribute changes over the nearest sysfs.json (own or a base's): by bus address, or RDMA device name. */
  sysfsPatch?: SysfsPatch;
  /** Another profile (name under test/lab/profiles, or absolute path) whose recordings, files and
   *  settings this one starts from; its own recordings and top-level keys replace the base's. */
  base?: string;
  /** Modules that exist for the running kernel. With `base`, merged by name: a module given here replaces the base's. */
  modules: Record<string, ModuleSpec>;
  loadedAtBoot: string[];
  /** modprobe's stderr (rc 1) when loading the module, e.g. the ib_core symbol mismatch. */
  modprobeErrors?: Record<string, string>;
  /** Commands that are not installed: a whiteout makes them rc 127 at every path (and the base's recordings of them are dropped). */
  missingCommands?: string[];
  /** Command lines (argv) whose recordings this profile does not take from its base: they fail loudly (rc 99). */
  withoutRecordings?: string[][];
  /** Content of /etc/environment (Ubuntu's puts /usr/sbin on PATH). */
  environment?: string;
  /** Files of the host's /etc (path below /etc → content), written into its overlay: a boot module list, a bootloader's config. */
  etcFiles?: Record<string, string>;
  /** Files of the host's own /boot (path below /boot → content): BLS entries. Every host's /boot is a private tmpfs. */
  bootFiles?: Record<string, string>;
  /** Plain files made under the host's /dev (an overlay on the real one, only for this host): `nvidia0`, for a
   *  test's process to hold open as a job holds a GPU. */
  devFiles?: string[];
  /** Milliseconds each fake command waits before replying, by command name (`nvidia-smi`,
   *  `ibv_devinfo`, ...): real latencies for the bench. Functional profiles leave it out. */
  delays?: Record<string, number>;
  /**
   * ib_write_bw's recordings by device, mode and outcome (fakeperftest.sh):
   * `[device or "*", "host"|"peermem"|"dmabuf", "ok"|"fail"|"order", set]`, the set naming
   * `perftest/<set>.server` and `.client` of the profile or a base.
   */
  perftest?: [string, string, string, string][];
  /** The nccl-tests stand-in (fakenccltests.sh, ncclTestsProfile.ts); absent: no nccl-tests on the host. */
  ncclTests?: NcclTestsSpec | null;
}

/**
 * A profile for one test, made in a new temp folder: `base` with `changes` over it (no recordings of
 * its own). For faults no real host would be recorded with, such as a hostile modprobe message.
 */
export function derivedProfile(description: string, base: string, changes: Partial<Omit<Profile, 'description' | 'base'>>): string {
  const dir = fs.mkdtempSync('/tmp/gdrlab-profile-');
  fs.writeFileSync(path.join(dir, 'profile.json'), JSON.stringify({ description: `Test only: ${description}`, base, ...changes }, null, 2));
  return dir;
}

interface LoadedProfile {
  profile: Profile;
  /** Folders whose out/ and files/ are copied, base first (later ones win). */
  dirs: string[];
}

const profilesDir = path.join(__dirname, 'profiles');

/** Reads profile.json, following `base`; module `modinfo` and `kallsyms` paths become absolute. */
function loadProfile(profileDir: string, seen: string[] = []): LoadedProfile {
  if (seen.includes(profileDir)) throw new Error(`profile base loop: ${[...seen, profileDir].join(' -> ')}`);
  const own = JSON.parse(fs.readFileSync(path.join(profileDir, 'profile.json'), 'utf8')) as Profile;
  if (own.lspci) own.lspci = path.resolve(profileDir, own.lspci);
  for (const spec of Object.values(own.modules ?? {})) {
    if (spec.modinfo) spec.modinfo = path.resolve(profileDir, spec.modinfo);
    if (spec.kallsyms) spec.kallsyms = path.resolve(profileDir, spec.kallsyms);
  }
  if (own.base === undefined) return { profile: own, dirs: [profileDir] };
  const base = loadProfile(path.isAbsolute(own.base) ? own.base : path.join(profilesDir, own.base), [...seen, profileDir]);
  const modules = { ...base.profile.modules, ...own.modules };
  return { profile: { ...base.profile, ...own, modules }, dirs: [...base.dirs, profileDir] };
}

/** Deletes the recordings copied from a base that this profile says it lacks (missing commands, `withoutRecordings`). */
function dropBaseRecordings(p: Profile, outDir: string, ownDir: string): void {
  if (!fs.existsSync(outDir)) return;
  const own = new Set(fs.existsSync(path.join(ownDir, 'out')) ? fs.readdirSync(path.join(ownDir, 'out')) : []);
  const names = new Set((p.withoutRecordings ?? []).map(([cmd, ...args]) => recordingName(cmd, args)));
  const missing = new Set((p.missingCommands ?? []).map((c) => recordingName(c)));
  for (const f of fs.readdirSync(outDir)) {
    const name = f.replace(/\.(stdout|stderr|rc)$/, '');
    if (own.has(f) || !(names.has(name) || missing.has(name.split('_')[0]))) continue;
    fs.rmSync(path.join(outDir, f));
  }
}

const stateful = ['lsmod', 'modprobe', 'modinfo', 'rmmod'];

/** prof/delay/<cmd>: seconds for sleep(1), which fakecmd.sh waits before replying. */
function writeDelays(profileDir: string, dir: string, delays: Record<string, number>, fakes: ReadonlySet<string>): void {
  for (const [cmd, ms] of Object.entries(delays)) {
    // Only fakes can wait: a delay for a real or missing command would silently do nothing.
    if (!fakes.has(cmd)) throw new Error(`${profileDir}: delays: ${cmd} is not a faked command of this profile`);
    if (!/^[A-Za-z0-9_.+-]+$/.test(cmd) || !Number.isInteger(ms) || ms < 0)
      throw new Error(`${profileDir}: delays: need a command name and whole milliseconds, got ${cmd}: ${ms}`);
    if (ms > 0) write(path.join(dir, cmd), `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}\n`);
  }
}
/** prof/perftest.tsv for fakeperftest.sh; every set it names must have its two recordings. */
function writePerftestTable(profileDir: string, prof: string, rows: readonly (readonly string[])[]): void {
  for (const row of rows) {
    const [device, mode, outcome, set] = row;
    const ok =
      row.length === 4 &&
      /^[A-Za-z0-9_.*-]+$/.test(device) &&
      ['host', 'peermem', 'dmabuf'].includes(mode) &&
      ['ok', 'fail', 'order'].includes(outcome) &&
      /^[a-z0-9-]+$/.test(set ?? '');
    if (!ok)
      throw new Error(`${profileDir}: perftest: expected [device, host|peermem|dmabuf, ok|fail|order, set], got ${JSON.stringify(row)}`);
    for (const role of ['server', 'client']) {
      if (!fs.existsSync(path.join(prof, 'perftest', `${set}.${role}`)))
        throw new Error(`${profileDir}: perftest: no recording perftest/${set}.${role}`);
    }
  }
  if (rows.length > 0) write(path.join(prof, 'perftest.tsv'), rows.map((r) => `${r.join('\t')}\n`).join(''));
}

const keep = /[A-Za-z0-9.,=+:@-]/;

/** File name (without .stdout/.stderr/.rc) of a recording; same rule as fakecmd.sh enc(). */
export function recordingName(cmd: string, args: readonly string[] = []): string {
  const enc = (s: string) =>
    [...Buffer.from(s, 'utf8')]
      .map((b) => (keep.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0')))
      .join('');
  return [cmd, ...args].map(enc).join('_');
}

/** Commands a profile records: the decoded first part of each out/ file name. */
function recordedCommands(outDir: string): Set<string> {
  const cmds = new Set<string>();
  if (!fs.existsSync(outDir)) return cmds;
  for (const f of fs.readdirSync(outDir)) {
    const m = /^(.*)\.(stdout|stderr|rc)$/.exec(f);
    if (!m) throw new Error(`${outDir}/${f}: recordings end in .stdout, .stderr or .rc`);
    cmds.add(decodeURIComponent(m[1].split('_')[0]));
  }
  return cmds;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Builds <hostDir>/prof and <hostDir>/bin from a profile folder; `delays` override the profile's. */
export function materialiseProfile(profileDir: string, hostDir: string, delays: Record<string, number> = {}): Profile {
  const { profile: p, dirs } = loadProfile(profileDir);
  const prof = path.join(hostDir, 'prof');
  const mods = Object.entries(p.modules ?? {});
  for (const [m, spec] of mods) {
    for (const d of spec.deps ?? []) if (!p.modules[d]) throw new Error(`${profileDir}: ${m} needs unknown module ${d}`);
  }
  for (const m of p.loadedAtBoot) if (!p.modules[m]) throw new Error(`${profileDir}: boot module ${m} is not in modules`);

  fs.mkdirSync(prof, { recursive: true });
  for (const dir of dirs) {
    for (const sub of ['out', 'files', 'perftest', 'nccl-tests']) {
      const src = path.join(dir, sub);
      if (fs.existsSync(src)) fs.cpSync(src, path.join(prof, sub), { recursive: true });
    }
  }
  dropBaseRecordings(p, path.join(prof, 'out'), dirs[dirs.length - 1]);
  // The PCI tree: the nearest sysfs.json (own, else a base's), checked now; the boot state builds it.
  const sysfs = [...dirs]
    .reverse()
    .map((d) => path.join(d, 'sysfs.json'))
    .find((f) => fs.existsSync(f));
  if (sysfs) write(path.join(prof, 'sysfs.json'), JSON.stringify(patchSysfs(readSysfsSpec(sysfs), p.sysfsPatch)));
  else if (p.sysfsPatch || p.lspci || p.gids || p.iommu)
    throw new Error(`${profileDir}: sysfsPatch, lspci, gids and iommu need a sysfs.json tree`);
  write(
    path.join(prof, 'modules.tsv'),
    mods.map(([m, s]) => `${m}\t${s.size}\t${(s.deps ?? []).join(',') || '-'}\t${s.version ?? '-'}\n`).join(''),
  );
  write(path.join(prof, 'modules.boot'), p.loadedAtBoot.map((m) => m + '\n').join(''));
  for (const [m, s] of mods) {
    if (s.modinfo) write(path.join(prof, 'modinfo', m), fs.readFileSync(s.modinfo, 'utf8'));
    if (s.kallsyms) write(path.join(prof, 'kallsyms', m), fs.readFileSync(s.kallsyms, 'utf8'));
    for (const [file, text] of Object.entries(s.onLoad ?? {})) write(path.join(prof, 'on-load', m, file), text);
  }
  for (const [m, text] of Object.entries(p.modprobeErrors ?? {}))
    write(path.join(prof, 'modprobe-error', m), text.endsWith('\n') ? text : text + '\n');
  if (p.environment !== undefined) write(path.join(prof, 'environment'), p.environment);
  for (const [rel, text] of Object.entries(p.bootFiles ?? {})) {
    if (!/^[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*$/.test(rel) || rel.split('/').includes('..'))
      throw new Error(`${profileDir}: bootFiles: ${JSON.stringify(rel)} is not a plain path below /boot`);
    write(path.join(prof, 'bootfs', rel), text);
  }
  for (const name of p.devFiles ?? []) {
    if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)?$/.test(name))
      throw new Error(`${profileDir}: devFiles: ${JSON.stringify(name)} is not a plain name`);
    write(path.join(prof, 'devfiles', name), '');
  }
  writePerftestTable(profileDir, prof, p.perftest ?? []);

  // Fakes: two-line wrappers with the host dir baked in, because sudo strips the environment.
  const bin = path.join(hostDir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const missing = new Set(p.missingCommands ?? []);
  // lspci and setpci answer from the profile's PCI state (pciState.ts, fakecmd.sh) where it has one.
  const fakes = new Set([...stateful, ...(p.lspci ? ['lspci', 'setpci'] : []), ...recordedCommands(path.join(prof, 'out'))]);
  writeDelays(profileDir, path.join(prof, 'delay'), { ...p.delays, ...delays }, fakes);
  for (const cmd of fakes) {
    if (missing.has(cmd)) throw new Error(`${profileDir}: ${cmd} is both recorded and missing`);
    write(path.join(bin, cmd), `#!/bin/sh\nexec /bin/bash '${hostDir}/fakecmd.sh' '${hostDir}' '${cmd}' "$@"\n`);
    fs.chmodSync(path.join(bin, cmd), 0o755);
  }
  for (const cmd of missing) fs.linkSync(whiteout(path.dirname(hostDir)), path.join(bin, cmd));
  if (p.ncclTests) writeNcclTestsStandIn(profileDir, prof, bin, hostDir, p.ncclTests);
  return p;
}

/** One 0/0 character device per folder of hosts, hard-linked as each missing command: one mknod, not one per command and host. */
function whiteout(dir: string): string {
  const f = path.join(dir, '.whiteout');
  if (!fs.existsSync(f)) {
    execFileSync('mknod', [f, 'c', '0', '0']);
    // On an overlayfs the 0/0 device we just made is itself a whiteout and vanishes.
    if (!fs.existsSync(f)) throw new Error(`${dir} is on overlayfs: whiteouts vanish there; put the lab dir on ext4 or tmpfs`);
  }
  return f;
}
