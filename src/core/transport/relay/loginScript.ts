// The script a login node runs (on stdin to `/bin/sh -s`, like the probe itself) to run the probe on
// many compute nodes with srun, pdsh or clush, and the per-node command those tools carry.
//
// The per-node command is `echo <b64> <b64> … | tr -d ' ' | base64 -d | /bin/sh -s`: only
// [A-Za-z0-9+/=] and spaces pass through the tool, ssh and the node's login shell (which may be csh:
// chunks of at most 1000 characters stay under old csh word limits; no `%`, which ClusterShell's
// exec worker and pdsh's rcmd modules would read as a placeholder). It decodes to the node wrapper below, which
// holds the probe script (base64 again) and prints, one line each:
//   <U> B <node name> <step nodelist>     first: the node started (Slurm's name, else hostname)
//   [<G> ]<base64 of the probe's stdout>  wrapped at 76: no tool's per-line prefixing or
//   …                                     relaying can split or change a length-prefixed frame
//   <U> E <exit code of the probe>        last: the node's stream is complete
// and, on stderr, `<T> H` every 2 s while the probe runs (a heartbeat: see HEARTBEAT),
// and the login script itself prints `<T> S <node> <state>` for nodes Slurm says are unusable,
// `<T> L <node list>` for an allocation given by job id alone (its nodes, from squeue) and
// `<T> X <tool exit code>` at the end. <T> is random per run, so no other output can fake a line.
//
// Every node knows <T>, so with pdsh and clush a hostile node could print lines that the demux takes for
// another node's (pdsh glues a dying node's cut line to the next node's, and the demux splits them
// again: demux.ts gluedLine). So there each node also gets a key <G> of its own, which no other node
// ever sees: the login script keeps one per node in a private temporary folder and runs the tool's exec
// worker (`pdsh -R exec`, `clush -R exec`) with a small script that reads the node's key and puts it,
// base64 as `G=<key>`, in front of the wrapper on that node's command line only; the node then writes
// <U> = <T>.<G> on its B and E lines and `<G> ` before every data line, and the demux takes a line for
// a node only with that node's key. srun labels every line with its task itself (no node can write
// under another's label), so there <U> = <T> and the data lines are bare; a name claimed twice is
// refused there as everywhere, and both claims are flagged.
//
// Sizes: the probe (≈6 KB) in base64 inside the wrapper, the wrapper in base64 again: the per-node
// command is ≈12 KB, one argument far below Linux's 128 KiB per-argument and 2 MiB ARG_MAX limits
// (pdsh and clush pass it to ssh as one argument; srun to `sh -c`).
import { randomBytes } from 'crypto';
import { shQuote } from '../../shellText';
import type { RelayTool } from './tools';

export type { RelayTool } from './tools';

export interface LoginScriptRequest {
  readonly tool: RelayTool;
  readonly tag: string;
  readonly probeScript: string;
  /** Node-side limit for one probe (s): the probe stops itself and what it printed still arrives. */
  readonly nodeLimitS: number;
  readonly nodes?: string;
  /** How many nodes `nodes` names. */
  readonly expectedCount: number;
  readonly partition?: string;
  readonly nodeCount?: number;
  readonly jobId?: string;
  readonly concurrency: number;
  /** Whole-run limit for Slurm (`--time`, `--immediate`), in seconds. */
  readonly deadlineS: number;
  /** pdsh, clush: each node's key (nodeKeys()); the node must be one of `nodes`. */
  readonly keys?: ReadonlyMap<string, string>;
}

export const ENV = 'LC_ALL=C; export LC_ALL\nPATH=$PATH:/usr/sbin:/sbin; export PATH';

// A `<T> H` line on stderr every 2 s while the probe runs. pdsh and clush pass no cancel on to the
// nodes: when the run is cancelled (or a connection drops), the login node's session goes, and the
// heartbeat is what notices: each hop's next write fails (pdsh, then its ssh, then the node's sshd
// closes the channel), and here the failed write stops this whole process group, probe included,
// instead of leaving it to run on to its limit. stderr, not stdout: a line written between two of
// base64's blocks would split a data line. SIGPIPE ignored, so the write fails instead of killing
// the loop; sleep's stderr is /dev/null, so a heartbeat being stopped keeps no stream open.
const HEARTBEAT = `( trap '' PIPE; while sleep 2 2>/dev/null; do printf '%s H\\n' "$T" >&2 || { kill -TERM 0; exit 0; }; done ) </dev/null >/dev/null & HB=$!`;

