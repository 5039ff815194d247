// The POSIX sh a host runs for a proof (on stdin to `/bin/sh -s`, like the probe): perftest's
// server and client with the order of flags perftest needs (docs/perftest.md §3), pinned with
// numactl, bounded by `timeout`, on a free TCP port (docs/perftest.md §1). Every value in a script is
// checked here first; nothing a host printed ever goes into one.
//
// What the script prints on stdout, one line each (<T> is random per run, so no output can fake one):
//   <T> P <id> <port>          the server took this TCP port          <T> N <id> no-port   none was free
//   <T> L <id>                 the server listens: start the client
//   <T> O <id> <role> <base64>  what a side printed, base64 in lines of 76 (srun and ssh pass
//                              short lines whole, whatever they prefix), then
//   <T> R <id> <role> <rc>     the side ended (role server|client)
// A cancel TERMs the session: the trap TERMs the whole process group (perftest, numactl, timeout run
// in it: `timeout --foreground`), and `timeout` ends each side on its own if the session is gone.
import { shQuote } from '../shellText';
import { Measurement } from './plan';
import { ProveEndpoint } from './types';

export { ScriptEventReader, scriptEvents } from './events';
export type { ScriptEvent } from './events';

export interface PerftestSide {
  readonly endpoint: ProveEndpoint;
  readonly cuda: 'host' | 'peermem' | 'dmabuf';
  readonly sizeBytes: number;
  readonly durationS: number;
}

const DEVICE = /^[A-Za-z0-9_.:-]{1,64}$/;
const ADDRESS = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,252}$/;
const TAG = /^[A-Za-z0-9-]{8,64}$/;
const ID = /^m\d{1,5}$/;
const BUS_ID = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

