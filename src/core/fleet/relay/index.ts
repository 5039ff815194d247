// Diagnosing many compute nodes through one SSH connection to a login node: the site's srun, pdsh or
// clush runs the same probe script on every node (nothing installed there), the output is split per
// node as it arrives (core/transport/relay) and each node's stream goes through diagnoseHost (core/host)
// like a direct probe, as soon as it has ended. Memory grows with the nodes' reports, not with the run's
// output: no buffer or string ever holds all of it (thousands of nodes would pass V8's longest string).
import { randomBytes } from 'crypto';
import type { Client } from 'ssh2';
import type { Diagnosis } from '../../diagnosis';
import { diagnoseHost } from '../../host/diagnoseHost';
import { PROBE_COMMANDS, probeDeadlineMs } from '../../probe/commands';
import type { ProbeReport } from '../../probe/runProbe';
import { buildProbeScript, newBoundary } from '../../probe/script';
import { statusOfProbe } from '../status';
import type { FleetHostResult } from '../types';
import type { ByteSink } from '../../probe/streamCaps';
import {
  Contest,
  LoginRun,
  LoginRunner,
  loginScript,
  nodeKeys,
  NodeStream,
  RelayDemux,
  relayCommand,
  sshLoginRunner,
} from '../../transport';
import { ParseQueue } from './parseQueue';
import { RelayOptions, checkRelayOptions } from './options';
import { t } from '../../l10n';

export type { LoginLimits, LoginRun, LoginRunner, RelayTool } from '../../transport';
export {
  detectRelayTools,
  isRelayTool,
  preferredRelayTool,
  RELAY_COMMANDS,
  RELAY_PREFERENCE,
  RELAY_TOOL_CHOICES,
  RELAY_TOOLS,
} from '../../transport';
export type { RelayOptions } from './options';
export { checkRelayOptions } from './options';
export { RelaySpill } from './spill';

/** Ended nodes that may wait for their parse before reading pauses (each holds its raw stream, ~100 KB). */
const PARSE_BACKLOG = 64;

/** A node's probe parsed: right when its stream ended, or when the run did. */
interface ParsedNode {
  readonly report: ProbeReport;
  readonly diagnosis: Diagnosis;
  /** How many of the node's message lines went into the report (later ones are added at the end). */
  readonly messagesUsed: number;
  /** With a spill folder (RelayOptions.spill): where the node's outputs went; `report` keeps the summary's part. */
  readonly spilledTo?: string;
}

interface RunContext {
  readonly opts: RelayOptions;
  readonly boundary: string;
  readonly run: LoginRun;
  readonly durationMs: number;
  readonly cancelled: boolean;
  readonly demuxed: RelayDemux;
  readonly parsed: ReadonlyMap<string, Promise<ParsedNode>>;
}

export function diagnoseViaLoginNode(client: Client, opts: RelayOptions): Promise<FleetHostResult[]> {
  return relayDiagnose(sshLoginRunner(client), opts);
}