// A cancel (exec() TERMs the session) must stop what runs on the nodes too. sshd signals the
// session's whole process group, and pdsh would die at once, leaving its ssh children (each in a
// session of its own) running, and the nodes' probes with them. So the tool runs in a session of its
// own (setsid) while this shell waits: only the shell gets the TERM, and its trap stops the tool's
// children first (found through /proc: pkill may be missing; `read` is a builtin), then the tool
// (srun cancels its step). The connections to the nodes close, and there the heartbeat's next write
// fails. Without setsid the tool shares our group and the trap still stops what it can.
export const RUN_TOOL = [
  'K() { for d in /proc/[0-9]*; do s=; read -r s 2>/dev/null <"$d/stat"; set -- ${s##*) }; [ "${2:-}" = "$TP" ] && kill -TERM "${d#/proc/}" 2>/dev/null; done; }',
  'trap \'trap - TERM HUP INT; if [ -n "${TP:-}" ]; then K; kill -TERM "$TP" 2>/dev/null; fi; exit 143\' TERM HUP INT',
  'S=; command -v setsid >/dev/null 2>&1 && S=setsid',
  'R() { $S "$@" </dev/null & TP=$!; wait "$TP"; }',
].join('\n');

/** The wrapper each node runs; fds 3/4 carry the stream and the probe's exit code past `base64`. */
export function nodeWrapper(tag: string, probeScript: string, nodeLimitS: number): string {
  return [
    ENV,
    `T=${shQuote(tag)}`,
    `P=${shQuote(Buffer.from(probeScript).toString('base64'))}`,
    'N=${SLURMD_NODENAME:-$(hostname 2>/dev/null || uname -n)}',
    // The node's key, when its command line began with one (G=…, before this wrapper): on its lines only.
    'U=$T${G:+.$G}',
    'keyed() { if [ -n "${G:-}" ]; then sed "s/^/$G /"; else cat; fi; }',
    `printf '%s B %s %s\\n' "$U" "$N" "\${SLURM_STEP_NODELIST:-\${SLURM_JOB_NODELIST:-}}"`,
    // --foreground: the probe stays in this process group, so the heartbeat's `kill 0` reaches it.
    `TO=; if timeout --foreground -k 2 10 true >/dev/null 2>&1; then TO='timeout --foreground -k 2 ${nodeLimitS}'; fi`,
    HEARTBEAT,
    'exec 3>&1',
    'rc=$( { { printf \'%s\\n\' "$P" | base64 -d | $TO /bin/sh -s 3>&- 4>&-; echo "$?" >&4; } | base64 3>&- 4>&- | keyed >&3 3>&- 4>&-; } 4>&1 )',
    'kill "$HB" 2>/dev/null',
    `printf '%s E %s\\n' "$U" "$rc"`,
    '',
  ].join('\n');
}

/** A fresh key per node (24 hex digits), for LoginScriptRequest.keys and the demux. */
export function nodeKeys(nodes: readonly string[]): Map<string, string> {
  return new Map(nodes.map((n) => [n, randomBytes(12).toString('hex')]));
}

/** `G=<key>` and a newline (27 bytes: base64 without padding, so it decodes joined to the wrapper's base64). */
function keyLine(key: string): string {
  return Buffer.from(`G=${key}\n`).toString('base64');
}

export function nodeCommand(wrapper: string): string {
  const b64 = Buffer.from(wrapper).toString('base64');
  const chunks = b64.match(/.{1,1000}/g) ?? [];
  return `echo ${chunks.join(' ')} | tr -d ' ' | base64 -d | /bin/sh -s`;
}

export function loginScript(req: LoginScriptRequest): string {
  const cmd = nodeCommand(nodeWrapper(req.tag, req.probeScript, req.nodeLimitS));
  const head = [ENV, `T=${shQuote(req.tag)}`, `C=${shQuote(cmd)}`, RUN_TOOL];
  const body = req.tool === 'pdsh' ? pdshLines(req) : req.tool === 'clush' ? clushLines(req) : slurmLines(req);
  return [...head, ...body, `printf '%s X %s\\n' "$T" "$rc"`, ''].join('\n');
}

// pdsh and clush run `sh $D/h <node>` per node (their exec workers, %h the node): it reads the node's key
// from the private folder and runs ssh with the node command, the key in front (see the top of this file).
// The folder is the login script's own (umask 077, mktemp -d) and goes with it, also on a cancel (the
// TERM trap's exit runs the EXIT trap). BatchMode: a node asking for a password fails at once instead of
// hanging; ConnectTimeout: a dead node is reported within seconds; -a -x as pdsh's own ssh module passes.
// PDSH_SSH_ARGS_APPEND (the user's extra ssh options for pdsh) is honoured for both tools.
const NODE_SSH = [
  'read -r K <"$D/g/k$1" || exit 1',
  'exec ssh -a -x -o BatchMode=yes -o ConnectTimeout=10 ${PDSH_SSH_ARGS_APPEND:-} "$1" "echo $K ${C#echo }"',
];

function keyedPrelude(req: LoginScriptRequest): string[] {
  const keys = req.keys;
  if (keys === undefined || keys.size === 0) throw new Error(`${req.tool}: the login script needs a key per node (nodeKeys)`);
  return [
    'umask 077',
    'case ${TMPDIR:-/tmp} in *[!A-Za-z0-9/._-]*) TMPDIR=/tmp ;; esac',
    `D=$(mktemp -d "\${TMPDIR:-/tmp}/gdr-doctor.XXXXXXXX") || { echo 'gdr-doctor: cannot make a temporary folder on the login node' >&2; printf '%s X none\\n' "$T"; exit 1; }`,
    'trap \'rm -rf "$D"\' EXIT',
    'mkdir "$D/g" || exit 1',
    'while read -r n g; do printf \'%s\\n\' "$g" >"$D/g/k$n"; done <<\'EOF\'',
    ...[...keys].map(([node, key]) => `${node} ${keyLine(key)}`),
    'EOF',
    `cat >"$D/h" <<'EOF'`,
    ...NODE_SSH,
    'EOF',
    'export C D',
  ];
}

