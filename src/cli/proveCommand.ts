// `gdr-doctor prove <host> [<peer>]`: measure GPUDirect RDMA per GPU↔NIC with perftest's ib_write_bw
// (docs/perftest.md), over the same SSH trust as diagnose, or through a login node with Slurm.
import { readNcclAssumptions } from '../core/diagnosis';
import { openSsh } from '../core/ssh/openSsh';
import { DEFAULT_PROVE_OPTIONS, ProofReport, PROVE_MODES, ProveMode, ProveOptions, runProof } from '../core/prove';
import { appendProofAudit } from '../core/prove/audit';
import { directExecutor, newRunTag, sshProveShell } from '../core/prove/direct';
import { probeForProof } from '../core/prove/probe';
import { sshRunner } from '../core/transport';
import { SshConnection } from '../core/ssh/connect';
import { errorText } from '../core/errorText';
import { parseArgs, ParsedArgs, UsageError } from './args';
import { whileInterruptible } from './interrupt';
import { CliIo, ExitCode } from './io';
import { LINE_RATE_FLOOR, pct } from '../core/prove/verdict';
import { busyConfirmation } from './proveBusy';
import { ProveCliContext, ProveExit, Proven } from './proveContext';
import { isNcclMode, runProveNccl } from './proveNccl';
import { formatProof } from '../core/prove/text';
import { proveViaSlurm } from './proveSlurm';
import { cliPrompts } from './terminalPrompts';
import { cannotReachLine } from './unreachable';
import { jsonText } from './visible';
import { t } from '../core/l10n';
import { emitMetrics, readHealthOutput } from './healthOutput';
import { formatExposition } from '../core/metrics/exposition';
import { proofFamilies } from '../core/metrics/proofMetrics';

/** What node_exporter's textfile collector reads from `prove --textfile-dir`, beside diagnose's gdr_doctor.prom. */
const PROOF_TEXTFILE_NAME = 'gdr_doctor_proof.prom';

export const proveHelp = (): string =>
  t(
    `Usage: gdr-doctor prove <host> [<peer-host>] [--gpu N|all] [--mode host,peermem,dmabuf]
                        [--size BYTES] [--duration S] [--timeout S] [--json] [-F FILE] [--batch] [--yes]
       gdr-doctor prove <node> <peer-node> --via LOGIN [--partition P] [options as above]

Measures GPUDirect RDMA per GPU and its NIC (the NIC NCCL gives it) with perftest's ib_write_bw, in
this order: host memory (the yardstick), GPU memory through the peer-memory module, GPU memory
through dma-buf (--use_cuda_dmabuf); the GPU named by its PCI address (--use_cuda_bus_id, where
perftest has it) and checked against perftest's own "PCIe address" line. It reports each against the port's
line rate (ibv_devinfo's active width × speed) and host memory. One host: between two of its ports
(or one port, looped back in the HCA); two hosts: the server on the peer, the client here. Each side
is pinned to its NIC's NUMA node (numactl), runs under a deadline and is stopped on Ctrl-C: nothing
is left running. Nothing is installed or changed; what ran is appended to the audit log
($GDR_DOCTOR_AUDIT_LOG, else $XDG_STATE_HOME/gdr-doctor/audit.log, else ~/.local/state/gdr-doctor/audit.log).

Checked first, and nothing runs when one fails: ib_write_bw installed, built with CUDA for the GPU
modes (its --help lists --use_cuda), an active RDMA port. GPUs with processes on them are asked
about on the terminal (this test loads the link and the GPU); --yes measures without asking.

  --gpu N|all        the GPU(s) to measure: an index, a comma list, or all (default)
  --mode LIST        modes to run, of host,peermem,dmabuf (default all; run in that order)
  --size BYTES       message size (default {0})
  --duration S       seconds per mode and GPU (default {1})
  --timeout S        deadline of each side of one measurement (default: the duration + 45 s for CUDA
                     and the connection); perftest is stopped there
  --json             the proof as JSON on stdout
  --format F         text (default), json, or prometheus (gdr_doctor_proof_gbps and its ratio to the
                     line rate, per GPU, NIC port and mode)
  --textfile-dir DIR also write those metrics to DIR/gdr_doctor_proof.prom atomically, for
                     node_exporter's textfile collector
  -F FILE            ssh_config to use instead of ~/.ssh/config
  --batch            never ask anything (busy GPUs are then not measured without --yes)
  --yes              measure busy GPUs without asking
  --via LOGIN        reach the two nodes through LOGIN, as one srun step on both (Slurm)
  --partition P      the Slurm partition of the nodes
  --nccl VERSION, --nccl-env NAME=VALUE
                     the NCCL release and environment whose NIC choice to follow (see diagnose)

"Works" needs {2} of the port's line rate at 1 MiB messages or more (ConnectX-6/7 reach 90–97 %);
below it the verdict is "works, but at N % of line rate" with what to check.

Exit status: 0 GPUDirect RDMA worked at or above the floor on every GPU measured; 1 a GPU's every GPU
mode failed, or a measurement reached its deadline; 2 it moved data below the floor on a GPU (or the
floor could not be checked: no line rate, messages under 1 MiB); 3 a host was unreachable; 4 refused
(a precondition failed, or busy GPUs not confirmed): nothing ran; 64 bad usage; 73 the --textfile-dir
file could not be written; 130 interrupted (Ctrl-C).
`,
    DEFAULT_PROVE_OPTIONS.sizeBytes,
    DEFAULT_PROVE_OPTIONS.durationS,
    pct(LINE_RATE_FLOOR),
  ) + t('With NCCL itself across nodes (nccl-tests, its bus bandwidth against the NICs): gdr-doctor prove --nccl --help\n');

