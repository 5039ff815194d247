// Parsers for the outputs the probe prints with `headedFiles()` (commands.ts): a `==> path <==`
// header before each file that exists, then its content, then an empty line. No header = no file.
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';

export interface HeadedFile {
  readonly path: string;
  /** 1-based line of the header in the output. */
  readonly line: number;
  /** Content lines, trailing empty lines dropped. */
  readonly lines: string[];
}

const HEADER = /^==> (.+) <==$/;

export function parseHeadedFiles(text: string, what: string): Parsed<HeadedFile[]> {
  const read = readLines(text, what);
  if (!read.ok) return read;
  const files: { path: string; line: number; lines: string[] }[] = [];
  for (let i = 0; i < read.value.length; i++) {
    const line = read.value[i];
    const header = HEADER.exec(line);
    if (header) files.push({ path: header[1], line: i + 1, lines: [] });
    else if (files.length > 0) files[files.length - 1].lines.push(line);
    else if (line.trim() !== '') return fail(i + 1, `${what}: expected a "==> <path> <==" header before any content, found ${quote(line)}`);
  }
  for (const f of files) while (f.lines.length > 0 && f.lines[f.lines.length - 1].trim() === '') f.lines.pop();
  return ok(files);
}

export interface MemoryPeer {
  /** The peer client directory: `nv_mem`, `nv_mem_nc`. */
  readonly name: string;
  readonly version: string;
  readonly path: string;
}

/** `/sys/kernel/mm/memory_peers/<name>/version`: a registered peer-memory client (docs/peer-memory.md §3). */
export function parseMemoryPeers(text: string): Parsed<{ peers: MemoryPeer[] }> {
  const what = 'memory_peers version files';
  const files = parseHeadedFiles(text, what);
  if (!files.ok) return files;
  const peers: MemoryPeer[] = [];
  for (const f of files.value) {
    const name = /^\/sys\/kernel\/mm\/memory_peers\/([^/]+)\/version$/.exec(f.path);
    if (!name) return fail(f.line, `${what}: expected /sys/kernel/mm/memory_peers/<name>/version, found ${quote(f.path)}`);
    peers.push({ name: name[1], version: (f.lines[0] ?? '').trim(), path: f.path });
  }
  return ok({ peers });
}

export interface SysModule {
  readonly name: string;
  /** `live` for a loaded module; null when the file was not printed. */
  readonly initstate: string | null;
  readonly refcnt: number | null;
  readonly version: string | null;
}

/** `/sys/module/<m>/{initstate,refcnt,version}`: a module listed here is loaded. */
export function parseSysModules(text: string): Parsed<{ modules: SysModule[] }> {
  const what = '/sys/module files';
  const files = parseHeadedFiles(text, what);
  if (!files.ok) return files;
  const byName = new Map<string, { name: string; initstate: string | null; refcnt: number | null; version: string | null }>();
  for (const f of files.value) {
    const m = /^\/sys\/module\/([^/]+)\/(initstate|refcnt|version)$/.exec(f.path);
    if (!m) return fail(f.line, `${what}: expected /sys/module/<module>/initstate|refcnt|version, found ${quote(f.path)}`);
    const entry = byName.get(m[1]) ?? { name: m[1], initstate: null, refcnt: null, version: null };
    const value = (f.lines[0] ?? '').trim();
    if (m[2] === 'refcnt') entry.refcnt = /^\d+$/.test(value) ? Number(value) : null;
    else entry[m[2] as 'initstate' | 'version'] = value;
    byName.set(m[1], entry);
  }
  return ok({ modules: [...byName.values()] });
}

export interface ModulesLoadFile {
  readonly path: string;
  /** Module names in order (first word of each line; `#`/`;` comment lines skipped). */
  readonly modules: string[];
}

/** modules-load.d(5) files and `/etc/modules`: one module per line, `#` or `;` comments. */
export function parseModulesLoad(text: string): Parsed<{ files: ModulesLoadFile[] }> {
  const files = parseHeadedFiles(text, 'modules-load files');
  if (!files.ok) return files;
  return ok({
    files: files.value.map((f) => ({
      path: f.path,
      modules: f.lines
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith(';'))
        .map((l) => l.split(/\s+/)[0]),
    })),
  });
}

/** Module names compare equal with `-` or `_` (modprobe treats them alike). */
export function sameModule(a: string, b: string): boolean {
  return a.replace(/-/g, '_') === b.replace(/-/g, '_');
}

export interface Dmi {
  /** /sys/class/dmi/id/sys_vendor (`QEMU`, `Dell Inc.`); null when absent. */
  readonly sysVendor: string | null;
  readonly productName: string | null;
  /** /sys/hypervisor/type (`xen`); null when absent. */
  readonly hypervisorType: string | null;
}

/** The machine's maker and model from DMI, and a Xen guest's /sys/hypervisor/type. */
export function parseDmi(text: string): Parsed<Dmi> {
  const files = parseHeadedFiles(text, 'DMI files');
  if (!files.ok) return files;
  const value = (path: string) => files.value.find((f) => f.path === path)?.lines[0]?.trim() || null;
  return ok({
    sysVendor: value('/sys/class/dmi/id/sys_vendor'),
    productName: value('/sys/class/dmi/id/product_name'),
    hypervisorType: value('/sys/hypervisor/type'),
  });
}
