// export-timer (docs/monitoring.md): a systemd timer that runs `gdr-doctor diagnose --local
// --textfile-dir DIR` every few minutes, so node_exporter's textfile collector serves the host's
// GPUDirect RDMA health; no daemon, no exporter of its own. The host must already have gdr-doctor (one
// bundled file) and Node, and node_exporter's textfile directory: the fix installs neither, it finds
// them. The only host values in a script or unit are those three absolute paths, each checked here
// against a strict plain-path pattern (no space, quote or shell syntax can pass).
import { Parsed, fail, ok, quote } from '../parsers/result';
import { PersistState, parsePersistState } from './persistState';
import { INSTALL_TEMP_LINES, PREAMBLE, readFilesLines, shCommand } from './scripts';

export const TIMER_SERVICE = '/etc/systemd/system/gdr-doctor-export.service';
export const TIMER_UNIT = '/etc/systemd/system/gdr-doctor-export.timer';
export const TIMER_WANTS = '/etc/systemd/system/timers.target.wants/gdr-doctor-export.timer';

/** Where node_exporter's textfile collector reads, in the order looked for: upstream's docs, then Debian's package default. */
export const TEXTFILE_DIRS = ['/var/lib/node_exporter/textfile_collector', '/var/lib/prometheus/node-exporter'];

/** How often the timer runs the export. */
export const EXPORT_INTERVAL = '5min';

const PLAIN_PATH = /^\/[A-Za-z0-9/._+-]+$/;

/** An absolute path of letters, digits and `/._+-` only, without `..`: safe in a unit file and a shell script as it is. */
export function isPlainPath(p: string): boolean {
  return PLAIN_PATH.test(p) && !p.split('/').includes('..');
}

export function checkPlainPath(p: string, what: string): string {
  if (!isPlainPath(p)) throw new Error(`not a plain absolute path for ${what}: ${JSON.stringify(p)}`);
  return p;
}

export interface ExportCommand {
  /** Node's executable, as `command -v node` found it. */
  readonly node: string;
  /** gdr-doctor's CLI file (the target of `command -v gdr-doctor`, links resolved). */
  readonly cli: string;
  readonly textfileDir: string;
}

/** The one command the timer runs, and the fix once to verify it. */
export function exportCommandLine(c: ExportCommand): string {
  const node = checkPlainPath(c.node, 'node');
  const cli = checkPlainPath(c.cli, 'gdr-doctor');
  const textfileDir = checkPlainPath(c.textfileDir, 'the textfile directory');
  return `${node} ${cli} diagnose --local --textfile-dir ${textfileDir}`;
}

export function exportService(c: ExportCommand): string {
  return [
    // No single quote anywhere: the script goes to the host as sh -c '<script>'.
    '# Written by gdr-doctor export-timer: writes the GPUDirect RDMA health of this host (gdr_doctor_up,',
    '# gdr_doctor_findings, gdr_doctor_gpu_gdr, ...) where the textfile collector of node_exporter reads it.',
    `# Undo: rm ${TIMER_WANTS} ${TIMER_UNIT} ${TIMER_SERVICE}; systemctl daemon-reload.`,
    '[Unit]',
    'Description=Export GPUDirect RDMA health for node_exporter (gdr-doctor)',
    '',
    '[Service]',
    'Type=oneshot',
    'Nice=10',
    'IOSchedulingClass=idle',
    'TimeoutStartSec=300',
    `ExecStart=${exportCommandLine(c)}`,
    '',
  ].join('\n');
}

