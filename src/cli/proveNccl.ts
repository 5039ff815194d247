// `gdr-doctor prove --nccl <node> <node>…`: nccl-tests across the nodes, its bus bandwidth against what
// the NICs allow and NCCL's own log against diagnose's prediction (docs/nccl-tests.md).
import { readNcclAssumptions } from '../core/diagnosis';
import { errorText } from '../core/errorText';
import { expandHostList } from '../core/parsers/hostlist';
import { DEFAULT_NCCL_PROVE_OPTIONS, NCCL_OPS, NcclProofReport, NcclProveOp, NcclProveOptions, runNcclProof } from '../core/prove/nccl';
import { UseConnection, withNcclNodes } from '../core/prove/nccl/reach';
import { appendNcclProofAudit, formatNcclProof } from '../core/prove/nccl/text';
import { ConnectError } from '../core/ssh/errors';
import { openSsh, throughJump } from '../core/ssh/openSsh';
import { parseArgs, ParsedArgs, UsageError } from './args';
import { whileInterruptible } from './interrupt';
import { CliIo, ExitCode } from './io';
import { busyConfirmation } from './proveBusy';
import { ProveExit } from './proveContext';
import { cliPrompts } from './terminalPrompts';
import { cannotReachLine } from './unreachable';
import { jsonText } from './visible';
import { t } from '../core/l10n';

export const proveNcclHelp = (): string =>
  t(
    `Usage: gdr-doctor prove --nccl <node> <node>… [--via LOGIN [--with slurm|mpirun] [--partition P] [--mpi TYPE]]
                        [--op all_reduce|all_gather|sendrecv] [--gpus-per-node N] [--nccl-tests DIR]
                        [-b SIZE] [-e SIZE] [-f N] [--no-ring] [--timeout S] [--json] [-F FILE] [--batch] [--yes]

Runs nccl-tests across the nodes, one rank per GPU, with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET
(and NCCL_ALGO=Ring unless --no-ring: on two nodes NCCL's tree reports more than the NICs carry), and
says whether NCCL itself reaches what the nodes' NICs allow and uses GPUDirect RDMA where diagnose
predicts it. Launched by srun through a login node (--via LOGIN, asking for the GPUs), or by mpirun:
on the first node (no --via; it reaches the others over their own SSH trust) or on the login node
(--with mpirun). Checked first, nothing run when one fails: nccl-tests on every node at one path
(--nccl-tests DIR, else PATH), the GPUs asked for, mpirun where it starts. Busy GPUs are asked about
(--yes runs anyway). Ctrl-C or the deadline stops every rank on every node (Slurm: the step and its
job are cancelled). Nothing is installed or changed; the run is appended to the audit log.

  --op OP            the nccl-tests binary: {0} (default all_reduce)
  --gpus-per-node N  ranks per node (default: every GPU, the fewest any node has)
  --nccl-tests DIR   where {1} is (a shared build directory); default: the nodes' PATH
  -b, -e, -f         nccl-tests' sizes and step factor (default -b {2} -e {3} -f {4})
  --no-ring          let NCCL choose its algorithm (tree on two nodes reports more than the NICs)
  --timeout S        deadline of the whole run (default {5} s)
  --mpi TYPE         srun --mpi=TYPE (default: the cluster's MpiDefault)
  --json             the proof as JSON

Exit status: 0 NCCL reached what the NICs allow with GPUDirect RDMA as predicted; 1 it did not, or no
verdict could be given; 3 a node or the login node was unreachable; 4 refused (nothing ran); 64 bad
usage; 130 interrupted.
`,
    NCCL_OPS.join(', '),
    'all_reduce_perf',
    DEFAULT_NCCL_PROVE_OPTIONS.minBytes,
    DEFAULT_NCCL_PROVE_OPTIONS.maxBytes,
    DEFAULT_NCCL_PROVE_OPTIONS.stepFactor,
    DEFAULT_NCCL_PROVE_OPTIONS.timeoutS,
  );

const FLAGS = ['--json', '--batch', '--yes', '--no-ring'];
const OPTIONS = [
  '--via',
  '--with',
  '--partition',
  '--mpi',
  '--op',
  '--gpus-per-node',
  '--nccl-tests',
  '-b',
  '-e',
  '-f',
  '--timeout',
  '-F',
  '--nccl-env',
  '--nccl',
];

/** `--nccl` alone switches prove to NCCL; `--nccl VERSION` (a release) keeps its meaning. */
export function isNcclMode(argv: readonly string[]): boolean {
  const i = argv.indexOf('--nccl');
  return i >= 0 && !/^\d+\.\d+(\.\d+)?$/.test(argv[i + 1] ?? '');
}

