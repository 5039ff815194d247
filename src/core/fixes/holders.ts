// Traffic in flight: before a root script reroutes peer traffic (disable-acs), it lists, as root, the
// processes that hold a GPU (/dev/nvidia<N>) or an RDMA device (/dev/infiniband/uverbs<N>) open, and
// stops unless the user chose to go on (--force, or yes when asked). Management daemons that keep the
// device files open for the life of the machine — nvidia-persistenced (its comm is cut to 15
// characters by the kernel), DCGM's nv-hostengine and dcgm-exporter — move no data and are listed but
// do not stop it. One `ls -l` reads every process's fd links (no process per fd); the lines it prints
// are parsed here. The names printed are the host's text: shown, never put into a command.
import { t } from '../l10n';

/** Exit status of a script that found processes holding the devices and was not forced (sysexits EX_TEMPFAIL). */
export const HOLDERS_EXIT = 75;
const MARK = 'gdr-doctor-holder';

/**
 * sh lines: `holders` prints `gdr-doctor-holder<TAB>PID<TAB>job|daemon<TAB>COMM<TAB>DEVICE` per process and
 * device, and returns 1 when a job holds one and `$FORCE` is not 1 (then nothing must be changed).
 */
export const HOLDERS_LINES: readonly string[] = [
  'holders() {',
  // /proc/self/fd too: with two or more folders ls prints the "<folder>:" line the loop reads the pid from.
  '  H=$(ls -l /proc/self/fd /proc/[0-9]*/fd 2>/dev/null | while IFS= read -r l; do',
  '    case $l in /proc/*/fd:) p=${l#/proc/}; p=${p%/fd:};;',
  '      *" -> /dev/nvidia"[0-9]*|*" -> /dev/infiniband/uverbs"[0-9]*) echo "$p ${l##* -> }";; esac',
  '  done | sort -u)',
  '  j=0',
  '  while read -r p d; do [ -n "$p" ] || continue; c=?; read -r c 2>/dev/null < "/proc/$p/comm"',
  '    case $c in nvidia-persiste*|nv-hostengine|dcgm-exporter) k=daemon;; *) k=job; j=$((j+1));; esac',
  `    printf "${MARK}\\t%s\\t%s\\t%s\\t%s\\n" "$p" "$k" "$c" "$d"`,
  '  done <<EOF',
  '$H',
  'EOF',
  '  if [ "$j" -gt 0 ] && [ "${FORCE:-0}" != 1 ]; then',
  '    echo "gdr-doctor: processes hold the GPUs or RDMA devices (listed above): nothing was changed" >&2; return 1',
  '  fi',
  '}',
];

export interface DeviceHolder {
  readonly pid: number;
  /** The process name the kernel keeps (/proc/<pid>/comm, at most 15 characters). */
  readonly command: string;
  readonly devices: string[];
  /** A management daemon (nvidia-persistenced, DCGM): listed, does not stop the fix. */
  readonly daemon: boolean;
}

/** The holder lines of a script's output, one entry per process; [] when there are none. */
export function parseHolders(output: string): DeviceHolder[] {
  const byPid = new Map<number, DeviceHolder>();
  for (const line of output.split('\n')) {
    const f = line.split('\t');
    if (f[0] !== MARK || f.length !== 5 || !/^\d{1,10}$/.test(f[1])) continue;
    const pid = Number(f[1]);
    const known = byPid.get(pid) ?? { pid, command: f[3].slice(0, 64), devices: [], daemon: f[2] === 'daemon' };
    if (known.devices.length < 64 && !known.devices.includes(f[4])) known.devices.push(f[4].slice(0, 64));
    byPid.set(pid, known);
    if (byPid.size >= 256) break;
  }
  return [...byPid.values()];
}

/** `1234 python3 (/dev/nvidia0, /dev/infiniband/uverbs0)`. */
export function holderText(h: DeviceHolder): string {
  return `${h.pid} ${h.command} (${h.devices.join(', ')})${h.daemon ? t(' — a management daemon, not traffic') : ''}`;
}

/** What a plan that checks for holders says before it runs. */
export const holdersNote = (): string =>
  t(
    'Right before it writes, the script lists (as root) the processes holding /dev/nvidia<N> or /dev/infiniband/uverbs<N> and stops without changing anything if a job holds one (nvidia-persistenced and DCGM are listed only): rerouting peer traffic under a running job is not done silently. --force (or yes when asked) goes on anyway.',
  );
