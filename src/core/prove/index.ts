// A proof of GPUDirect RDMA on diagnosed hosts (docs/perftest.md): preconditions first (nothing runs
// when one fails), the GPUs busy asked about, then each measurement in order through an executor
// (direct SSH, or one Slurm step through a login node), and a verdict per GPU. Pure orchestration:
// reaching the hosts is the executor's and the caller's business.
import { DiagnosedHost } from './endpoints';
import { explanations, gpuVerdict } from './verdict';
import { modeOutcome, SideRuns } from './outcome';
import { Measurement, planProof, PlannedGpu, ProvePlan } from './plan';
import { BusyGpu, checkPreconditions, Preconditions } from './preconditions';
import { GpuProof, ModeOutcome, ProofReport, ProveMode, ProveOptions } from './types';

export type { DiagnosedHost } from './endpoints';
export type { BusyGpu } from './preconditions';
export { busyText } from './preconditions';
export type { GpuProof, ModeOutcome, ProofReport, ProveEndpoint, ProveMode, ProveOptions, Tone } from './types';
export { DEFAULT_PROVE_OPTIONS, PROVE_MODES } from './types';
export { PROVE_CHECK_COMMANDS } from './checks';

/** Runs the measurements in order; `done` after each; stops early when the signal aborts. */
export type Executor = (
  measurements: readonly Measurement[],
  done: (m: Measurement, runs: SideRuns) => void,
  signal?: AbortSignal,
) => Promise<void>;

export interface ProofInput {
  /** The measured host, and the peer for a two-host proof. */
  readonly host: DiagnosedHost;
  readonly peer: DiagnosedHost | null;
  readonly via?: string | null;
  readonly options: ProveOptions;
  readonly execute: Executor;
  /** Asked when GPUs to be measured have processes on them; false: nothing runs. */
  readonly confirmBusy: (busy: readonly BusyGpu[]) => Promise<boolean>;
  readonly signal?: AbortSignal;
  /** After each measurement: how many of how many, and which. */
  readonly onProgress?: (done: number, total: number, what: string) => void;
  readonly now?: () => Date;
}

export async function runProof(input: ProofInput): Promise<ProofReport> {
  const now = input.now ?? (() => new Date());
  const started = now();
  const hosts = input.peer ? [input.host, input.peer] : [input.host];
  const modes = input.options.modes;
  const gpusOf = (h: DiagnosedHost) =>
    h.diagnosis.pairs
      .map((p) => Number(p.gpu.replace(/^GPU/, '')))
      .filter((i) => input.options.gpus === null || input.options.gpus.includes(i));
  const pre = checkPreconditions(hosts, modes, gpusOf);
  const result = (status: ProofReport['status'], refusals: string[], plan: ProvePlan | null, gpus: GpuProof[]): ProofReport => ({
    host: input.host.host,
    peer: input.peer?.host ?? null,
    via: input.via ?? null,
    startedAt: started.toISOString(),
    durationMs: now().getTime() - started.getTime(),
    options: input.options,
    status,
    refusals,
    skipped: plan?.skipped ?? [],
    gpus,
  });
  if (pre.refusals.length > 0) return result('refused', pre.refusals, null, []);
  const plan = planProof(
    input.host,
    input.peer,
    input.options,
    modes.filter((m) => !pre.skippedModes.has(m)),
    pre.checks,
  );
  if (plan.gpus.length === 0)
    return result('refused', [`nothing to measure: ${plan.skipped.join('; ') || 'no GPU with an RDMA NIC'}`], plan, []);
  if (pre.busy.length > 0 && !(await input.confirmBusy(pre.busy)))
    return result('refused', ['not measured: GPUs are busy and the measurement was not confirmed'], plan, []);
  const runs = new Map<string, SideRuns>();
  await input.execute(
    plan.measurements,
    (m, r) => {
      runs.set(m.id, r);
      input.onProgress?.(runs.size, plan.measurements.length, `${m.gpu} ${m.mode}`);
    },
    input.signal,
  );
  const gpus = plan.gpus.map((g) => gpuProof(g, plan, runs, pre, hosts, input.signal?.aborted === true, input.options.sizeBytes));
  const status = input.signal?.aborted ? 'cancelled' : [...runs.values()].some((r) => r.stopped === 'timed-out') ? 'timed-out' : 'measured';
  return result(status, [], plan, gpus);
}

function gpuProof(
  g: PlannedGpu,
  plan: ProvePlan,
  runs: ReadonlyMap<string, SideRuns>,
  pre: Preconditions,
  hosts: readonly DiagnosedHost[],
  cancelled: boolean,
  sizeBytes: number,
): GpuProof {
  const modes: ModeOutcome[] = [];
  for (const [mode, why] of pre.skippedModes) modes.push(skippedOutcome(mode, why));
  for (const [mode, id] of g.measurementOf) {
    const m = plan.measurements.find((x) => x.id === id) as Measurement;
    const r = runs.get(id);
    const outcome = r
      ? modeOutcome(m, r, () => explanations(mode, hosts))
      : cancelled
        ? { ...skippedOutcome(mode, 'not run: cancelled before it started'), status: 'cancelled' as const }
        : skippedOutcome(mode, 'not run');
    modes.push(m.gpu === g.gpu ? outcome : { ...outcome, sharedFrom: m.gpu });
  }
  modes.sort((a, b) => ORDER.indexOf(a.mode) - ORDER.indexOf(b.mode));
  return {
    gpu: g.gpu,
    client: g.client,
    server: g.server,
    loopback: g.loopback,
    notes: g.notes,
    modes,
    ...gpuVerdict(modes, hosts, sizeBytes),
  };
}

const ORDER: readonly ProveMode[] = ['host', 'peermem', 'dmabuf'];

function skippedOutcome(mode: ProveMode, reason: string): ModeOutcome {
  return {
    mode,
    status: 'skipped',
    gbps: null,
    lineRateGbps: null,
    ratio: null,
    reason,
    explainedBy: [],
    command: null,
    client: null,
    server: null,
  };
}