// Every tool gets stdin from /dev/null (R): clush and srun forward stdin to the nodes, and here stdin
// is the rest of this script.
function pdshLines(req: LoginScriptRequest): string[] {
  return [...keyedPrelude(req), `R pdsh -R exec -f ${req.concurrency} -w ${shQuote(req.nodes ?? '')} sh "$D/h" %h; rc=$?`];
}

// -S: exit with the largest node code. The exec worker runs its command through a shell: $D is made of
// [A-Za-z0-9/._-] only (TMPDIR checked above), so it reads as one word there; `exec`, so that ssh ends up
// clush's own child, which a cancel stops (RUN_TOOL's K), instead of a grandchild left running.
// PYTHONUNBUFFERED: clush writes its lines to a block-buffered pipe and never flushes, so a node's
// last lines would wait for other output (or the end) and progress would lag behind the nodes.
function clushLines(req: LoginScriptRequest): string[] {
  return [
    'PYTHONUNBUFFERED=1; export PYTHONUNBUFFERED',
    ...keyedPrelude(req),
    `R clush -S -R exec -f ${req.concurrency} -w ${shQuote(req.nodes ?? '')} -- exec sh "$D/h" %h; rc=$?`,
  ];
}

// Nodes Slurm says are down, drained, failing or not responding (`*`), or busy with other jobs, are
// reported and left out: a nodelist with one of them would make srun wait for it or fail as a whole.
// Within an existing allocation (jobId) its nodes are the user's own and all of them are used.
// Without sinfo every node is tried.
const SINFO_CHECK = `if ! command -v sinfo >/dev/null 2>&1; then OK=$NODES; NOK=$NALL; else
set -f
OK=; NOK=0
for l in $(sinfo -h -N -n "$NODES" $PART -o '%N:%T' 2>/dev/null); do
  n=\${l%%:*}; s=\${l#*:}
  case ,$OK, in *,"$n",*) continue ;; esac
  case $s in
    *'*'|down*|drain*|fail*|maint*|future*|unknown*|reboot*|power*|inval*|alloc*|resv*|reserved*) printf '%s S %s %s\\n' "$T" "$n" "$s" ;;
    *) OK=\${OK:+$OK,}$n; NOK=$((NOK + 1)) ;;
  esac
done
set +f
# sinfo knows none of them (a wrong partition or names): srun says why, for every node.
if [ "$NOK" -eq 0 ] && [ -z "$(sinfo -h -N -n "$NODES" $PART -o %N 2>/dev/null)" ]; then OK=$NODES; NOK=$NALL; fi
fi`;

function slurmLines(req: LoginScriptRequest): string[] {
  const minutes = Math.max(1, Math.ceil(req.deadlineS / 60));
  const immediate = Math.max(1, Math.min(30, Math.floor(req.deadlineS / 4)));
  const common = `--ntasks-per-node=1 --label --kill-on-bad-exit=0 --job-name=gdr-doctor --time=${minutes} --immediate=${immediate}`;
  // Validated to [A-Za-z0-9._-]: $PART expands unquoted to exactly one word (or none).
  const lines = [`PART=${req.partition !== undefined ? shQuote(`--partition=${req.partition}`) : ''}`];
  if (req.jobId !== undefined) {
    const count = req.nodeCount ?? '$(squeue -h -j "$JOB" -o %D 2>/dev/null)';
    lines.push(`JOB=${shQuote(req.jobId)}`, `NN=${count}`);
    // The allocation's nodes as the login node's Slurm lists them: the names the nodes may report.
    if (req.nodes === undefined) lines.push(`printf '%s L %s\\n' "$T" "$(squeue -h -j "$JOB" -o %N 2>/dev/null)"`);
    const list = req.nodes !== undefined ? ` --nodelist=${shQuote(req.nodes)}` : '';
    lines.push(`R srun --jobid="$JOB"${list} \${NN:+--nodes=$NN --ntasks=$NN} ${common} /bin/sh -c "$C"; rc=$?`);
  } else if (req.nodes !== undefined) {
    lines.push(`NODES=${shQuote(req.nodes)}`, `NALL=${req.expectedCount}`, SINFO_CHECK);
    lines.push(
      `if [ "$NOK" -gt 0 ]; then R srun $PART --nodelist="$OK" --nodes=$NOK --ntasks=$NOK ${common} /bin/sh -c "$C"; rc=$?; else rc=none; fi`,
    );
  } else {
    const n = req.nodeCount ?? 1;
    lines.push(`R srun $PART --nodes=${n} --ntasks=${n} ${common} /bin/sh -c "$C"; rc=$?`);
  }
  return lines;
}
