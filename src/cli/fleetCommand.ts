// `gdr-doctor diagnose` over many hosts: each over its own SSH connection (fan-out), or all through
// one connection to a login node whose srun, pdsh or clush runs the probe on the nodes. Either way
// every host ends with a result, printed as one grouped summary. Ctrl-C stops the hosts still
// running (their remote commands too) and prints what was collected.
import type { NcclAssumptions } from '../core/diagnosis';
import { DEFAULT_FLEET_CONCURRENCY, fanOut, sshProbeHost } from '../core/fleet/fanout';
import { foldHostList } from '../core/parsers/hostlist';
import {
  checkRelayOptions,
  detectRelayTools,
  diagnoseViaLoginNode,
  preferredRelayTool,
  RELAY_COMMANDS,
  RelayOptions,
  RelaySpill,
  RelayTool,
} from '../core/fleet/relay';
import { openSsh, SshReachOptions } from '../core/ssh/openSsh';
import { PROBE_COMMANDS, probeDeadlineMs } from '../core/probe/commands';
import { UsageError } from './args';
import { countOption, relayToolOption, secondsOption } from './fleetArgs';
import { FLEET_INCOMPLETE, FleetPrintOptions, FleetProgress, hostProblemLine, printFleet } from './fleetOutput';
import { whileInterruptible } from './interrupt';
import { CliIo } from './io';
import { cannotReachLine } from './unreachable';
import { errorText } from '../core/errorText';
import { t } from '../core/l10n';

export interface FleetContext {
  readonly io: CliIo;
  readonly reach: SshReachOptions;
  readonly options: ReadonlyMap<string, string>;
  readonly print: FleetPrintOptions;
  /** Whether stderr is a terminal (the progress line). */
  readonly stderrIsTty: boolean;
  readonly nccl: NcclAssumptions;
}

/** Direct fan-out over `hosts`. */
export async function runFleet(hosts: readonly string[], ctx: FleetContext): Promise<number> {
  const { io, options } = ctx;
  const progress = new FleetProgress(hosts.length, io, ctx.stderrIsTty);
  const hostDeadlineMs = secondsOption(options, '--timeout');
  const results = await whileInterruptible((signal) =>
    fanOut({
      hosts,
      // The probe's own deadline would otherwise cap a --timeout longer than its default.
      probeHost: sshProbeHost({ ...ctx.reach, probeDeadlineMs: hostDeadlineMs }),
      concurrency: countOption(options, '--fanout', '-f') ?? DEFAULT_FLEET_CONCURRENCY,
      hostDeadlineMs,
      overallDeadlineMs: secondsOption(options, '--deadline'),
      signal,
      nccl: ctx.nccl,
      onResult: (r) => {
        const problem = hostProblemLine(r);
        if (problem) progress.say(problem);
        progress.hostDone();
      },
    }),
  );
  progress.end();
  return printFleet(results, io, ctx.print);
}

/** Through the login node `--via`, with `--with` or the best tool it offers. */
export async function runRelay(login: string, nodes: readonly string[], ctx: FleetContext): Promise<number> {
  const { io, options } = ctx;
  const named = relayToolOption(options);
  const relay = (tool: RelayTool, signal?: AbortSignal): RelayOptions => ({
    tool,
    loginHost: login,
    nccl: ctx.nccl,
    nodes: nodes.length > 0 ? foldHostList(nodes) : undefined,
    partition: options.get('--partition'),
    nodeCount: countOption(options, '--nodes'),
    jobId: options.get('--jobid'),
    concurrency: countOption(options, '--fanout', '-f'),
    deadlineMs: secondsOption(options, '--deadline') ?? secondsOption(options, '--timeout'),
    signal,
  });
  if (named) checkRelay(relay(named)); // bad values are refused before anything connects
  const conn = await openSsh(login, ctx.reach).catch((e: unknown) => {
    io.stderr(cannotReachLine(login, e));
    return undefined;
  });
  if (conn === undefined) return FLEET_INCOMPLETE;
  // Each node's command outputs wait in a private temporary folder until printed (relay/spill.ts).
  const spill = await RelaySpill.create();
  try {
    const tool = named ?? (await pickTool(login, conn.client, io));
    if (tool === undefined) return FLEET_INCOMPLETE;
    checkRelay(relay(tool));
    // Without a node list Slurm picks the nodes: the count asked for is the total, else none is shown.
    const total = nodes.length > 0 ? nodes.length : countOption(options, '--nodes');
    const progress = total === undefined ? undefined : new FleetProgress(total, io, ctx.stderrIsTty);
    const results = await whileInterruptible((signal) =>
      diagnoseViaLoginNode(conn.client, {
        ...relay(tool, signal),
        spill,
        onNodeEnded: (n) => progress?.setDone(n),
        onRefusedNode: (line) => (progress ? progress.say(`gdr-doctor: ${line}\n`) : io.stderr(`gdr-doctor: ${line}\n`)),
      }),
    );
    progress?.end();
    for (const r of results) io.stderr(hostProblemLine(r) ?? '');
    return await printFleet(results, io, ctx.print);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // The login node could not run the tool at all (no output from any node): nothing to summarise.
    io.stderr(`gdr-doctor: ${errorText(e)}\n`);
    return FLEET_INCOMPLETE;
  } finally {
    conn.close();
    await spill.remove();
  }
}

/** The preferred tool the login node has (preferredRelayTool), said on stderr; undefined (after saying why) when it has none. */
async function pickTool(login: string, client: Parameters<typeof detectRelayTools>[0], io: CliIo): Promise<RelayTool | undefined> {
  const found = await detectRelayTools(client).catch((e: unknown) => {
    io.stderr(`gdr-doctor: ${login}: ${errorText(e)}\n`);
    return undefined;
  });
  if (found === undefined) return undefined;
  const tool = preferredRelayTool(found);
  if (tool === undefined)
    io.stderr(
      `gdr-doctor: ${t('{0} has none of {1} on its PATH; diagnose the nodes directly, or name a tool with --with', login, RELAY_COMMANDS)}\n`,
    );
  else io.stderr(`gdr-doctor: ${t('through {0} with {1} (found: {2})', login, tool, found.join(', '))}\n`);
  return tool;
}

/** The relay's own checks of names, counts and combinations, as usage errors. */
function checkRelay(opts: RelayOptions): void {
  try {
    checkRelayOptions(opts, probeDeadlineMs(PROBE_COMMANDS));
  } catch (e) {
    throw new UsageError(errorText(e));
  }
}
