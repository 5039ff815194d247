// `gdr-doctor diagnose`: probe hosts (over SSH, this machine, a saved folder, or the demo host)
// and report what was collected, the findings, the GPU↔NIC verdicts and the suggested environment.
// One host is reported in full; many hosts (host lists, a hosts file, a login node) as a fleet.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NcclAssumptions, readJobGpus, readNcclAssumptions } from '../core/diagnosis';
import { NCCL_ENV_NAMES } from '../core/topology/nccl/env';
import { NEWEST_NCCL, formatNcclVersion } from '../core/topology/nccl/version';
import { DEFAULT_FLEET_CONCURRENCY } from '../core/fleet/fanout';
import { diagnoseHost } from '../core/host/diagnoseHost';
import {
  collectScript,
  DemoHost,
  HostSource,
  hostName,
  RELAY_TOOLS,
  relayToolsWithCommands,
  savedOutputNames,
  savedOutputsIn,
} from '../core/transport';
import { diagnosisJson } from '../core/report/diagnosisReport';
import { DestinationError, parseDestination } from '../core/ssh/destination';
import type { SshReachOptions } from '../core/ssh/openSsh';
import { parseArgs, UsageError } from './args';
import { formatProbeReport } from './diagnoseReport';
import { countOption, expandDestinations, secondsOption } from './fleetArgs';
import { runFleet, runRelay } from './fleetCommand';
import { KUBE_OPTIONS, runKube } from './kubeCommand';
import { FLEET_INCOMPLETE } from './fleetOutput';
import { CliIo, ExitCode } from './io';
import { demoDir } from './demoDir';
import { cliPrompts } from './terminalPrompts';
import { cannotReachLine } from './unreachable';
import { jsonText } from './visible';
import { emitHealth, HealthOutput, hostLabelsFor, readHealthOutput } from './healthOutput';
import { hostSnapshot, unreachedSnapshot } from '../core/watch/snapshot';
import { NPD_UNKNOWN } from '../core/metrics/npd';
import { errorText } from '../core/errorText';
import { t } from '../core/l10n';

