// The remote scripts of the quick fixes. Every script is built ONLY from the constants in this file
// (module names, paths, lines): nothing the host printed, nothing the user typed ever goes into a
// command line. The one run-time value, sudo's prompt marker, is made locally and checked here.
//
// Scripts are passed to `sh -c '<script>'` as one argument (stdin is kept for sudo's password), so they
// contain no single quote: the login shell must be POSIX-like (sh, bash, dash, zsh, ksh), as for ssh.
import { TOOL_LINES } from './rootChecks';
import { PeermemModule, Privilege } from './types';

export const MODULES_LOAD_DIR = '/etc/modules-load.d';
export const ETC_MODULES = '/etc/modules';

interface ModuleConstants {
  /** modules-load.d(5) file gdr-doctor writes. */
  readonly confFile: string;
  /** The line that names the module (`nvidia-peermem`: docs/peer-memory.md §5). */
  readonly line: string;
  /** ERE for a line whose first word is the module (dash or underscore), for `grep -Ex`. */
  readonly lineRegex: string;
}

export const MODULE_CONSTANTS: Readonly<Record<PeermemModule, ModuleConstants>> = {
  nvidia_peermem: {
    confFile: `${MODULES_LOAD_DIR}/nvidia-peermem.conf`,
    line: 'nvidia-peermem',
    lineRegex: '[[:space:]]*nvidia[-_]peermem([[:space:]].*)?',
  },
  nv_peer_mem: {
    confFile: `${MODULES_LOAD_DIR}/nv_peer_mem.conf`,
    line: 'nv_peer_mem',
    lineRegex: '[[:space:]]*nv[-_]peer[-_]mem([[:space:]].*)?',
  },
};

/** First line of a modules-load.d file gdr-doctor creates (`#` starts a comment there). */
export const CONF_HEADER = '# GPUDirect RDMA peer-memory module, loaded at boot (written by gdr-doctor persist-peermem)';

/** Where a persisted module is written: gdr-doctor's own modules-load.d file, or a line in /etc/modules. */
export type PersistTarget = 'modules-load.d' | 'etc-modules';

export function targetPath(module: PeermemModule, target: PersistTarget): string {
  return target === 'modules-load.d' ? MODULE_CONSTANTS[module].confFile : ETC_MODULES;
}

/**
 * Every fix script starts here: commands found where modprobe lives, whatever PATH the login gave;
 * messages in English for matching; no stdin.
 */
export const PREAMBLE = ['PATH=/usr/sbin:/sbin:/usr/bin:/bin', 'export PATH', 'LC_ALL=C', 'export LC_ALL', 'exec </dev/null'];

/**
 * The start of a script that replaces the regular file `file` ($f) whole: it stops on the first error
 * and refuses a link or a non-file, and `$t` is a temp file made from `tempTemplate` (mktemp's), removed
 * on any exit until INSTALL_TEMP_LINES move it over $f.
 */
export function replaceFileHead(file: string, tempTemplate: string, checks: readonly string[] = []): string[] {
  return [
    ...PREAMBLE,
    'set -e',
    'umask 022',
    `f=${file}`,
    'if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then echo "gdr-doctor: $f is not a regular file: not changed" >&2; exit 1; fi',
    ...checks,
    `t=$(mktemp "${tempTemplate}")`,
    'trap "rm -f -- \\"\\$t\\"" EXIT',
    'trap "exit 1" HUP INT TERM',
  ];
}

/** $t, written, becomes $f (mode 644) in one rename; the temp file's trap is dropped. */
export const INSTALL_TEMP_LINES: readonly string[] = ['chmod 644 "$t"', 'mv -f -- "$t" "$f"', 'trap - EXIT'];

/**
 * Disables the legacy nv_peer_mem service (docs/peer-memory.md §1: only one peer-memory module may be
 * loaded, and the service loads nv_peer_mem at boot), with systemctl found where only root put it, and
 * checks that it reads back as not enabled.
 */
export function disableLegacyServiceScript(): string {
  return [
    ...PREAMBLE,
    ...TOOL_LINES,
    'C=$(tool systemctl) || exit 1',
    '"$C" disable nv_peer_mem.service',
    's=$("$C" is-enabled nv_peer_mem.service 2>/dev/null || true)',
    'case $s in enabled*) echo "gdr-doctor: nv_peer_mem.service is still $s after systemctl disable" >&2; exit 1;; esac',
    'echo "gdr-doctor: nv_peer_mem.service is ${s:-disabled}: it no longer loads nv_peer_mem at boot"',
  ].join('\n');
}

/**
 * Loads the peer-memory module, checked on the host right before and after: modprobe only where root
 * put it (`tool`), never beside the other peer-memory module (docs/peer-memory.md §1: only one of the
 * two may be loaded; the plan saw neither, but a job's prologue may have loaded one since), and loaded
 * means /sys/module/<name> exists afterwards — modprobe exits 0 for a module an install line skips.
 */
