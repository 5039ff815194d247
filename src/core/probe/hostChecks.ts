// Parsers for the probe's small checks whose answer is partly the exit code, so they read a whole
// command output, not only its text. Each follows the parser contract: a value or a located error.
import { Parsed, fail, firstContentLine, ok, quote, readLines } from '../parsers/result';
import { KALLSYMS_NOT_READ } from './commands';

export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
}

export type SudoState = 'root' | 'passwordless' | 'password-required' | 'not-allowed' | 'not-installed' | 'unknown';

export interface SudoCheck {
  readonly uid: number | null;
  readonly state: SudoState;
  /** sudo's own message (stderr) when it refused. */
  readonly message: string;
}

/** `id -u; sudo -n true`: whether a fix will run without asking for a password. */
export function parseSudoCheck(out: CommandOutput): Parsed<SudoCheck> {
  const what = 'id -u; sudo -n true';
  const read = readLines(out.stdout, what);
  if (!read.ok) return read;
  const first = (read.value[0] ?? '').trim();
  if (!/^\d+$/.test(first)) return fail(1, `${what}: expected the numeric user id from "id -u", found ${quote(first)}`);
  const uid = Number(first);
  const message = out.stderr.trim();
  return ok({ uid, state: sudoState(uid, out.exitCode, message), message });
}

function sudoState(uid: number, exitCode: number | null, message: string): SudoState {
  if (uid === 0) return 'root';
  if (exitCode === 0) return 'passwordless';
  if (exitCode === 127) return 'not-installed';
  if (/password is required|terminal is required|askpass/i.test(message)) return 'password-required';
  if (/not in the sudoers|may not run sudo|not allowed/i.test(message)) return 'not-allowed';
  return 'unknown';
}

export interface KallsymsPeer {
  readonly exported: boolean;
  /** The kallsyms lines naming the symbol. */
  readonly lines: string[];
  /**
   * The modules exporting it, from the `[module]` after the symbol: `ib_core` (older MLNX_OFED), `ib_uverbs` (recent
   * MLNX_OFED, DOCA-OFED). Empty when not read or not shown.
   */
  readonly exporters: string[];
  /** Not read: this peer-memory module is loaded, and loading it resolved the symbol in the running kernel. */
  readonly impliedBy?: string;
}

/**
 * `grep ib_register_peer_memory_client /proc/kallsyms`: exported by MLNX_OFED/DOCA-OFED's ib_core or ib_uverbs only.
 * Skipped on the host when nvidia_peermem or nv_peer_mem is live: `KALLSYMS_NOT_READ <module>`.
 */
export function parseKallsymsPeer(out: CommandOutput): Parsed<KallsymsPeer> {
  const what = 'grep ib_register_peer_memory_client /proc/kallsyms';
  const read = readLines(out.stdout, what);
  if (!read.ok) return read;
  const lines = read.value.filter((l) => l.trim() !== '');
  const skipped =
    lines.length === 1 && out.exitCode === 0 && lines[0].startsWith(`${KALLSYMS_NOT_READ} `)
      ? lines[0].slice(KALLSYMS_NOT_READ.length + 1).trim()
      : '';
  if (/^(nvidia_peermem|nv_peer_mem)$/.test(skipped)) return ok({ exported: true, lines: [], exporters: [], impliedBy: skipped });
  if (out.exitCode === 1 && lines.length === 0) return ok({ exported: false, lines, exporters: [] });
  if (out.exitCode !== 0) return fail(1, `${what}: grep could not read /proc/kallsyms (exit ${out.exitCode}): ${quote(out.stderr.trim())}`);
  const bad = lines.findIndex((l) => !l.includes('ib_register_peer_memory_client'));
  if (bad >= 0) return fail(bad + 1, `${what}: expected kallsyms lines naming the symbol, found ${quote(lines[bad])}`);
  return ok({ exported: lines.length > 0, lines, exporters: exportersOf(lines) });
}

/**
 * The kernel prints `%px %c %s\t[%s]` for a module's symbol (kernel/kallsyms.c s_show): the text symbol line
 * (`T ib_register_peer_memory_client\t[ib_uverbs]`) names the module that exports it.
 */
function exportersOf(lines: readonly string[]): string[] {
  const found = new Set<string>();
  for (const line of lines) {
    const m = /^\S+\s+[Tt]\s+ib_register_peer_memory_client\s+\[([A-Za-z0-9_-]{1,64})\]\s*$/.exec(line);
    if (m) found.add(m[1]);
  }
  return [...found];
}

/**
 * `systemctl is-enabled|is-active nv_peer_mem.service`, each printed as `is-enabled: <answer>`
 * (`enabled`, `disabled`, `masked`…; "" when systemd knows no such unit).
 */
