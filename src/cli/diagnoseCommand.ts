// `gdr-doctor diagnose`: probe hosts (over SSH, this machine, a saved folder, or the demo host)
// and report what was collected, the findings, the GPU↔NIC verdicts and the suggested environment.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diagnose } from '../core/diagnosis';
import { diagnosisJson } from '../core/report/diagnosisReport';
import { DEMO_HOST_NAME, demoRunner } from '../core/probe/demoHost';
import { localRunner } from '../core/probe/localRunner';
import { collectScript, offlineRunner } from '../core/probe/offlineRunner';
import { ProbeReport, ProbeRunner, runProbe } from '../core/probe/runProbe';
import { sshRunner } from '../core/probe/sshRunner';
import { connect } from '../core/ssh/connect';
import { parseDestination } from '../core/ssh/destination';
import { ConnectError } from '../core/ssh/errors';
import { SshPrompts } from '../core/ssh/prompts';
import { resolveTarget } from '../core/ssh/resolveTarget';
import { SshTarget } from '../core/ssh/sshConfig';
import { parseArgs, UsageError } from './args';
import { formatProbeReport } from './diagnoseReport';
import { CliIo, ExitCode } from './io';
import { cliPrompts } from './terminalPrompts';

export const DIAGNOSE_HELP = `Usage: gdr-doctor diagnose <destination...> [-F FILE] [--json] [--timeout S] [--batch]
       gdr-doctor diagnose --demo | --local | --from DIR [--json]

Collects every GPUDirect RDMA diagnostic of a host in one round trip and reports it.
Destinations are written as for ssh: host, user@host, ssh://user@host:port; they are resolved
through ~/.ssh/config (or -F FILE) and host keys are checked against known_hosts first. On a
terminal, gdr-doctor asks as ssh does (unknown host key, passphrase, password, 2FA prompts);
without one (CI, pipes) or with --batch it never asks: use keys or an agent, and hosts already
in known_hosts (or StrictHostKeyChecking accept-new).

  --demo       a built-in GPU node replayed from real recorded outputs (no network)
  --local      this machine
  --from DIR   a folder of saved outputs (<command id>.txt), as the collect script saves them
  --print-collect-script
               print a POSIX sh script that saves those outputs on a host without gdr-doctor:
               sh gdr-doctor-collect.sh [DIR]   (read-only; needs no root)
  --json       one JSON report per host
  --timeout S  deadline for the whole probe of a host
  --batch      never ask a question, even on a terminal (every question is answered No)

Exit status: 0 collected; 3 a host was unreachable or refused; 64 bad usage.
`;

/** Where the demo host's recorded outputs live: the fixtures of this checkout. */
function demoDir(): string {
  const candidates = [path.join(__dirname, '../test/fixtures'), path.join(__dirname, '../../test/fixtures')];
  return candidates.find((d) => fs.existsSync(d)) ?? candidates[0];
}

interface Job {
  readonly host: string;
  readonly run: (deadlineMs?: number) => Promise<{ report: ProbeReport; target?: SshTarget }>;
}

export async function runDiagnose(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { flags: ['--print-collect-script', '--json', '--demo', '--local', '--batch'], options: ['-F', '--from', '--timeout'] });
  if (args.flags.has('--help')) {
    io.stdout(DIAGNOSE_HELP);
    return ExitCode.ok;
  }
  if (args.flags.has('--print-collect-script')) {
    io.stdout(collectScript());
    return ExitCode.ok;
  }
  const timeout = args.options.get('--timeout');
  const deadlineMs = timeout === undefined ? undefined : Number(timeout) * 1000;
  if (deadlineMs !== undefined && !(deadlineMs > 0)) throw new UsageError('--timeout needs a number of seconds');
  const prompts = cliPrompts({ batch: args.flags.has('--batch'), notice: io.stderr });
  const jobs = planJobs(args.positional, args.flags, args.options, prompts);
  // Hosts are probed at the same time; reports are printed in the order they were given.
  const outcomes = await Promise.allSettled(jobs.map((job) => job.run(deadlineMs)));
  prompts.close(); // a question whose connection failed meanwhile must not keep waiting
  let status: number = ExitCode.ok;
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') {
      const { report, target } = outcome.value;
      io.stdout(args.flags.has('--json') ? `${JSON.stringify(toJson(report, target), null, 2)}\n` : `${formatProbeReport(report)}\n`);
      return;
    }
    const host = jobs[i].host;
    const err = outcome.reason instanceof ConnectError ? outcome.reason : new ConnectError(host, 'protocol', String(outcome.reason));
    io.stderr(`gdr-doctor: ${host}: cannot reach (${err.step}): ${err.message}\n`);
    status = 3;
  });
  return status;
}

function planJobs(destinations: readonly string[], flags: ReadonlySet<string>, options: ReadonlyMap<string, string>, prompts: SshPrompts): Job[] {
  const from = options.get('--from');
  const modes = [flags.has('--demo'), flags.has('--local'), from !== undefined, destinations.length > 0].filter(Boolean).length;
  if (modes !== 1) throw new UsageError('give destinations, or exactly one of --demo, --local, --from DIR');
  const probe = (host: string, runner: ProbeRunner) => async (deadlineMs?: number) => ({ report: await runProbe(runner, { host, deadlineMs }) });
  if (flags.has('--demo')) return [{ host: DEMO_HOST_NAME, run: probe(DEMO_HOST_NAME, demoRunner(demoDir())) }];
  if (flags.has('--local')) return [{ host: 'localhost', run: probe('localhost', localRunner()) }];
  if (from !== undefined) {
    if (!fs.existsSync(from)) throw new UsageError(`--from: no folder ${JSON.stringify(from)}`);
    return [{ host: from, run: probe(from, offlineRunner(from)) }];
  }
  return destinations.map((d) => sshJob(d, options.get('-F'), prompts));
}

function sshJob(destination: string, configFile: string | undefined, prompts: SshPrompts): Job {
  const dest = parseDestination(destination);
  return {
    host: destination,
    run: async (deadlineMs) => {
      const target = await resolveTarget(dest, configFile);
      const conn = await connect(target, { prompts, resolveHop: (hop) => resolveTarget(parseDestination(hop), configFile) });
      try {
        return { report: await runProbe(sshRunner(conn.client), { host: destination, deadlineMs }), target };
      } finally {
        conn.close();
      }
    },
  };
}

function toJson(report: ProbeReport, target?: SshTarget) {
  return diagnosisJson(report, diagnose(report), target);
}