export function exportTimer(): string {
  return [
    '# Written by gdr-doctor export-timer: runs gdr-doctor-export.service every few minutes.',
    '[Unit]',
    'Description=Export GPUDirect RDMA health for node_exporter every 5 minutes (gdr-doctor)',
    '',
    '[Timer]',
    'OnBootSec=2min',
    `OnUnitActiveSec=${EXPORT_INTERVAL}`,
    'RandomizedDelaySec=30s',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
}

const UNIT_END = 'GDR_DOCTOR_UNIT_END';
const FIRST_EXPORT_FAILED = 'echo "gdr-doctor: the first export failed: the timer is installed, its command does not work yet" >&2; exit 1';

/** Lines that write `content` to `file` (temp file in the same directory, then rename) through a quoted here-document. */
function writeUnitLines(file: string, content: string): string[] {
  if (content.split('\n').includes(UNIT_END)) throw new Error('a unit must not contain the here-document delimiter');
  const base = file.slice(file.lastIndexOf('/') + 1);
  return [
    `f=${file}`,
    'if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then echo "gdr-doctor: $f is not a regular file: not changed" >&2; exit 1; fi',
    `t=$(mktemp "/etc/systemd/system/.${base}.XXXXXX")`,
    'trap "rm -f -- \\"\\$t\\"" EXIT',
    `cat > "$t" <<"${UNIT_END}"`,
    ...content.replace(/\n$/, '').split('\n'),
    UNIT_END,
    ...INSTALL_TEMP_LINES,
  ];
}

/**
 * As root: checks that Node, gdr-doctor and the textfile directory are still there (right before it acts,
 * failing loudly without a change when one is not); writes the service and the timer, enables the timer
 * by its timers.target.wants link (and starts it where systemd runs); then runs the export once, so the
 * first metrics are there at once and the command is known to work.
 */
export function exportTimerScript(c: ExportCommand): string {
  const check = (test: string, what: string) => `if ! ${test}; then echo "gdr-doctor: ${what}: nothing was changed" >&2; exit 1; fi`;
  return [
    ...PREAMBLE,
    'set -e',
    'umask 022',
    'trap "exit 1" HUP INT TERM',
    check('[ -d /etc/systemd/system ]', '/etc/systemd/system is not a directory (no systemd?)'),
    check(`[ -x ${checkPlainPath(c.node, 'node')} ]`, `${c.node} is not an executable file`),
    check(`[ -f ${checkPlainPath(c.cli, 'gdr-doctor')} ]`, `${c.cli} (gdr-doctor) is not a file`),
    check(`[ -d ${checkPlainPath(c.textfileDir, 'the textfile directory')} ]`, `${c.textfileDir} is not a directory`),
    ...writeUnitLines(TIMER_SERVICE, exportService(c)),
    ...writeUnitLines(TIMER_UNIT, exportTimer()),
    `w=${TIMER_WANTS}`,
    'mkdir -p "${w%/*}"',
    `ln -sfn ${TIMER_UNIT} "$w"`,
    `if [ -d /run/systemd/system ]; then systemctl daemon-reload && systemctl restart ${TIMER_UNIT.slice(TIMER_UNIT.lastIndexOf('/') + 1)}; fi`,
    `echo "gdr-doctor: wrote ${TIMER_SERVICE} and ${TIMER_UNIT}, enabled ($w)"`,
    `if ! ${exportCommandLine(c)} >/dev/null; then ${FIRST_EXPORT_FAILED}; fi`,
    `echo "gdr-doctor: exported once: ${c.textfileDir}/gdr_doctor.prom"`,
  ].join('\n');
}

export interface TimerState {
  /** gdr-doctor's CLI file on the host; null when `command -v gdr-doctor` found none. */
  readonly cli: string | null;
  readonly node: string | null;
  /** The directories looked for: the one the user named, else TEXTFILE_DIRS. */
  readonly asked: readonly string[];
  /** Those of them that exist, in that order. */
  readonly textfileDirs: readonly string[];
  /** systemd runs (/run/systemd/system). */
  readonly systemd: boolean;
  /** The units, their link, and the metrics file in each textfile directory, as read (readFilesLines). */
  readonly files: PersistState['files'];
}

/**
 * Read-only, as the login user: where gdr-doctor and Node are, which of `dirs` (the textfile directory the
 * user named, else TEXTFILE_DIRS) exist, the units as they are.
 */
export function readTimerCommand(dirs: readonly string[] = TEXTFILE_DIRS): string {
  for (const d of dirs) checkPlainPath(d, 'the textfile directory');
  return shCommand(
    [
      'LC_ALL=C',
      'export LC_ALL',
      'b=$(command -v gdr-doctor 2>/dev/null) && b=$(readlink -f "$b") && echo "cli $b" || echo "cli none"',
      'n=$(command -v node 2>/dev/null) && echo "node $n" || echo "node none"',
      `for d in ${dirs.join(' ')}; do if [ -d "$d" ]; then echo "dir $d"; fi; done`,
      'if [ -d /run/systemd/system ]; then echo "systemd yes"; else echo "systemd no"; fi',
      'echo files',
      ...readFilesLines([TIMER_SERVICE, TIMER_UNIT, TIMER_WANTS]),
    ].join('\n'),
  );
}

const HEAD_LINE = /^(cli|node|dir|systemd) (.+)$/;

export function parseTimerState(out: Buffer, asked: readonly string[] = TEXTFILE_DIRS): Parsed<TimerState> {
  const split = out.indexOf('\nfiles\n');
  if (split < 0) return fail(1, `timer state: no "files" line in ${quote(out.subarray(0, 200).toString('utf8'))}`);
  const head: Record<string, string[]> = { cli: [], node: [], dir: [], systemd: [] };
  const lines = out.subarray(0, split).toString('utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    const m = HEAD_LINE.exec(line);
    if (!m) return fail(i + 1, `timer state: expected "cli|node|dir|systemd <value>", found ${quote(line)}`);
    head[m[1]].push(m[2]);
  }
  const files = parsePersistState(out.subarray(split + '\nfiles\n'.length), { dirLine: false });
  if (!files.ok) return fail(files.error.line + lines.length + 1, files.error.message);
  const path = (v: string | undefined) => (v === undefined || !isPlainPath(v) ? null : v);
  return ok({
    cli: path(head.cli[0]),
    node: path(head.node[0]),
    asked,
    textfileDirs: asked.filter((d) => head.dir.includes(d)),
    systemd: head.systemd[0] === 'yes',
    files: files.value.files,
  });
}

/** After the fix: the units, the link and the metrics file it wrote. */
export function readTimerBackCommand(textfileDir: string): string {
  return shCommand(
    [
      'LC_ALL=C',
      'export LC_ALL',
      ...readFilesLines([TIMER_SERVICE, TIMER_UNIT, TIMER_WANTS, `${checkPlainPath(textfileDir, 'dir')}/gdr_doctor.prom`]),
    ].join('\n'),
  );
}