const FLAGS = ['--json', '--batch', '--yes'];
const OPTIONS = [
  '--gpu',
  '--mode',
  '--size',
  '--duration',
  '--timeout',
  '-F',
  '--via',
  '--partition',
  '--nccl',
  '--nccl-env',
  '--format',
  '--textfile-dir',
];

export async function runProve(argv: readonly string[], io: CliIo): Promise<number> {
  if (isNcclMode(argv)) return runProveNccl(argv, io);
  const args = parseArgs(argv, { flags: FLAGS, options: OPTIONS });
  if (args.flags.has('--help')) {
    io.stdout(proveHelp());
    return ExitCode.ok;
  }
  const [host, peer, ...extra] = args.positional;
  if (host === undefined || extra.length > 0) throw new UsageError(t('give one host, or a host and its peer'));
  const via = args.options.get('--via');
  if (via !== undefined && peer === undefined) throw new UsageError(t('--via needs two nodes: the host and its peer'));
  if (via === undefined && args.options.has('--partition')) throw new UsageError(t('--partition goes with --via LOGIN'));
  const nccl = readNcclAssumptions(args.options.get('--nccl'), args.lists.get('--nccl-env') ?? []);
  if (typeof nccl === 'string') throw new UsageError(nccl);
  const prompts = cliPrompts({ batch: args.flags.has('--batch'), notice: io.stderr });
  const ctx: ProveCliContext = {
    io,
    reach: { prompts, configFile: args.options.get('-F') },
    options: proveOptions(args),
    nccl,
    output: readHealthOutput(args.flags, args.options, ['text', 'json', 'prometheus']),
    confirmBusy: busyConfirmation(args, io),
  };
  try {
    const report =
      via !== undefined
        ? await whileInterruptible((signal) => proveViaSlurm(via, host, peer as string, args.options.get('--partition'), ctx, signal))
        : await whileInterruptible((signal) => proveDirect(host, peer ?? null, ctx, signal));
    return typeof report === 'number' ? report : finish(report.report, report.user, ctx);
  } finally {
    prompts.close();
  }
}

function proveOptions(args: ParsedArgs): ProveOptions {
  const o = args.options;
  return {
    gpus: gpuOption(o.get('--gpu')),
    modes: modeOption(o.get('--mode')),
    sizeBytes: intOption(o, '--size', 1, 2 ** 31) ?? DEFAULT_PROVE_OPTIONS.sizeBytes,
    durationS: intOption(o, '--duration', 1, 3600) ?? DEFAULT_PROVE_OPTIONS.durationS,
    ...(o.has('--timeout') ? { timeoutS: intOption(o, '--timeout', 1, 7200) } : {}),
  };
}