export function parseNvPeerMemService(text: string): Parsed<{ enabled: string; active: string }> {
  const what = 'systemctl is-enabled/is-active nv_peer_mem';
  const read = readLines(text, what);
  if (!read.ok) return read;
  const values: Record<string, string> = {};
  for (let i = 0; i < read.value.length; i++) {
    const m = /^(is-enabled|is-active): ?(.*)$/.exec(read.value[i]);
    if (m) values[m[1]] = m[2].trim();
    else if (read.value[i].trim() !== '')
      return fail(i + 1, `${what}: expected "is-enabled: …" or "is-active: …", found ${quote(read.value[i])}`);
  }
  if (values['is-enabled'] === undefined || values['is-active'] === undefined) {
    return fail(read.value.length + 1, `${what}: expected both "is-enabled:" and "is-active:" lines; the output ended early`);
  }
  return ok({ enabled: values['is-enabled'], active: values['is-active'] });
}

export interface KernelRelease {
  readonly release: string;
  readonly major: number;
  readonly minor: number;
}

/** `uname -r`: dma-buf needs a kernel ≥ 5.12 (docs/dma-buf.md). */
export function parseUname(text: string): Parsed<KernelRelease> {
  const what = 'uname -r';
  const line = singleLine(text, what);
  if (!line.ok) return line;
  const m = /^(\d+)\.(\d+)/.exec(line.value);
  if (!m || /\s/.test(line.value))
    return fail(1, `${what}: expected a kernel release such as "5.15.0-91-generic", found ${quote(line.value)}`);
  return ok({ release: line.value, major: Number(m[1]), minor: Number(m[2]) });
}

export interface KernelParam {
  readonly name: string;
  /** null for a bare flag (`quiet`); otherwise the text after the first `=`. */
  readonly value: string | null;
}

/** `/proc/cmdline`: the IOMMU switches (`intel_iommu=on`, `amd_iommu=…`, `iommu=pt`) live here. */
export function parseCmdline(text: string): Parsed<{ params: KernelParam[] }> {
  const line = singleLine(text, 'cat /proc/cmdline');
  if (!line.ok) return line;
  // Quoted values (`foo="a b"`) are kept whole, as the kernel reads them.
  const words = line.value.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  return ok({
    params: words.map((w) => {
      const eq = w.indexOf('=');
      return eq < 0 ? { name: w, value: null } : { name: w.slice(0, eq), value: w.slice(eq + 1) };
    }),
  });
}

/** `if [ -d /run/nvidia/driver ] …`: `present` and a listing, or `absent`. */
export function parseRunNvidiaDriver(text: string): Parsed<{ present: boolean; entries: string[] }> {
  const what = '/run/nvidia/driver check';
  const read = readLines(text, what);
  if (!read.ok) return read;
  const [first, ...rest] = read.value;
  if (first === 'absent' && rest.length === 0) return ok({ present: false, entries: [] });
  if (first === 'present') return ok({ present: true, entries: rest.filter((l) => l.trim() !== '') });
  return fail(1, `${what}: expected "present" or "absent", found ${quote(first ?? '')}`);
}

export interface IommuGroup {
  readonly id: number;
  /** /sys/kernel/iommu_groups/<n>/type (Linux 5.11+): `identity` (passthrough), `DMA`, `DMA-FQ`, `blocked`…; null when absent. */
  readonly type: string | null;
  /** /dev/vfio/<n> exists: the group is bound to VFIO, its devices passed to a VM or a userspace driver. */
  readonly vfio: boolean;
  /** Bus addresses of its devices. */
  readonly devices: string[];
}

export interface IommuGroups {
  /** How many groups exist: none when no IOMMU is active. */
  readonly count: number;
  /** Each group; null from an older probe that printed only the count. */
  readonly groups: IommuGroup[] | null;
}

/** The IOMMU groups the probe prints (commands.ts), one `group ID TYPE VFIO DEVICE…` line each; or a bare count (older probes). */
export function parseIommuGroups(text: string): Parsed<IommuGroups> {
  const what = 'iommu_groups';
  const read = readLines(text, what);
  if (!read.ok) return read;
  const lines = read.value.filter((l) => l.trim() !== '');
  if (lines.length === 1 && /^\s*\d+\s*$/.test(lines[0])) return ok({ count: Number(lines[0].trim()), groups: null });
  const groups: IommuGroup[] = [];
  for (let i = 0; i < read.value.length; i++) {
    const line = read.value[i];
    if (line.trim() === '') continue;
    const f = line.split('\t');
    if (f[0] !== 'group' || f.length < 4 || !/^\d+$/.test(f[1]) || !/^[01]$/.test(f[3])) {
      return fail(i + 1, `${what}: expected "group <id> <type> <0|1> <devices…>" (tab-separated), found ${quote(line)}`);
    }
    groups.push({
      id: Number(f[1]),
      type: f[2].trim() || null,
      vfio: f[3] === '1',
      devices: f
        .slice(4)
        .filter((d) => d !== '')
        .map((d) => d.toLowerCase()),
    });
  }
  return ok({ count: groups.length, groups });
}

function singleLine(text: string, what: string): Parsed<string> {
  const read = readLines(text, what);
  if (!read.ok) return read;
  const first = firstContentLine(read.value);
  if (first < 0) return fail(1, `${what}: empty output; expected one line`);
  const extra = read.value.findIndex((l, i) => i > first && l.trim() !== '');
  if (extra >= 0) return fail(extra + 1, `${what}: expected a single line, found another: ${quote(read.value[extra])}`);
  return ok(read.value[first].trim());
}
