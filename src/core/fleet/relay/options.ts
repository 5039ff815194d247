// Checks every user-given value of a relay run before any of it reaches a command line on the login
// node, and fills in the defaults.
import type { NcclAssumptions } from '../../diagnosis';
import type { ProbeCommandSpec } from '../../probe/commands';
import type { RelaySpill } from './spill';
import { expandHostList, foldHostList } from '../../parsers/hostlist';
import { isRelayTool, RELAY_TOOL_CHOICES, RelayTool } from '../../transport';

export interface RelayOptions {
  readonly tool: RelayTool;
  /** Shown in messages (the SSH destination of the login node). */
  readonly loginHost: string;
  /** A host list like gpu[01-16]: required for pdsh and clush; for Slurm a nodelist. */
  readonly nodes?: string;
  readonly partition?: string;
  /** Slurm: how many nodes srun picks (without nodes), or uses of the allocation (with jobId). */
  readonly nodeCount?: number;
  /** Slurm: run as a step of this existing allocation. */
  readonly jobId?: string;
  /** pdsh -f / clush -f: nodes at once. Default 32 (pdsh's). */
  readonly concurrency?: number;
  /** The whole run. Default: one probe per wave of `concurrency` nodes, plus time to connect. */
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
  /** Told each error line that belongs to no node: a node name the run did not ask for, refused. */
  readonly onRefusedNode?: (message: string) => void;
  /** Called while the run goes on with the number of nodes whose probe has ended so far. */
  readonly onNodeEnded?: (count: number) => void;
  /** Defaults to PROBE_COMMANDS; tests pass their own. */
  readonly commands?: readonly ProbeCommandSpec[];
  /** The NCCL release and environment the verdicts are for; default the newest modelled. */
  readonly nccl?: NcclAssumptions;
  /** Keep each node's command outputs here, not in memory (spill.ts): results then carry fullReport. */
  readonly spill?: RelaySpill;
}

export interface CheckedRelay {
  readonly expected: string[];
  /** The expected nodes folded again (`nodeset -f` form): what goes on the tool's command line. */
  readonly nodeList?: string;
  readonly concurrency: number;
  readonly deadlineMs: number;
}

export const DEFAULT_RELAY_CONCURRENCY = 32;
const PARTITION = /^[A-Za-z0-9._-]{1,128}$/;
const JOB_ID = /^\d{1,12}$/;
/** srun start-up, ssh connects: added to the probe's own limit for each wave. */
const RELAY_SLACK_MS = 30_000;

export function checkRelayOptions(opts: RelayOptions, probeDeadlineMs: number): CheckedRelay {
  if (!isRelayTool(opts.tool)) throw new Error(`unknown relay tool ${JSON.stringify(opts.tool)} (${RELAY_TOOL_CHOICES})`);
  const expected = opts.nodes !== undefined ? expandHostList(opts.nodes) : [];
  // The login node's tools pick the user per site (their ssh config); user@host is for direct SSH.
  if (expected.some((h) => h.includes('@'))) throw new Error(`a relay host list names nodes, not user@node: ${JSON.stringify(opts.nodes)}`);
  if (opts.tool !== 'slurm' && expected.length === 0) throw new Error(`${opts.tool} needs a host list (e.g. gpu[01-16])`);
  if (opts.tool !== 'slurm' && (opts.partition !== undefined || opts.jobId !== undefined || opts.nodeCount !== undefined)) {
    throw new Error(`partition, job id and node count are Slurm options; ${opts.tool} takes a host list`);
  }
  if (opts.partition !== undefined && !PARTITION.test(opts.partition))
    throw new Error(`not a Slurm partition name: ${JSON.stringify(opts.partition)}`);
  if (opts.jobId !== undefined && !JOB_ID.test(opts.jobId)) throw new Error(`not a Slurm job id: ${JSON.stringify(opts.jobId)}`);
  checkInt('node count', opts.nodeCount, 100_000);
  if (opts.tool === 'slurm' && expected.length === 0 && opts.nodeCount === undefined && opts.jobId === undefined) {
    throw new Error('Slurm needs a nodelist, a node count or a job id');
  }
  checkInt('concurrency', opts.concurrency, 4096);
  const concurrency = opts.concurrency ?? DEFAULT_RELAY_CONCURRENCY;
  const count = expected.length || opts.nodeCount || 1;
  const waves = opts.tool === 'slurm' ? 1 : Math.ceil(count / concurrency);
  const deadlineMs = opts.deadlineMs ?? waves * probeDeadlineMs + RELAY_SLACK_MS;
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new Error(`deadline must be a positive number of ms, got ${deadlineMs}`);
  return { expected, nodeList: expected.length > 0 ? foldHostList(expected) : undefined, concurrency, deadlineMs };
}

function checkInt(what: string, value: number | undefined, max: number): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= max))
    throw new Error(`${what} must be an integer from 1 to ${max}, got ${value}`);
}