function gpuOption(text: string | undefined): number[] | null {
  if (text === undefined || text === 'all') return null;
  if (!/^\d{1,4}(,\d{1,4})*$/.test(text))
    throw new UsageError(t('--gpu needs an index, a comma list of them, or all; got {0}', JSON.stringify(text)));
  return [...new Set(text.split(',').map(Number))];
}

function modeOption(text: string | undefined): ProveMode[] {
  if (text === undefined) return [...PROVE_MODES];
  const asked = text.split(',').map((m) => m.trim());
  const bad = asked.filter((m) => !(PROVE_MODES as readonly string[]).includes(m));
  if (bad.length > 0 || asked.length === 0)
    throw new UsageError(t('--mode takes {0}; got {1}', PROVE_MODES.join(', '), JSON.stringify(text)));
  return PROVE_MODES.filter((m) => asked.includes(m));
}

function intOption(options: ReadonlyMap<string, string>, name: string, min: number, max: number): number | undefined {
  const text = options.get(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(t('{0} needs a whole number from {1} to {2}', name, min, max));
  return n;
}

/** Over direct SSH: connect, probe both hosts in one round trip each, prove. */
async function proveDirect(host: string, peer: string | null, ctx: ProveCliContext, signal: AbortSignal): Promise<Proven | number> {
  const conns: SshConnection[] = [];
  try {
    for (const h of peer ? [host, peer] : [host]) {
      const conn = await openSsh(h, ctx.reach, signal).catch((e: unknown) => void ctx.io.stderr(cannotReachLine(h, e)));
      if (conn === undefined) return ProveExit.unreachable;
      conns.push(conn);
    }
    const names = peer ? [host, peer] : [host];
    const diagnosed = await Promise.all(conns.map((c, i) => probeForProof(sshRunner(c.client, signal), names[i], ctx.nccl)));
    const shells = conns.map((c, i) => sshProveShell(c.client, names[i], c.target.hostname));
    const report = await runProof({
      host: diagnosed[0],
      peer: diagnosed[1] ?? null,
      options: ctx.options,
      signal,
      confirmBusy: ctx.confirmBusy,
      execute: directExecutor(shells[0], shells[1] ?? null, {
        tag: newRunTag(),
        sizeBytes: ctx.options.sizeBytes,
        durationS: ctx.options.durationS,
      }),
      onProgress: (done, total, what) => ctx.io.stderr(`gdr-doctor: ${t('{0}/{1} measured ({2})', done, total, what)}\n`),
    });
    return { report, user: conns[0].target.user };
  } finally {
    for (const c of conns) c.close();
  }
}

function finish(report: ProofReport, user: string | null, ctx: ProveCliContext): number {
  try {
    const logged = appendProofAudit(report, user);
    if (logged) ctx.io.stderr(`gdr-doctor: ${t('recorded in {0}', logged)}\n`);
  } catch (e) {
    ctx.io.stderr(`gdr-doctor: ${t('could not append to the audit log: {0}', errorText(e))}\n`);
  }
  const failed = emitMetrics(formatExposition(proofFamilies(report)), PROOF_TEXTFILE_NAME, ctx.output, ctx.io);
  if (ctx.output.format === 'json') ctx.io.stdout(jsonText(report));
  if (ctx.output.format === 'text') ctx.io.stdout(formatProof(report));
  if (failed !== undefined) return failed;
  if (report.status === 'refused') return ProveExit.refused;
  if (report.status === 'cancelled') return ProveExit.interrupted;
  if (report.status !== 'measured' || report.gpus.some((g) => g.tone === 'error')) return ProveExit.failed;
  // Bytes moved, but not shown at line rate: below the floor, or not checkable (docs/perftest.md §4).
  if (report.gpus.some((g) => g.floor !== undefined && g.floor !== 'met')) return ProveExit.belowFloor;
  return report.gpus.every((g) => g.tone === 'ok' || g.tone === 'warning') ? ExitCode.ok : ProveExit.failed;
}
