// The script that launches nccl-tests across the nodes (docs/nccl-tests.md §3), run on the launcher
// host (a login node, or the first node) by `/bin/sh -s` like the probe: one rank per GPU through
// Slurm's srun (asking for the GPUs) or mpirun over the nodes' own SSH trust, with NCCL's INIT and NET
// log, then the -J file fetched from rank 0's node. Lines of its own start with the run's random tag:
//   <T> S                  the launcher started       <T> M <tool>   the launcher is not installed
//   <T> X <exit code>      the run ended              <T> B <base64>  a line of the -J file (rank 0's node)
// A cancel or the deadline TERMs the session: the trap stops the launcher (srun cancels its step and
// Slurm stops every task; mpirun stops its ranks and daemons on every node) and, for Slurm, scancels
// the job by its unique name in case srun was already gone.
import { RELAY_ENV as ENV, RUN_TOOL } from '../../transport';
import { shQuote } from '../../shellText';
import { NcclProveOptions } from './options';

export interface NcclLaunch {
  readonly tag: string;
  /** The nodes, rank 0's first, as the launcher names them (Slurm's node names, or SSH host names). */
  readonly nodes: readonly string[];
  readonly gpusPerNode: number;
  /** The binary's path on the nodes (the same on every node). */
  readonly binary: string;
  /** Write -J JSON (the build has it). */
  readonly json: boolean;
  /** The launcher host is the first node itself (mpirun started there): the -J file is local. */
  readonly launcherIsFirstNode: boolean;
  readonly options: NcclProveOptions;
}

const TAG = /^[A-Za-z0-9-]{8,64}$/;
const NODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const BINARY = /^\/?[A-Za-z0-9._/+-]{1,512}$/;

function checked(l: NcclLaunch): void {
  if (!TAG.test(l.tag)) throw new Error(`not a run tag: ${JSON.stringify(l.tag)}`);
  for (const n of l.nodes) if (!NODE.test(n)) throw new Error(`not a node name: ${JSON.stringify(n)}`);
  if (new Set(l.nodes).size !== l.nodes.length || l.nodes.length < 2)
    throw new Error('a proof with NCCL needs two or more different nodes');
  if (!BINARY.test(l.binary)) throw new Error(`not a binary path: ${JSON.stringify(l.binary)}`);
  if (!Number.isInteger(l.gpusPerNode) || l.gpusPerNode < 1 || l.gpusPerNode > 64) throw new Error(`not a GPU count: ${l.gpusPerNode}`);
}

/** NCCL's log of the run: connection setup (INIT) and the network (NET), where /GDRDMA shows. */
export function ncclEnv(o: NcclProveOptions): [string, string][] {
  return [['NCCL_DEBUG', 'INFO'], ['NCCL_DEBUG_SUBSYS', 'INIT,NET'], ...(o.ring ? ([['NCCL_ALGO', 'Ring']] as [string, string][]) : [])];
}

export const jsonPath = (tag: string): string => `/tmp/gdr-doctor-nccl-${tag}.json`;

/** nccl-tests' own arguments: sizes, one GPU per process, and -J where the build has it. */
export function testArgs(l: NcclLaunch): string[] {
  const o = l.options;
  return ['-b', o.minBytes, '-e', o.maxBytes, '-f', String(o.stepFactor), '-g', '1', ...(l.json ? ['-J', jsonPath(l.tag)] : [])];
}

const jobName = (tag: string): string => `gdr-doctor-nccl-${tag.slice(-12)}`;

function srunLine(l: NcclLaunch): string {
  const o = l.options;
  const minutes = Math.ceil(o.timeoutS / 60) + 1;
  return [
    'srun',
    ...(o.partition ? [`--partition=${o.partition}`] : []),
    ...(o.mpi ? [`--mpi=${o.mpi}`] : []),
    `--nodelist=${l.nodes.join(',')}`,
    `--nodes=${l.nodes.length}`,
    `--ntasks-per-node=${l.gpusPerNode}`,
    `--gpus-per-node=${l.gpusPerNode}`,
    '--label',
    '--kill-on-bad-exit=1',
    `--job-name=${jobName(l.tag)}`,
    `--time=${minutes}`,
    '--immediate=30',
    'env',
    ...ncclEnv(o).map(([k, v]) => `${k}=${v}`),
    l.binary,
    ...testArgs(l),
  ].join(' ');
}

function mpirunLine(l: NcclLaunch): string {
  return [
    'mpirun',
    `--np ${l.nodes.length * l.gpusPerNode}`,
    `-H ${l.nodes.map((n) => `${n}:${l.gpusPerNode}`).join(',')}`,
    '--tag-output',
    '--bind-to none',
    '--mca plm_rsh_args "-o BatchMode=yes"',
    ...ncclEnv(l.options).map(([k, v]) => `-x ${k}=${v}`),
    l.binary,
    ...testArgs(l),
  ].join(' ');
}

/** The command as it runs, for people and the audit log. */
export function launchLine(l: NcclLaunch): string {
  checked(l);
  return l.options.launcher === 'slurm' ? srunLine(l) : mpirunLine(l);
}

/** Prints the -J file of rank 0's node, one `<T> B` line per base64 line, and removes it. */
/** srun's options for one short task on one node, named after the proof. */
function oneTaskOptions(tag: string): string {
  return `--nodes=1 --ntasks=1 --job-name=${jobName(tag)} --time=1 --immediate=30`;
}

function fetchJson(l: NcclLaunch): string[] {
  const f = shQuote(jsonPath(l.tag));
  const print = `while read -r b; do printf '%s B %s\\n' "$T" "$b"; done`;
  const read = `if [ -s ${f} ]; then base64 ${f}; fi; rm -f ${f}`;
  if (l.launcherIsFirstNode) return [`{ ${read}; } 2>/dev/null | ${print}`];
  if (l.options.launcher === 'slurm')
    return [`R srun --nodelist=${shQuote(l.nodes[0])} ${oneTaskOptions(l.tag)} /bin/sh -c ${shQuote(read)} 2>/dev/null | ${print}`];
  return [`R ssh -o BatchMode=yes -o ConnectTimeout=10 ${shQuote(l.nodes[0])} ${shQuote(read)} 2>/dev/null | ${print}`];
}

/** The whole script for the launcher host. */
export function launchScript(l: NcclLaunch): string {
  const line = launchLine(l);
  const tool = l.options.launcher === 'slurm' ? 'srun' : 'mpirun';
  const cancel = l.options.launcher === 'slurm' ? `scancel --name=${jobName(l.tag)} >/dev/null 2>&1; ` : '';
  return [
    ENV,
    `T=${shQuote(l.tag)}`,
    RUN_TOOL,
    // RUN_TOOL's trap, and for Slurm the job cancelled by name: srun may be gone while its job is not.
    `trap 'trap - TERM HUP INT; if [ -n "\${TP:-}" ]; then K; kill -TERM "$TP" 2>/dev/null; fi; ${cancel}exit 143' TERM HUP INT`,
    `if ! command -v ${tool} >/dev/null 2>&1; then printf '%s M %s\\n' "$T" ${tool}; exit 0; fi`,
    `printf '%s S\\n' "$T"`,
    `R ${line} 2>&1; rc=$?`,
    `printf '%s X %s\\n' "$T" "$rc"`,
    ...(l.json ? fetchJson(l) : []),
    '',
  ].join('\n');
}