export async function relayDiagnose(runLogin: LoginRunner, opts: RelayOptions): Promise<FleetHostResult[]> {
  const commands = opts.commands ?? PROBE_COMMANDS;
  const checked = checkRelayOptions(opts, probeDeadlineMs(commands));
  const boundary = newBoundary();
  const tag = `gdrr-${randomBytes(8).toString('hex')}`;
  // pdsh, clush: a key per node, which only that node gets (loginScript.ts); srun labels its tasks itself.
  const keys = opts.tool === 'slurm' ? undefined : nodeKeys(checked.expected);
  // The node stops its own probe a little before the run's deadline, so what it printed arrives.
  const nodeLimitS = Math.max(1, Math.min(Math.ceil(probeDeadlineMs(commands) / 1000), Math.floor(checked.deadlineMs / 1000) - 5));
  const script = loginScript({
    ...opts,
    nodes: checked.nodeList,
    tag,
    probeScript: buildProbeScript(commands, { boundary }).script,
    nodeLimitS,
    expectedCount: checked.expected.length,
    concurrency: checked.concurrency,
    deadlineS: Math.ceil(checked.deadlineMs / 1000),
    keys,
  });
  const t0 = Date.now();
  // Each node is parsed as soon as its stream ends, while the others still run: only the nodes in
  // flight hold their raw streams.
  const parsed = new Map<string, Promise<ParsedNode>>();
  const queue = new ParseQueue(PARSE_BACKLOG);
  const demuxed = new RelayDemux(
    opts.tool,
    tag,
    checked.expected,
    (node) => {
      parsed.set(
        node.name,
        queue.add(() => parseNode(opts, boundary, node, { connectionLost: false, timedOut: node.exitCode === 124 })),
      );
      opts.onNodeEnded?.(parsed.size);
    },
    keys,
  );
  const sink = (push: (chunk: Buffer) => void): ByteSink => ({ write: (chunk) => (push(chunk), true), backlog: () => queue.backlog() });
  const run = await runLogin(script, {
    timeoutMs: checked.deadlineMs,
    maxBytes: 65_536,
    signal: opts.signal,
    stdoutSink: sink((c) => demuxed.pushStdout(c)),
    stderrSink: sink((c) => demuxed.pushStderr(c)),
  });
  demuxed.pushStdout(run.stdout);
  demuxed.pushStderr(run.stderr);
  demuxed.end();
  const ctx: RunContext = { opts, boundary, run, durationMs: Date.now() - t0, cancelled: opts.signal?.aborted === true, demuxed, parsed };
  const refused = [
    ...demuxed.refused.map((line) => `${opts.loginHost}: ${relayCommand(opts.tool)} printed ${line}`),
    ...[...demuxed.contested].map(([name, c]) => `${opts.loginHost}: ${contestText(name, relayCommand(opts.tool), c)}`),
  ];
  for (const line of refused) opts.onRefusedNode?.(line);
  if (demuxed.nodes.size === 0 && demuxed.skipped.size === 0)
    throw new Error([`${opts.loginHost}: ${namingTool(relayCommand(opts.tool), runFailure(ctx))}`, ...refused].join('\n'));
  const skipped = [...demuxed.skipped].map(([name, state]) =>
    failed(ctx, name, 'unreachable', 'relay', `Slurm reports node ${name} as ${state}; not run there`),
  );
  const probed = await Promise.all([...demuxed.nodes.values()].filter((n) => !demuxed.skipped.has(n.name)).map((n) => nodeResult(ctx, n)));
  demuxed.dropStreams();
  return [...probed, ...skipped].sort((a, b) => a.host.localeCompare(b.host, 'en', { numeric: true }));
}

/** The node's stream diagnosed as any host is (diagnoseHost); its decoded bytes are let go. */
async function parseNode(
  opts: RelayOptions,
  boundary: string,
  node: NodeStream,
  flags: { connectionLost: boolean; timedOut: boolean },
): Promise<ParsedNode> {
  const streamCut = node.data.cut;
  const stdout = node.data.take();
  const messages = node.messages;
  // A cut stream is said in the report's notes (runProbe's streamCutNote), as for a direct probe.
  const { report, diagnosis } = await diagnoseHost(
    {
      kind: 'relay',
      node: node.name,
      stream: { stdout, messages, exitCode: node.exitCode, ...flags, ...(streamCut ? { streamCut } : {}) },
    },
    { commands: opts.commands ?? PROBE_COMMANDS, boundary, nccl: opts.nccl },
  );
  if (!opts.spill) return { report, diagnosis, messagesUsed: node.messages.length };
  const kept = await opts.spill.keep(report, diagnosis);
  return { report: kept.report, diagnosis: kept.diagnosis, messagesUsed: node.messages.length, spilledTo: kept.file };
}