function int(what: string, n: number, min: number, max: number): number {
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${what} must be a whole number from ${min} to ${max}, got ${n}`);
  return n;
}

function checked(re: RegExp, what: string, s: string): string {
  if (!re.test(s)) throw new Error(`not a valid ${what}: ${JSON.stringify(s)}`);
  return s;
}

/** ib_write_bw's arguments for one side, without -p and the server address; the GPU (by address or index) before `--use_cuda_dmabuf`. */
export function perftestArgs(side: PerftestSide): string[] {
  const e = side.endpoint;
  const args = [
    '-d',
    checked(DEVICE, 'RDMA device name', e.device),
    '-i',
    String(int('port', e.port, 1, 255)),
    '-s',
    String(int('message size', side.sizeBytes, 1, 2 ** 31)),
    '-D',
    String(int('duration', side.durationS, 1, 3600)),
    '-F',
    '--report_gbits',
  ];
  // A CUDA device number follows CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES, not nvidia-smi's order: the
  // PCI address names the GPU meant, where this perftest takes it (src/perftest_parameters.c use_cuda_bus_id).
  if (side.cuda !== 'host')
    args.push(
      e.cudaByBusId && e.gpuBusId
        ? `--use_cuda_bus_id=${checked(BUS_ID, 'GPU PCI address', e.gpuBusId)}`
        : `--use_cuda=${int('GPU index', e.gpuIndex, 0, 4095)}`,
    );
  if (side.cuda === 'dmabuf') args.push('--use_cuda_dmabuf');
  return args;
}

/** The command line as it runs, for people and the audit log. */
export function commandLine(side: PerftestSide, tcpPort: number | string, server?: string): string {
  const pin =
    side.endpoint.numaNode === null ? [] : ['numactl', `--cpunodebind=${side.endpoint.numaNode}`, `--membind=${side.endpoint.numaNode}`];
  return [...pin, 'ib_write_bw', ...perftestArgs(side), '-p', String(tcpPort), ...(server === undefined ? [] : [server])].join(' ');
}

const PRELUDE = [
  'LC_ALL=C; export LC_ALL',
  'PATH=$PATH:/usr/sbin:/sbin; export PATH',
  'exec </dev/null',
  "trap 'trap - TERM HUP INT; kill -TERM 0 2>/dev/null; exit 143' TERM HUP INT",
  "TO=; if timeout --foreground -k 2 10 true >/dev/null 2>&1; then TO='timeout --foreground -k 2'; fi",
  'NU=; command -v numactl >/dev/null 2>&1 && NU=numactl',
  // run LIMIT NUMA ARGS...: one side of perftest, pinned and bounded where the host allows it.
  'run() { l=$1; n=$2; shift 2; set -- ib_write_bw "$@"; if [ "$n" != - ] && [ -n "$NU" ]; then set -- numactl --cpunodebind="$n" --membind="$n" "$@"; fi; if [ -n "$TO" ]; then $TO "$l" "$@"; else "$@"; fi; }',
  'report() { printf \'%s\' "$4" | base64 | while read -r b; do printf \'%s O %s %s %s\\n\' "$T" "$1" "$2" "$b"; done; printf \'%s R %s %s %s\\n\' "$T" "$1" "$2" "$3"; }',
  // A port no socket uses as local or remote port (hex in /proc/net/tcp*).
  'pickport() { P=; for c in $1; do h=$(printf \'%04X\' "$c"); if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q ":$h "; then P=$c; return 0; fi; done; return 1; }',
  'listening() { h=$(printf \'%04X\' "$1"); cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -Eq ":$h [0-9A-F]+:0000 0A"; }',
  // srv ID LIMIT NUMA CANDIDATES ARGS...: the server in the background on the first free port.
  'srv() { id=$1; l=$2; n=$3; c=$4; shift 4; SP=; if ! pickport "$c"; then printf \'%s N %s no-port\\n\' "$T" "$id"; return 1; fi; ' +
    'printf \'%s P %s %s\\n\' "$T" "$id" "$P"; ( o=$(run "$l" "$n" "$@" -p "$P" 2>&1); report "$id" server $? "$o" ) & SP=$!; }',
  // waitlisten PORT POLLS: until the server listens (every 0.2 s), or it ended, or POLLS ran out.
  'waitlisten() { i=0; while [ "$i" -lt "$2" ]; do listening "$1" && return 0; kill -0 "$SP" 2>/dev/null || return 1; sleep 0.2 2>/dev/null || sleep 1; i=$((i+1)); done; return 1; }',
  // cli ID LIMIT NUMA SERVER PORT RETRY_S ARGS...: the client, retried a second apart while the server is
  // not there yet, for RETRY_S seconds (by the clock where `date +%s` works; at most RETRY_S tries): a
  // Slurm server that cannot serve holds that long (slurmNodeScript). Its output is kept in CO/CR and
  // reported after the server's (two writers on one pipe could mix).
  'now() { date +%s 2>/dev/null || echo 0; }',
  'cli() { CI=$1; l=$2; n=$3; s=$4; p=$5; r=$6; shift 6; k=0; e=$(( $(now) + r )); while :; do CO=$(run "$l" "$n" "$@" -p "$p" "$s" 2>&1); CR=$?; ' +
    'case $CO in *"Couldn\'t connect to"*) if [ "$k" -lt "$r" ] && [ "$(now)" -lt "$e" ]; then k=$((k+1)); sleep 1; continue; fi;; esac; break; done; }',
  'clidone() { if [ -n "${CI:-}" ]; then report "$CI" client "$CR" "$CO"; CI=; fi; }',
];

export interface ScriptContext {
  readonly tag: string;
  readonly sizeBytes: number;
  readonly durationS: number;
}

/**
 * The script as one brace group: sh parses a compound command whole before it runs any of it, so the
 * script, read from stdin (`/bin/sh -s`), is all read before its `exec </dev/null` takes stdin away. Run
 * line by line, sh ran only what its first read of the pipe held (a Slurm task's script arrives through
 * `base64 -d`, sometimes in pieces): the rest was cut off mid-line, and the task exited 2 at a later
 * measurement ("Syntax error: end of file unexpected").
 */
function whole(lines: readonly string[]): string {
  return ['{', ...lines, '}', ''].join('\n');
}

function head(ctx: ScriptContext): string[] {
  return [`T=${shQuote(checked(TAG, 'run tag', ctx.tag))}`, ...PRELUDE];
}

function side(ctx: ScriptContext, m: Measurement, e: ProveEndpoint): string {
  const args = perftestArgs({ endpoint: e, cuda: m.mode, sizeBytes: ctx.sizeBytes, durationS: ctx.durationS });
  return [
    String(int('time limit', m.limitS, 1, 7200)),
    e.numaNode === null ? '-' : String(int('NUMA node', e.numaNode, 0, 4095)),
    ...args.map(shQuote),
  ].join(' ');
}

/** `srv` with the measurement's values; the candidate ports in order. */
function srvCall(ctx: ScriptContext, m: Measurement, ports: readonly number[]): string {
  const list = ports.map((p) => int('TCP port', p, 1024, 65535)).join(' ');
  const [limit, numa, ...args] = side(ctx, m, m.server).split(' ');
  return `srv ${checked(ID, 'measurement id', m.id)} ${limit} ${numa} '${list}' ${args.join(' ')}`;
}

function cliCall(ctx: ScriptContext, m: Measurement, server: string, port: string, retries: number): string {
  const [limit, numa, ...args] = side(ctx, m, m.client).split(' ');
  const id = checked(ID, 'measurement id', m.id);
  const address = shQuote(checked(ADDRESS, 'server address', server));
  return `cli ${id} ${limit} ${numa} ${address} ${port} ${int('retries', retries, 0, 600)} ${args.join(' ')}`;
}

/** Both sides on one host: the server, then the client once it listens, over loopback TCP. */
export function loopbackScript(ctx: ScriptContext, m: Measurement, ports: readonly number[]): string {
  return whole([
    ...head(ctx),
    `if ${srvCall(ctx, m, ports)} && waitlisten "$P" ${LISTEN_POLLS}; then printf '%s L %s\\n' "$T" ${m.id}; ${cliCall(ctx, m, '127.0.0.1', '"$P"', 0)}; fi`,
    '[ -n "$SP" ] && wait "$SP"',
    'clidone',
  ]);
}

/** The server side on the peer: says which port, says when it listens, ends when perftest ends. */
export function serverScript(ctx: ScriptContext, m: Measurement, ports: readonly number[]): string {
  return whole([
    ...head(ctx),
    `if ${srvCall(ctx, m, ports)} && waitlisten "$P" ${LISTEN_POLLS}; then printf '%s L %s\\n' "$T" ${m.id}; fi`,
    '[ -n "$SP" ] && wait "$SP"',
  ]);
}

/** The client side, once the server listens on `port` of `server`. */
export function clientScript(ctx: ScriptContext, m: Measurement, server: string, port: number): string {
  return whole([...head(ctx), cliCall(ctx, m, server, String(int('TCP port', port, 1024, 65535)), CLIENT_RETRIES), 'clidone']);
}

/** How long a server may take to listen: 150 polls of 0.2 s. */
const LISTEN_POLLS = 150;
/** A client told the server listens still retries a few seconds (a port just bound, a slow accept). */
const CLIENT_RETRIES = 5;

/**
 * One Slurm task's program for a whole run: for each measurement, the node named `serverNode` serves
 * and the other node is the client, which retries a second apart for `clientRetries` seconds until the
 * server listens: the two tasks of one step cannot tell each other when. The server takes its measurement's one port.
 * A server whose port is taken holds as long as the client goes on retrying before it starts the next
 * measurement's server: otherwise that server would wait out its time limit while the client still
 * retries the last one, and every later measurement would miss its client the same way. (A server
 * that listened is not held: it may have served and ended between two looks at /proc/net/tcp.)
 */
export function slurmNodeScript(
  ctx: ScriptContext,
  runs: readonly { m: Measurement; port: number }[],
  serverNode: string,
  clientRetries = SLURM_CLIENT_RETRIES,
): string {
  const node = checked(ADDRESS, 'node name', serverNode);
  const retries = int('retries', clientRetries, 0, 600);
  // Longer than the client's retries of this measurement, shorter than those and its retries of the next.
  const hold = retries + Math.max(1, Math.ceil(retries / 12));
  const lines = runs.map(({ m, port }) => {
    const serve = `if ${srvCall(ctx, m, [port])}; then waitlisten "$P" ${LISTEN_POLLS} && printf '%s L %s\\n' "$T" ${m.id}; else sleep ${hold}; fi`;
    return [
      `if [ "$N" = ${shQuote(node)} ]; then ${serve}; [ -n "$SP" ] && wait "$SP"`,
      `else ${cliCall(ctx, m, node, String(port), retries)}; clidone; fi`,
    ].join('\n');
  });
  return whole([...head(ctx), 'N=${SLURMD_NODENAME:-$(hostname 2>/dev/null || uname -n)}', ...lines]);
}

const SLURM_CLIENT_RETRIES = 60;