export const diagnoseHelp = (): string =>
  t(
    `Usage: gdr-doctor diagnose <destination...> [-F FILE] [--json] [--timeout S] [--batch]
       gdr-doctor diagnose <hosts...> [--hosts-file FILE] [-f N] [--timeout S] [--deadline S] [--each] [--json]
       gdr-doctor diagnose [<nodes...>] --via LOGIN [--with {3}] [--partition P]
                           [--nodes N | -w LIST] [--jobid J] [--json]
       gdr-doctor diagnose --demo | --local | --from DIR [--json]
       gdr-doctor diagnose --kube [--context NAME] [--kubeconfig FILE] [-l SELECTOR] [<nodes...>]
                           [--debug-image IMAGE] [-f N] [--deadline S] [--json]

Collects every GPUDirect RDMA diagnostic of a host in one round trip and reports it.
Destinations are written as for ssh: host, user@host, ssh://user@host:port; they are resolved
through ~/.ssh/config (or -F FILE) and host keys are checked against known_hosts first. On a
terminal, gdr-doctor asks as ssh does (unknown host key, passphrase, password, 2FA prompts);
without one (CI, pipes) or with --batch it never asks: use keys or an agent, and hosts already
in known_hosts (or StrictHostKeyChecking accept-new).

  --demo       a built-in 8-GPU node replayed from recorded outputs (no network): nvidia_peermem
               not loaded; try gdr-doctor fix --demo load-peermem
  --local      this machine
  --from DIR   a folder of saved outputs (<command id>.txt), as the collect script saves them
  --print-collect-script
               print a POSIX sh script that saves those outputs on a host without gdr-doctor:
               sh gdr-doctor-collect.sh [DIR]   (read-only; needs no root)
  --json       one JSON report per host (several hosts: one document, reports and groups)
  --format F   text (default), json, prometheus (metrics in Prometheus' text format: gdr_doctor_up,
               gdr_doctor_findings, gdr_doctor_gpu_gdr, ...) or npd (one line and the exit status
               of Node Problem Detector's custom-plugin contract: 0 OK, 1 problem, 2 unknown)
  --textfile-dir DIR
               also write the metrics to DIR/gdr_doctor.prom atomically, for node_exporter's
               textfile collector; stdout then gets only what --format asks for
  --timeout S  deadline for one host (several hosts: connect and probe together)
  --batch      never ask a question, even on a terminal (every question is answered No)
  --nccl VERSION
               the NCCL release your jobs use (2.21, 2.21.5): verdicts follow its rules
               (PXN from 2.12, /sys/module registration from 2.23, C2C from 2.27…);
               default: the newest release modelled ({0})
  --nccl-env NAME=VALUE
               an NCCL_* variable your jobs set, read as NCCL reads it; repeatable:
               {1}
  --gpus LIST  the GPUs of your job on each host, by nvidia-smi index (0,1,2,3 or 0-3):
               NCCL's topology then holds only those (PXN, the one-GPU read rule);
               default: every GPU of the host
  --gpus-per-node N
               a job of N ranks per node on GPUs 0 … N-1

Many hosts: a destination may be a host list as pdsh and ClusterShell write them: gpu[01-64],
node-[1-4,7], gdr@gpu[1-2], a,b,c. Each host gets its own SSH connection; the summary groups
hosts with the same findings, outliers first (on a terminal, stderr counts hosts done).
  --hosts-file FILE  more hosts, one list per line, # comments ("-": standard input)
  -f, --fanout N     hosts diagnosed at the same time (default {2}, as pdsh)
  --deadline S       deadline for all hosts; hosts not started by then end timed out
  --each             also print every host's full report after the summary

Through a login node (one SSH connection to LOGIN; the nodes need no SSH from here):
  --via LOGIN        the login node, a destination as above
  --with TOOL        {4}; default: the first of these LOGIN has (said on stderr)
  -w LIST            the nodes, a host list (or give them as destinations); pdsh and clush need it
  --partition P, --nodes N, --jobid J
                     Slurm: a partition, how many nodes, or the nodes of an existing allocation
  -f N and --deadline S (else --timeout S) apply to the whole run

A Kubernetes cluster, through your own kubectl, kubeconfig and context (read: get/list only):
  --kube             every GPU node (nvidia.com/gpu.present=true or allocatable nvidia.com/gpu), or
                     the nodes named; each probed by kubectl exec -i into its GPU Operator driver pod
                     (nvidia-driver-ctr, entering the host with nsenter -t 1)
  --context NAME, --kubeconfig FILE, --kubectl PATH
                     as kubectl's own flags (default: kubectl on PATH, $KUBECONFIG, current context)
  -l, --selector S   only nodes with these labels
  --debug-image IMAGE
                     where no driver pod runs: kubectl debug node/N --profile=sysadmin with this image
                     (chroot /host), the debug pod deleted afterwards; without it such nodes are skipped
  -f N, --timeout S and --deadline S as for many hosts

Exit status: 0 collected (findings or not); 3 a host was unreachable, refused, or stopped by a
deadline; 64 bad usage (a bad host list names its column); 66 --from DIR holds none of the files
it reads (<command id>.txt); 73 the --textfile-dir file could not be written; 130 interrupted
(Ctrl-C: hosts still running are stopped and what was collected is printed). With --format npd:
0 OK, 1 a problem, 2 unknown (3 unreachable), as Node Problem Detector reads them.
`,
    formatNcclVersion(NEWEST_NCCL),
    NCCL_ENV_NAMES.join(', '),
    DEFAULT_FLEET_CONCURRENCY,
    RELAY_TOOLS.join('|'),
    relayToolsWithCommands(),
  );