async function nodeResult(ctx: RunContext, node: NodeStream): Promise<FleetHostResult> {
  const contested = ctx.demuxed.contested.get(node.name);
  if (contested !== undefined)
    return failed(ctx, node.name, 'unreachable', 'relay', contestText(node.name, relayCommand(ctx.opts.tool), contested));
  if (!node.began) {
    if (ctx.cancelled) return failed(ctx, node.name, 'cancelled', 'cancelled', t('cancelled before the node started'));
    if (ctx.run.timedOut) return failed(ctx, node.name, 'timed-out', 'deadline', t('the deadline passed before the node started'));
    return failed(ctx, node.name, 'unreachable', 'relay', nodeFailure(ctx, node));
  }
  const cut = !node.ended;
  const early = ctx.parsed.get(node.name);
  // 124: the node's own `timeout` stopped the probe (its share of the deadline).
  const flags = {
    connectionLost: cut && !ctx.run.timedOut && !ctx.cancelled,
    timedOut: (cut && ctx.run.timedOut) || node.exitCode === 124,
  };
  const { report: parsedReport, diagnosis, messagesUsed, spilledTo } = await (early ?? parseNode(ctx.opts, ctx.boundary, node, flags));
  // What the tool said about the node after its stream ended (pdsh's exit messages, late stderr).
  const late = node.messages.slice(messagesUsed);
  const report = late.length > 0 ? { ...parsedReport, notes: [...parsedReport.notes, late.join('\n')] } : parsedReport;
  // Stopped by the cancel: its stream cut, or ended early (srun TERMs the step, the probe's trap
  // stops its commands and the node still prints its E line; which one wins is timing).
  const status = ctx.cancelled && (cut || !report.finished) ? 'cancelled' : statusOfProbe(report, diagnosis);
  const { spill } = ctx.opts;
  const fullReport = spill && spilledTo !== undefined ? { fullReport: () => spill.load(report, spilledTo) } : {};
  return {
    host: node.name,
    status,
    path: ctx.opts.tool,
    report,
    diagnosis,
    error: stopError(status, node),
    durationMs: ctx.durationMs,
    ...fullReport,
  };
}

/** Why a node that began was stopped, as the direct fan-out says it (its sections that ended are kept). */
function stopError(status: FleetHostResult['status'], node: NodeStream): FleetHostResult['error'] {
  if (status === 'cancelled') return { step: 'cancelled', message: t('{0}: cancelled while running', node.name) };
  if (status !== 'timed-out') return undefined;
  return {
    step: 'deadline',
    message:
      node.exitCode === 124
        ? t('{0}: the probe reached its time limit on the node', node.name)
        : t("{0}: the run's deadline passed while the probe ran", node.name),
  };
}

/** Why a contested node's stream is not used (demux.ts Contest), in the user's words. */
function contestText(node: string, tool: string, c: Contest): string {
  const other = c.other ?? '?';
  const why =
    c.why === 'forged'
      ? t('{0} printed relay lines claiming to be its stream', other)
      : c.why === 'forger'
        ? t("it printed relay lines claiming to be {0}'s stream", other)
        : c.why === 'unkeyed'
          ? t('it printed relay lines without its own key')
          : c.why === 'second-start'
            ? t('a second start line claimed its name')
            : t('a second srun task ({0}) claimed its name', other);
  return t('{0}: its stream through {1} was contested ({2}): nothing it printed is used', node, tool, why);
}

function failed(
  ctx: RunContext,
  host: string,
  status: FleetHostResult['status'],
  step: 'relay' | 'deadline' | 'cancelled',
  message: string,
): FleetHostResult {
  return { host, status, path: ctx.opts.tool, error: { step, message }, durationMs: ctx.durationMs };
}

/** What the tool said about a node that printed nothing, else what it said at all. */
function nodeFailure(ctx: RunContext, node: NodeStream): string {
  const own = node.messages.filter((m) => m.trim() !== '');
  if (own.length > 0) return clip(own.join('\n'));
  return t('no output from {0} through {1} on {2}: {3}', node.name, relayCommand(ctx.opts.tool), ctx.opts.loginHost, runFailure(ctx));
}

function runFailure(ctx: RunContext): string {
  const { run, demuxed } = ctx;
  const said = demuxed.toolMessages.filter((l) => l.trim() !== '');
  const how = ctx.cancelled
    ? t('cancelled')
    : run.timedOut
      ? t('timed out')
      : run.connectionLost
        ? t('connection to the login node lost')
        : `exit ${demuxed.toolExit ?? run.exitCode ?? '?'}`;
  return clip(said.length > 0 ? `${said.join('\n')} (${how})` : how);
}

/** "srun: exit 1", but "srun: error: …" as srun wrote it (not "srun: srun: error: …"). */
function namingTool(tool: string, failure: string): string {
  return failure.startsWith(`${tool}: `) ? failure : `${tool}: ${failure}`;
}

function clip(text: string): string {
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
