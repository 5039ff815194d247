// NCCL's own configuration on the host, read-only: /etc/nccl.conf and the SSH user's ~/.nccl.conf
// (NVIDIA/nccl src/misc/param.cc initEnv/setEnvFile, every release modelled), and the topology files
// NCCL loads by itself: /var/run/nvidia-topologyd/virtualTopology.xml (src/graph/topo.cc
// ncclTopoGetSystem, from 2.10) and the NCCL_TOPO_FILE a conf file names. Each file is read only when
// regular (`[ -f ]`), and at most one byte more than its cap, so a cut shows.
import { Parsed, fail, ok, quote } from '../parsers/result';

/** setEnvFile reads lines of up to 4096 bytes; a conf file is a few lines. Kept: 64 KiB. */
export const NCCL_CONF_MAX_BYTES = 64 * 1024;
/** NCCL's XML topology of an 8-GPU VM is a few KiB; kept: 1 MiB. */
export const NCCL_TOPO_MAX_BYTES = 1024 * 1024;
export const ETC_NCCL_CONF = '/etc/nccl.conf';
export const VIRTUAL_TOPOLOGY = '/var/run/nvidia-topologyd/virtualTopology.xml';

const print = (cap: number) => `printf '==> %s <==\\n' "$f"; head -c ${cap + 1} -- "$f"; printf '\\n'`;

export const NCCL_CONF_COMMAND = `for f in ${ETC_NCCL_CONF} "$HOME/.nccl.conf"; do [ -f "$f" ] || continue; ${print(NCCL_CONF_MAX_BYTES)}; done`;

/** The virtual topology, then the first NCCL_TOPO_FILE line of each conf file (setenv without overwrite: the first wins). */
export const NCCL_TOPO_COMMAND =
  `{ echo ${VIRTUAL_TOPOLOGY}; for c in "$HOME/.nccl.conf" ${ETC_NCCL_CONF}; do ` +
  `[ -f "$c" ] && head -c ${NCCL_CONF_MAX_BYTES + 1} -- "$c" | sed -n 's/^NCCL_TOPO_FILE=//p' | head -n 1; done; } | ` +
  `while IFS= read -r f; do [ -f "$f" ] || continue; ${print(NCCL_TOPO_MAX_BYTES)}; done`;

export interface HostFileText {
  readonly path: string;
  /** The file's text as read (cut at the cap). */
  readonly text: string;
  /** Longer than the cap: the rest was not read. */
  readonly truncated: boolean;
}

export interface NcclConfEntry {
  readonly name: string;
  /** As NCCL keeps it: after the first `=`, up to the newline (a trailing CR is kept; NCCL strips it from 2.30.3). */
  readonly value: string;
  readonly line: number;
}

export interface NcclConfFile extends HostFileText {
  /** `/etc/nccl.conf`, or the user's `~/.nccl.conf`. */
  readonly scope: 'system' | 'user';
  readonly entries: NcclConfEntry[];
}

const HEADER = /^==> (.{1,4096}) <==$/;

/** The `==> path <==` sections of a probe output, each file's text without the newline the probe adds after it. */
export function splitHeadedText(text: string, what: string, cap: number): Parsed<HostFileText[]> {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const files: { path: string; body: string[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = HEADER.exec(lines[i]);
    // A path is shown on terminals and in reports: its control characters become `?`.
    if (header) files.push({ path: header[1].replace(/[\u0000-\u001f\u007f-\u009f]/g, '?'), body: [] });
    else if (files.length > 0) files[files.length - 1].body.push(lines[i]);
    else if (lines[i].trim() !== '')
      return fail(i + 1, `${what}: expected a "==> <path> <==" header before any content, found ${quote(lines[i])}`);
  }
  return ok(
    files.map((f) => {
      // The probe's printf '\n' after the file: one line break, or the file's own last one and an empty line.
      const body = f.body.join('\n');
      const bytes = Buffer.byteLength(body, 'utf8');
      const truncated = bytes > cap;
      return { path: f.path, text: truncated ? Buffer.from(body, 'utf8').subarray(0, cap).toString('utf8') : body, truncated };
    }),
  );
}

/** One nccl.conf file (`gdr-doctor parse nccl-conf`): its NAME=VALUE lines, as setEnvFile reads them. */
export function parseNcclConfText(text: string): Parsed<{ entries: NcclConfEntry[] }> {
  if (Buffer.byteLength(text, 'utf8') > NCCL_CONF_MAX_BYTES) return fail(1, `nccl.conf: larger than ${NCCL_CONF_MAX_BYTES / 1024} KiB`);
  if (text.includes('\u0000')) return fail(1, 'nccl.conf: binary data (a NUL byte); expected NAME=VALUE lines');
  return ok({ entries: confEntries(text.endsWith('\n') ? text.slice(0, -1) : text) });
}

/**
 * One nccl.conf given to `gdr-doctor parse`: as parseNcclConfText, but a line that is neither blank, a comment
 * nor NAME=VALUE is an error there (NCCL would skip it silently; a file of such lines is not an nccl.conf).
 */
export function parseNcclConfFile(text: string): Parsed<{ entries: NcclConfEntry[] }> {
  const parsed = parseNcclConfText(text);
  if (!parsed.ok) return parsed;
  const lines = text.split('\n');
  const bad = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(l));
  if (bad >= 0) return fail(bad + 1, `nccl.conf: expected NAME=VALUE or a # comment, found ${quote(lines[bad].slice(0, 80))}`);
  return parsed;
}

/** `cat /etc/nccl.conf ~/.nccl.conf` as the probe prints them: NAME=VALUE lines, read as NCCL's setEnvFile reads them. */
export function parseNcclConf(text: string): Parsed<{ files: NcclConfFile[] }> {
  const what = 'NCCL configuration files';
  const split = splitHeadedText(text, what, NCCL_CONF_MAX_BYTES);
  if (!split.ok) return split;
  const files = split.value.map((f): NcclConfFile => ({
    ...f,
    scope: f.path === ETC_NCCL_CONF ? 'system' : 'user',
    entries: confEntries(f.text),
  }));
  return ok({ files });
}

/**
 * setEnvFile: each line up to its newline; lines starting `#` are comments (from 2.26; before, `#NAME` named
 * no NCCL variable either); a line without `=` is skipped; the name is everything before the first `=`, as
 * is (no trimming), the value everything after it; both cut at 1023 bytes.
 */
function confEntries(text: string): NcclConfEntry[] {
  const entries: NcclConfEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('#')) return;
    const eq = line.indexOf('=');
    if (eq < 0) return;
    entries.push({ name: line.slice(0, Math.min(eq, 1023)), value: line.slice(eq + 1, eq + 1 + 1023), line: i + 1 });
  });
  return entries;
}

/** The topology files the probe printed (virtualTopology.xml, NCCL_TOPO_FILE targets), each path once. */
export function parseNcclTopoFiles(text: string): Parsed<{ files: HostFileText[] }> {
  const split = splitHeadedText(text, 'NCCL topology files', NCCL_TOPO_MAX_BYTES);
  if (!split.ok) return split;
  const seen = new Set<string>();
  return ok({ files: split.value.filter((f) => !seen.has(f.path) && seen.add(f.path)) });
}
