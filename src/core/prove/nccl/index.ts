// A proof with NCCL itself (docs/nccl-tests.md): preconditions on the diagnosed nodes (nothing runs when
// one fails), busy GPUs asked about, nccl-tests launched across the nodes, its table and NCCL's log read,
// and one verdict: bus bandwidth against the NICs, GPUDirect RDMA per GPU against the prediction. Pure
// orchestration: the caller reaches the nodes and gives the shell the launcher runs on.
import type { NcclAssumptions } from '../../diagnosis';
import { ncclVerdict } from '../../ncclTests/verdict';
import type { ProveShell } from '../direct';
import { newRunTag } from '../direct';
import type { DiagnosedHost } from '../endpoints';
import type { BusyGpu } from '../preconditions';
import { launchLine, NcclLaunch } from './command';
import { readNcclTestsCheck } from './check';
import { checkNcclOptions, NcclProveOptions } from './options';
import { checkNcclPreconditions } from './preconditions';
import { launchNccl, NcclLaunchResult } from './run';
import type { NcclProofReport } from './types';
import { t } from '../../l10n';

export type { NcclProofReport } from './types';
export { DEFAULT_NCCL_PROVE_OPTIONS, NCCL_OPS } from './options';
export type { NcclProveOp, NcclProveOptions, NcclLauncher } from './options';

export interface NcclProofInput {
  /** The diagnosed nodes (probed with the nccl-tests check), rank 0's first. */
  readonly nodes: readonly DiagnosedHost[];
  /** How the launcher names each node (Slurm's names, SSH host names); default the nodes' own names. */
  readonly launcherNames?: readonly string[];
  readonly via: string | null;
  readonly options: NcclProveOptions;
  readonly nccl: NcclAssumptions;
  /** Where the launch script runs: the login node, or the first node (mpirun there). */
  readonly launcher: ProveShell;
  readonly launcherIsFirstNode: boolean;
  readonly confirmBusy: (busy: readonly BusyGpu[]) => Promise<boolean>;
  readonly signal?: AbortSignal;
  /** The run's output as it arrives. */
  readonly onOutput?: (text: string) => void;
  readonly now?: () => Date;
  readonly tag?: string;
}

type Outcome = Omit<NcclProofReport, 'kind' | 'nodes' | 'via' | 'startedAt' | 'options' | 'durationMs'>;

const EMPTY = { command: null, launcherExitCode: null, result: null, log: null, verdict: null, outputTail: null } as const;

export async function runNcclProof(input: NcclProofInput): Promise<NcclProofReport> {
  const now = input.now ?? (() => new Date());
  const started = now();
  const outcome = await prove(input);
  return {
    kind: 'nccl',
    nodes: input.nodes.map((n) => n.host),
    via: input.via,
    startedAt: started.toISOString(),
    options: input.options,
    durationMs: now().getTime() - started.getTime(),
    ...outcome,
  };
}

async function prove(input: NcclProofInput): Promise<Outcome> {
  const o = input.options;
  const mpirunHere = !input.launcherIsFirstNode || (readNcclTestsCheck(input.nodes[0].report)?.mpirun ?? null) !== null;
  const pre = checkNcclPreconditions(input.nodes, o, mpirunHere);
  const refused = (refusals: string[], command: string | null = null): Outcome => ({
    ...EMPTY,
    gpusPerNode: pre.gpusPerNode,
    command,
    status: 'refused',
    refusals,
  });
  const refusals = [
    ...checkNcclOptions(o),
    ...(input.nodes.length < 2 ? [t('a proof with NCCL needs two or more nodes')] : []),
    ...pre.refusals,
  ];
  if (refusals.length > 0 || pre.binary === null || pre.gpusPerNode === null) return refused(refusals);
  if (pre.busy.length > 0 && !(await input.confirmBusy(pre.busy)))
    return refused([t('not run: GPUs are busy and the run was not confirmed')]);
  const launch: NcclLaunch = {
    tag: input.tag ?? newRunTag(),
    nodes: input.launcherNames ?? input.nodes.map((n) => n.host),
    gpusPerNode: pre.gpusPerNode,
    binary: pre.binary,
    json: pre.json,
    launcherIsFirstNode: input.launcherIsFirstNode,
    options: o,
  };
  const { result } = await launchNccl(input.launcher, launch, { signal: input.signal, onOutput: input.onOutput });
  const command = launchLine(launch);
  if (result.outcome === 'missing-launcher')
    return refused([t('{0} is not installed on the launcher host: nothing ran', o.launcher === 'slurm' ? 'srun' : 'mpirun')], command);
  return { gpusPerNode: pre.gpusPerNode, command, ...ranOutcome(input, result) };
}

/** What a run that happened gave: its status, nccl-tests' result, NCCL's log in brief, the verdict. */
function ranOutcome(input: NcclProofInput, result: NcclLaunchResult): Omit<Outcome, 'gpusPerNode' | 'command'> {
  const rows = result.run?.results.length ?? 0;
  const status: NcclProofReport['status'] =
    result.outcome === 'cancelled' ? 'cancelled' : result.outcome === 'timed-out' ? 'timed-out' : rows > 0 ? 'measured' : 'failed';
  const algorithm = input.options.ring ? 'ring' : 'default';
  const verdict = result.run
    ? ncclVerdict({ run: result.run, log: result.log, nodes: input.nodes, nccl: input.nccl, algorithm, op: input.options.op })
    : null;
  const log = result.log;
  return {
    status,
    refusals: [],
    launcherExitCode: result.exitCode,
    result: result.run,
    log: log ? { ncclVersion: log.ncclVersion, verdict: log.verdict, netConnections: log.netConnections } : null,
    verdict,
    outputTail: status === 'measured' ? null : result.outputTail.slice(-8192) || result.tableError,
  };
}
