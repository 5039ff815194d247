// The RoCE NICs' QoS: `mlnx_qos -i <interface>` for the Ethernet interface behind each RoCE port, as the login user
// (read-only: without options mlnx_qos only prints the current settings; no sudo). The interface names come from
// the host's own sysfs (the port's default GID's `gid_attrs/ndevs/0`, else the device's only `net/` entry), are
// checked against the characters Linux interface names use, and stay inside the host's shell, quoted. Each output
// is framed with its port, so it is attributed; the count of interfaces and the bytes of each output are capped.
// MLNX_OFED/DOCA-OFED's mlx5_ib also lets root set one traffic class for a whole device in
// /sys/class/infiniband/<dev>/tc/1/traffic_class ("Global tclass=106"); that line is printed with the frame.
import { MlnxQos, parseMlnxQos } from '../parsers/mlnxQos';
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';

/** Most interfaces read: a host has one per RoCE port, 8–16 on GPU servers. */
export const MAX_QOS_INTERFACES = 32;
/** Bytes kept of each mlnx_qos output (a real one is about 1.2 KB). */
export const MAX_QOS_BYTES = 16384;

export const MLNX_QOS_MISSING = 'mlnx_qos: not installed';

export const ROCE_QOS_COMMAND = [
  `command -v mlnx_qos >/dev/null 2>&1 || { echo '${MLNX_QOS_MISSING}'; exit 0; }`,
  'n=0; seen=" "',
  'for q in /sys/class/infiniband/*/ports/*; do',
  '  l=; read -r l 2>/dev/null < "$q/link_layer"; [ "$l" = Ethernet ] || continue; i=${q%/ports/*}; d=',
  '  read -r d 2>/dev/null < "$q/gid_attrs/ndevs/0"',
  '  if [ -z "$d" ]; then set -- "$i"/device/net/*; [ $# -eq 1 ] && [ -e "$1" ] && d=${1##*/}; fi',
  '  case $d in ""|*[!A-Za-z0-9_.:@-]*) continue;; esac; case $seen in *" $d "*) continue;; esac; seen="$seen$d "',
  `  n=$((n+1)); [ $n -le ${MAX_QOS_INTERFACES} ] || { echo '# more RoCE interfaces, not read'; break; }`,
  '  printf \'==> %s %s %s <==\\n\' "${i##*/}" "${q##*/}" "$d"',
  '  t=; read -r t 2>/dev/null < "$i/tc/1/traffic_class"; [ -n "$t" ] && printf \'# tc/1/traffic_class: %s\\n\' "$t"',
  `  mlnx_qos -i "$d" 2>&1 </dev/null | head -c ${MAX_QOS_BYTES}; echo`,
  'done',
].join('\n');

export interface RoceQosPort {
  readonly device: string;
  readonly port: number;
  readonly netdev: string;
  /** The device-wide class MLNX_OFED's `tc/1/traffic_class` shows (`Global tclass=106`), as printed; null when empty. */
  readonly globalTclass: string | null;
  /** What mlnx_qos showed; null when its output holds no QoS (then `error` says what it printed). */
  readonly qos: MlnxQos | null;
  /** mlnx_qos's first line when it showed no QoS (an error), or the parse error. */
  readonly error: string | null;
  /** The output reached MAX_QOS_BYTES and was cut. */
  readonly cut: boolean;
}

export interface RoceQos {
  readonly installed: boolean;
  readonly ports: readonly RoceQosPort[];
  /** More RoCE interfaces than MAX_QOS_INTERFACES: the rest were not read. */
  readonly more: boolean;
}

const WHAT = 'mlnx_qos of the RoCE interfaces';
const FRAME = /^==> ([A-Za-z0-9_.-]{1,64}) ([0-9]{1,3}) ([A-Za-z0-9_.:@-]{1,64}) <==$/;
const TCLASS = '# tc/1/traffic_class: ';

export function parseRoceQos(text: string): Parsed<RoceQos> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  if (read.value.some((l) => l === MLNX_QOS_MISSING)) return ok({ installed: false, ports: [], more: false });
  const frames: { head: RegExpExecArray; tclass: string | null; lines: string[] }[] = [];
  let more = false;
  for (const [i, line] of read.value.entries()) {
    const head = FRAME.exec(line);
    if (head) frames.push({ head, tclass: null, lines: [] });
    else if (line === '# more RoCE interfaces, not read') more = true;
    else if (frames.length === 0) {
      if (line.trim() !== '') return fail(i + 1, `${WHAT}: expected "==> <device> <port> <interface> <==", found ${quote(line)}`);
    } else if (line.startsWith(TCLASS)) frames[frames.length - 1].tclass = line.slice(TCLASS.length).trim().slice(0, 200) || null;
    else frames[frames.length - 1].lines.push(line);
  }
  return ok({ installed: true, ports: frames.map((f) => portOf(f.head, f.tclass, f.lines)), more });
}

function portOf(head: RegExpExecArray, globalTclass: string | null, lines: readonly string[]): RoceQosPort {
  const body = lines.join('\n');
  const parsed = parseMlnxQos(body);
  const firstLine =
    lines
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 200) ?? '(no output)';
  // Output that is not a QoS report at all (an error message) is quoted as the host printed it.
  const shown = lines.some((l) => l.includes('Priority trust state:') || l.includes('PFC configuration:'));
  return {
    device: head[1],
    port: Number(head[2]),
    netdev: head[3],
    globalTclass,
    qos: parsed.ok ? parsed.value : null,
    error: parsed.ok ? null : shown ? parsed.error.message : firstLine,
    cut: body.length >= MAX_QOS_BYTES,
  };
}
