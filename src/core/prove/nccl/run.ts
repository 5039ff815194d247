// Runs the launch script on the launcher host and reads what came back (docs/nccl-tests.md §3, §4):
// the script's own tagged lines, the -J file, and everything else as the run printed it, which is
// nccl-tests' table among NCCL's log lines. The table is read by the nccl-tests reader (the JSON where
// it arrived whole), NCCL's lines by the NCCL log reader. A deadline or a cancel stops the session
// (exec TERMs it; the script's trap stops the launcher); what arrived is kept.
import { addNcclLogText, NcclLogSummarizer, NcclLogSummary } from '../../ncclLog';
import { parseNcclTests } from '../../ncclTests';
import type { NcclTestsRun } from '../../ncclTests';
import type { ProveShell, ShellRun } from '../direct';
import { launchScript, NcclLaunch } from './command';
import { binaryOf } from './options';

/** The run's output is kept up to this (a 16-node run with NCCL INFO lines is a few MB). */
export const MAX_NCCL_OUTPUT_BYTES = 64 * 1024 * 1024;

export interface NcclLaunchResult {
  /** `missing-launcher`: srun/mpirun not on the launcher host; nothing ran. */
  readonly outcome: 'ended' | 'missing-launcher' | 'timed-out' | 'cancelled' | 'connection-lost';
  /** The launcher's exit code (srun's or mpirun's): non-zero when a rank failed. */
  readonly exitCode: number | null;
  readonly run: NcclTestsRun | null;
  /** Why the table could not be read (no row, no device list, a -J file cut short). */
  readonly tableError: string | null;
  readonly log: NcclLogSummary | null;
  /** The launcher's output, as it came, without the script's own lines (the last 64 KiB for reports). */
  readonly outputTail: string;
  readonly truncated: boolean;
}

interface Tagged {
  readonly started: boolean;
  readonly missing: string | null;
  readonly exit: number | null;
  readonly json: string;
  readonly rest: string;
}

function untag(text: string, tag: string): Tagged {
  const rest: string[] = [];
  const json: string[] = [];
  let started = false;
  let missing: string | null = null;
  let exit: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${tag} `)) {
      rest.push(line);
      continue;
    }
    const [kind, value = ''] = line.slice(tag.length + 1).split(' ');
    if (kind === 'S') started = true;
    else if (kind === 'M') missing = value;
    else if (kind === 'X') exit = /^\d{1,3}$/.test(value) ? Number(value) : null;
    else if (kind === 'B') json.push(value);
  }
  return { started, missing, exit, json: Buffer.from(json.join(''), 'base64').toString('utf8'), rest: rest.join('\n') };
}

export function readLaunchOutput(r: ShellRun, launch: NcclLaunch, signal?: AbortSignal): NcclLaunchResult {
  const tag = launch.tag;
  const text = `${r.stdout.toString('utf8')}${r.stderr.length > 0 ? `\n${r.stderr.toString('utf8')}` : ''}`;
  const tagged = untag(text, tag);
  const fromJson = tagged.json.trim() === '' ? null : parseNcclTests(tagged.json);
  const fromText = parseNcclTests(tagged.rest);
  const json = fromJson?.ok ? fromJson.value : null;
  const table = fromText.ok ? fromText.value : null;
  // The JSON's exact numbers where they arrived whole; the ranks as the run printed them (the same list
  // nccl-tests writes into the JSON) where the text has them.
  const ranks = table && table.devices.length > 0 ? { devices: table.devices, hosts: table.hosts } : null;
  const read = json && json.results.length > 0 ? { ...json, ...ranks, problems: table?.problems ?? [] } : table;
  // nccl-tests before 2.16 does not name its test: the binary that ran does.
  const run = read && read.test === null ? { ...read, test: binaryOf(launch.options.op) } : read;
  const summarizer = new NcclLogSummarizer();
  const ncclLines = addNcclLogText(summarizer, tagged.rest, 'nccl-tests output');
  const outcome: NcclLaunchResult['outcome'] = tagged.missing
    ? 'missing-launcher'
    : signal?.aborted
      ? 'cancelled'
      : r.timedOut
        ? 'timed-out'
        : r.connectionLost && tagged.exit === null
          ? 'connection-lost'
          : 'ended';
  return {
    outcome,
    exitCode: tagged.exit,
    run,
    tableError: run ? null : fromText.ok ? null : fromText.error.message,
    log: ncclLines > 0 ? summarizer.summary() : null,
    outputTail: tagged.rest.slice(-64 * 1024),
    truncated: r.stdout.length >= MAX_NCCL_OUTPUT_BYTES,
  };
}

/** Runs the launch; `onOutput` sees the output as it arrives (progress: rows, a hang). */
export async function launchNccl(
  shell: ProveShell,
  launch: NcclLaunch,
  o: { readonly signal?: AbortSignal; readonly onOutput?: (text: string) => void },
): Promise<{ result: NcclLaunchResult; script: string }> {
  const script = launchScript(launch);
  const r = await shell.run(script, {
    timeoutMs: launch.options.timeoutS * 1000,
    signal: o.signal,
    onStdout: o.onOutput ? (chunk) => o.onOutput?.(chunk.toString('utf8')) : undefined,
  });
  return { result: readLaunchOutput(r, launch, o.signal), script };
}