const FLAGS = ['--print-collect-script', '--json', '--demo', '--local', '--batch', '--each', '--kube'];
const OPTIONS = [
  '-F',
  '--format',
  '--textfile-dir',
  '--from',
  '--timeout',
  '--hosts-file',
  '-f',
  '--fanout',
  '--deadline',
  '--via',
  '--with',
  '--partition',
  '--nodes',
  '-w',
  '--jobid',
  '--nccl',
  '--nccl-env',
  ...KUBE_OPTIONS,
  '--gpus',
  '--gpus-per-node',
];
/** Options that only mean something through a login node. */
const RELAY_ONLY = ['--with', '--partition', '--nodes', '-w', '--jobid'];

export async function runDiagnose(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { flags: FLAGS, options: OPTIONS });
  if (args.flags.has('--help')) {
    io.stdout(diagnoseHelp());
    return ExitCode.ok;
  }
  if (args.flags.has('--print-collect-script')) {
    io.stdout(collectScript());
    return ExitCode.ok;
  }
  const deadlineMs = secondsOption(args.options, '--timeout');
  secondsOption(args.options, '--deadline');
  countOption(args.options, '--fanout', '-f');
  const via = args.options.get('--via');
  const misplaced = RELAY_ONLY.find((o) => args.options.has(o));
  if (via === undefined && misplaced !== undefined) throw new UsageError(t('{0} goes with --via LOGIN', misplaced));
  const kube = args.flags.has('--kube');
  const kubeOnly = KUBE_OPTIONS.find((o) => args.options.has(o));
  if (!kube && kubeOnly !== undefined) throw new UsageError(t('{0} goes with --kube', kubeOnly));
  const hosts = expandDestinations([...args.positional, ...optionList(args.options, '-w')], args.options.get('--hosts-file'), io);
  for (const h of hosts) checkDestination(h);
  const nccl = readNcclAssumptions(args.options.get('--nccl'), args.lists.get('--nccl-env') ?? []);
  if (typeof nccl === 'string') throw new UsageError(nccl);
  const gpus = readJobGpus(args.options.get('--gpus'), args.options.get('--gpus-per-node'));
  if (typeof gpus === 'string') throw new UsageError(gpus);
  const job = { ...nccl, gpus };
  const health = readHealthOutput(args.flags, args.options);
  if (health.format === 'npd' && (hosts.length > 1 || via !== undefined))
    throw new UsageError(t('--format npd reports one host, as a node condition'));
  const prompts = cliPrompts({ batch: args.flags.has('--batch'), notice: io.stderr });
  try {
    const fleet = {
      io,
      reach: { prompts, configFile: args.options.get('-F') },
      options: args.options,
      stderrIsTty: process.stderr.isTTY === true,
      print: { json: health.format === 'json', each: args.flags.has('--each'), health },
      nccl: job,
    };
    if (kube) {
      if (via !== undefined || modeCount(args.flags, args.options, 0) > 0 || args.options.has('--hosts-file'))
        throw new UsageError(t('--kube diagnoses the nodes of a cluster: not with --via, --demo, --local, --from or --hosts-file'));
      return await runKube(hosts, fleet);
    }
    if (via !== undefined) {
      if (modeCount(args.flags, args.options, 0) > 0) throw new UsageError(t('--via diagnoses nodes: not with --demo, --local or --from'));
      return await runRelay(via, hosts, fleet);
    }
    if (modeCount(args.flags, args.options, hosts.length) !== 1)
      throw new UsageError(t('give destinations, or exactly one of --demo, --local, --from DIR'));
    const empty = emptyFromFolder(args.options.get('--from'));
    if (empty !== undefined) {
      io.stderr(empty);
      return ExitCode.noInput;
    }
    if (hosts.length > 1) return await runFleet(hosts, fleet);
    const source = hostSource(hosts[0], args.flags, args.options, { prompts, configFile: args.options.get('-F') });
    return await runSingle(source, { deadlineMs, nccl: job }, health, io);
  } finally {
    prompts.close(); // a question whose connection failed meanwhile must not keep waiting
  }
}