function ncclOptions(args: ParsedArgs): NcclProveOptions {
  const o = args.options;
  const via = o.get('--via');
  const launcher = o.get('--with') ?? (via !== undefined ? 'slurm' : 'mpirun');
  if (launcher !== 'slurm' && launcher !== 'mpirun')
    throw new UsageError(t('--with takes slurm or mpirun; got {0}', JSON.stringify(launcher)));
  if (launcher === 'slurm' && via === undefined) throw new UsageError(t('--with slurm needs --via LOGIN: srun runs on the login node'));
  const op = o.get('--op') ?? 'all_reduce';
  if (!(NCCL_OPS as readonly string[]).includes(op))
    throw new UsageError(t('--op takes {0}; got {1}', NCCL_OPS.join(', '), JSON.stringify(op)));
  const int = (name: string) => (o.has(name) ? Number(o.get(name)) : undefined);
  return {
    ...DEFAULT_NCCL_PROVE_OPTIONS,
    op: op as NcclProveOp,
    launcher,
    gpusPerNode: int('--gpus-per-node') ?? null,
    testsDir: o.get('--nccl-tests') ?? null,
    minBytes: o.get('-b') ?? DEFAULT_NCCL_PROVE_OPTIONS.minBytes,
    maxBytes: o.get('-e') ?? DEFAULT_NCCL_PROVE_OPTIONS.maxBytes,
    stepFactor: int('-f') ?? DEFAULT_NCCL_PROVE_OPTIONS.stepFactor,
    ring: !args.flags.has('--no-ring'),
    timeoutS: int('--timeout') ?? DEFAULT_NCCL_PROVE_OPTIONS.timeoutS,
    ...(o.has('--partition') ? { partition: o.get('--partition') } : {}),
    ...(o.has('--mpi') ? { mpi: o.get('--mpi') } : {}),
  };
}

export async function runProveNccl(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv.filter((a, i) => !(a === '--nccl' && i === argv.indexOf('--nccl'))),
    { flags: FLAGS, options: OPTIONS },
  );
  if (args.flags.has('--help')) {
    io.stdout(proveNcclHelp());
    return ExitCode.ok;
  }
  const nodes = nodeList(args.positional);
  if (nodes.length < 2) throw new UsageError(t('prove --nccl needs two or more nodes'));
  const options = ncclOptions(args);
  const nccl = readNcclAssumptions(args.options.get('--nccl'), args.lists.get('--nccl-env') ?? []);
  if (typeof nccl === 'string') throw new UsageError(nccl);
  const via = args.options.get('--via') ?? null;
  const prompts = cliPrompts({ batch: args.flags.has('--batch'), notice: io.stderr });
  const reach = { prompts, configFile: args.options.get('-F') };
  try {
    const proven = await whileInterruptible(async (signal): Promise<{ report: NcclProofReport; user: string | null } | number> => {
      const use: UseConnection = async (d, jump, work) => {
        const conn = await openSsh(d, jump === null ? reach : throughJump(reach, d, jump), signal);
        try {
          return await work(conn);
        } finally {
          conn.close();
        }
      };
      try {
        return await withNcclNodes({ nodes, via, options, nccl, signal, use }, async (reached) => {
          io.stderr(`gdr-doctor: ${t('{0} nodes diagnosed; launching nccl-tests', reached.nodes.length)}\n`);
          const report = await runNcclProof({ ...reached, via, options, nccl, signal, confirmBusy: busyConfirmation(args, io) });
          return { report, user: reached.user };
        });
      } catch (e) {
        io.stderr(e instanceof ConnectError ? cannotReachLine(e.host, e) : `gdr-doctor: ${errorText(e)}\n`);
        return ProveExit.unreachable;
      }
    });
    return typeof proven === 'number' ? proven : finish(proven.report, proven.user, args.flags.has('--json'), io);
  } finally {
    prompts.close();
  }
}

/** The nodes as given, host lists such as `gpu[01-04]` expanded as pdsh writes them. */
function nodeList(given: readonly string[]): string[] {
  try {
    return [...new Set(given.flatMap((g) => expandHostList(g)))];
  } catch (e) {
    throw new UsageError(errorText(e));
  }
}

function finish(report: NcclProofReport, user: string | null, json: boolean, io: CliIo): number {
  try {
    const logged = appendNcclProofAudit(report, user);
    if (logged) io.stderr(`gdr-doctor: ${t('recorded in {0}', logged)}\n`);
  } catch (e) {
    io.stderr(`gdr-doctor: ${t('could not append to the audit log: {0}', errorText(e))}\n`);
  }
  io.stdout(json ? jsonText(report) : formatNcclProof(report));
  if (report.status === 'refused') return ProveExit.refused;
  if (report.status === 'cancelled') return ProveExit.interrupted;
  return report.status === 'measured' && report.verdict?.tone === 'ok' ? ExitCode.ok : ProveExit.failed;
}