export function loadScript(module: PeermemModule): string {
  const other: PeermemModule = module === 'nvidia_peermem' ? 'nv_peer_mem' : 'nvidia_peermem';
  return [
    ...PREAMBLE,
    ...TOOL_LINES,
    'M=$(tool modprobe) || exit 1',
    `if [ -d /sys/module/${other} ]; then echo "gdr-doctor: ${other} is loaded, and only one peer-memory module may be: nothing was changed" >&2; exit 1; fi`,
    `"$M" ${module} || exit $?`,
    `if [ ! -d /sys/module/${module} ]; then echo "gdr-doctor: modprobe ${module} exited 0, but /sys/module/${module} is absent: not loaded" >&2; exit 1; fi`,
    `echo "gdr-doctor: ${module} is loaded"`,
  ].join('\n');
}

/**
 * Adds the module's line to `path` unless a line already names it: the new content is written to a
 * temp file in the same directory and renamed over the old one, so an interrupted run leaves the old
 * file whole (and the temp file's name does not end in .conf, so it is never loaded).
 */
export function persistScript(module: PeermemModule, target: PersistTarget): string {
  const c = MODULE_CONSTANTS[module];
  const file = targetPath(module, target);
  const dir = file.slice(0, file.lastIndexOf('/'));
  const base = file.slice(file.lastIndexOf('/') + 1);
  const fresh = target === 'modules-load.d' ? `echo "${CONF_HEADER}" > "$t"` : ': > "$t"';
  return [
    ...replaceFileHead(file, `${dir}/.${base}.gdr-doctor.XXXXXX`, [
      `if [ -f "$f" ] && grep -Eqx "${c.lineRegex}" "$f"; then echo "gdr-doctor: $f already names ${c.line}: not changed"; exit 0; fi`,
    ]),
    'if [ -f "$f" ]; then',
    '  cat -- "$f" > "$t"',
    '  if [ -s "$t" ] && [ "$(tail -c 1 -- "$t" | wc -l)" -eq 0 ]; then echo >> "$t"; fi',
    `else ${fresh}; fi`,
    `echo ${c.line} >> "$t"`,
    ...INSTALL_TEMP_LINES,
    'if command -v restorecon >/dev/null 2>&1; then restorecon -- "$f" || true; fi',
    'echo "gdr-doctor: wrote $f"',
  ].join('\n');
}

const READ_PATHS = [...Object.values(MODULE_CONSTANTS).map((c) => c.confFile), ETC_MODULES];

/**
 * Read-only, as the login user: whether modules-load.d is a directory, and each file a persist may
 * touch, byte for byte (`file <path> regular <bytes>`, the content, one newline), for the diff and the
 * re-read after writing. persistState.ts reads it.
 */
export const READ_STATE_SCRIPT = [
  'LC_ALL=C',
  'export LC_ALL',
  `d=${MODULES_LOAD_DIR}`,
  'if [ -d "$d" ]; then echo "modules-load.d: directory"; elif [ -e "$d" ] || [ -L "$d" ]; then echo "modules-load.d: other"; else echo "modules-load.d: absent"; fi',
  ...readFilesLines(READ_PATHS),
].join('\n');

/** For each path: `file <path> symlink|absent|other`, or `file <path> regular <bytes>`, the bytes and a newline; then `end`. */
export function readFilesLines(paths: readonly string[]): string[] {
  return [
    `for f in ${paths.join(' ')}; do`,
    '  if [ -L "$f" ]; then echo "file $f symlink"',
    '  elif [ -f "$f" ] && [ -r "$f" ]; then n=$(wc -c < "$f" | tr -d " ") && echo "file $f regular $n" && cat -- "$f" && echo',
    '  elif [ -e "$f" ]; then echo "file $f other"',
    '  else echo "file $f absent"; fi',
    'done',
    'echo end',
  ];
}

export const READ_STATE_COMMAND = shCommand(READ_STATE_SCRIPT);

/** A marker sudo prints instead of its prompt (`-p`): letters, digits, `-` and `_` only. */
export function checkMarker(marker: string): string {
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(marker)) throw new Error('sudo prompt marker must be 8-64 letters, digits, - or _');
  return marker;
}

/** The command line that runs a script as root by the plan's privilege. */
export function privilegedCommand(script: string, privilege: Privilege, marker: string): string {
  const sh = shCommand(script);
  if (privilege === 'root') return sh;
  // LC_ALL=C before sudo: its own messages ("Sorry, try again.") are matched in English.
  if (privilege === 'sudo') return `LC_ALL=C sudo -n ${sh}`;
  return `LC_ALL=C sudo -S -p '${checkMarker(marker)}' ${sh}`;
}

export function shCommand(script: string): string {
  if (script.includes("'")) throw new Error('fix scripts are single-quoted: they must not contain a single quote');
  return `/bin/sh -c '${script}'`;
}