function optionList(options: ReadonlyMap<string, string>, name: string): string[] {
  const value = options.get(name);
  return value === undefined ? [] : [value];
}

/** A destination ssh could not parse is bad usage, before anything connects. */
export function checkDestination(destination: string): void {
  try {
    parseDestination(destination);
  } catch (e) {
    if (e instanceof DestinationError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * `--from DIR` on a folder with none of the files it reads: a wrong folder, not a host with nothing to
 * report. Says which files it looks for and how to make them; undefined when the folder holds any.
 */
function emptyFromFolder(dir: string | undefined): string | undefined {
  if (dir === undefined || !fs.existsSync(dir) || savedOutputsIn(dir).length > 0) return undefined;
  const inside = subfolders(dir).filter((d) => savedOutputsIn(d).length > 0);
  const noneHere = t(
    'no saved output here: it holds none of the files --from reads, one per diagnostic ({0}; each with optional .err and .rc).',
    savedOutputNames().join(', '),
  );
  const howToSave = t(
    'To save them on a host: gdr-doctor diagnose --print-collect-script > collect.sh; run `sh collect.sh out` there, copy out/ back, then: gdr-doctor diagnose --from out',
  );
  return (
    `gdr-doctor: --from ${dir}: ${noneHere}\n` +
    (inside.length > 0 ? `  ${t('These folders inside it do: {0}.', inside.join(', '))}\n` : '') +
    `  ${howToSave}\n`
  );
}

function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}

function modeCount(flags: ReadonlySet<string>, options: ReadonlyMap<string, string>, hosts: number): number {
  return [flags.has('--demo'), flags.has('--local'), options.has('--from'), hosts > 0].filter(Boolean).length;
}

/** One host, reported in full (or as metrics, or as a node condition). */
async function runSingle(
  source: HostSource,
  options: { deadlineMs?: number; nccl: NcclAssumptions },
  health: HealthOutput,
  io: CliIo,
): Promise<number> {
  const labels = hostLabelsFor(source.kind === 'local');
  const startedAt = new Date().toISOString();
  try {
    const { report, diagnosis, target } = await diagnoseHost(source, options);
    const decided = emitHealth([hostSnapshot(report, diagnosis)], labels, health, io);
    if (decided !== undefined) return decided;
    if (health.format === 'json') io.stdout(jsonText(diagnosisJson(report, diagnosis, target)));
    if (health.format === 'text') io.stdout(`${formatProbeReport(report, diagnosis)}\n`);
    return ExitCode.ok;
  } catch (e) {
    io.stderr(cannotReachLine(hostName(source), e));
    // The metrics say so too (gdr_doctor_up 0), and NPD hears "unknown".
    const decided = emitHealth([unreachedSnapshot(hostName(source), errorText(e), startedAt)], labels, health, io);
    return decided === undefined || decided === NPD_UNKNOWN ? FLEET_INCOMPLETE : decided;
  }
}

/** The one host: --demo, --local, --from DIR, or the destination (also `nccl-log --host`). */
export function hostSource(
  destination: string | undefined,
  flags: ReadonlySet<string>,
  options: ReadonlyMap<string, string>,
  reach: SshReachOptions,
): HostSource {
  const from = options.get('--from');
  if (flags.has('--demo')) return { kind: 'demo', demo: new DemoHost(demoDir()) };
  if (flags.has('--local')) return { kind: 'local' };
  if (from !== undefined) {
    if (!fs.existsSync(from)) throw new UsageError(`--from: ${t('no folder {0}', JSON.stringify(from))}`);
    return { kind: 'saved', dir: from };
  }
  return { kind: 'ssh', destination: destination ?? '', reach };
}
