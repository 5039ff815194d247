// Checks that the fleet bench's sides did the same work on every host: the same fake-command calls
// in each host's call log (sameWork.ts's compareCalls, host by host) and the same output per command.
import type { CommandResult } from '../src/core/probe/frames';
import type { Lab, LabCall } from '../test/lab/lab';
import { compareCalls, compareOutputs, differText, identicalOf } from './sameWork';

/** How many calls each host's log held at one moment. */
export type CallMark = Map<string, number>;

export function markCalls(lab: Lab, hosts: readonly string[]): CallMark {
  return new Map(hosts.map((h) => [h, lab.host(h).calls().length]));
}

/** Each host's calls between two marks. */
export function callsBetween(lab: Lab, from: CallMark, to: CallMark): Map<string, LabCall[]> {
  return new Map([...from].map(([h, n]) => [h, lab.host(h).calls().slice(n, to.get(h))]));
}

/** One line: how many calls each side made, and every host where they differ. */
export function sameCallsLine(label: string, a: Map<string, LabCall[]>, b: Map<string, LabCall[]>): string {
  const diffs = [...a].flatMap(([h, calls]) => compareCalls(calls, b.get(h) ?? []).map((d) => `${h}: ${d}`));
  const count = (m: Map<string, LabCall[]>) => [...m.values()].reduce((n, c) => n + c.length, 0);
  const each = [...a.values()].map((c) => c.length);
  const perHost = Math.min(...each) === Math.max(...each) ? `${each[0]} per host` : `${Math.min(...each)}-${Math.max(...each)} per host`;
  const more = diffs.length > 5 ? ` … (${diffs.length})` : '';
  const verdict = diffs.length ? `; DIFFER: ${diffs.slice(0, 5).join('; ')}${more}` : ', identical';
  return `same work (${label}): ${count(a)} fake-command calls (${perHost}) vs ${count(b)} on ${a.size} hosts${verdict}`;
}

/** Marks a command its time limit stopped: its output differs because the machine was too slow, not the tool. */
const cutMark = (commands: readonly CommandResult[], id: string) =>
  commands.find((c) => c.id === id)?.timedOut ? ' (cut by its time limit)' : '';

/** Outputs of the commands without stderr, host by host, against a sequential run's `=== <id>` sections. */
export function sameOutputsLine(label: string, reports: Map<string, readonly CommandResult[]>, sequential: Map<string, string>): string {
  let compared = 0;
  const differing: string[] = [];
  for (const [h, commands] of reports) {
    const out = compareOutputs(commands, sequential.get(h) ?? '');
    compared += out.compared;
    differing.push(...out.differing.map((id) => `${h}:${id}${cutMark(commands, id)}`));
  }
  return `           outputs (${label}): ${identicalOf({ compared, differing })} commands (those without stderr) identical${differText(differing, 8)}`;
}

/** Outputs of two probe runs, command by command (both parallel probes: stderr compared too). */
export function sameProbeOutputsLine(
  label: string,
  a: Map<string, readonly CommandResult[]>,
  b: Map<string, readonly CommandResult[]>,
): string {
  let compared = 0;
  const differing: string[] = [];
  for (const [h, commands] of a) {
    const other = new Map((b.get(h) ?? []).map((c) => [c.id, c]));
    for (const c of commands) {
      compared++;
      const o = other.get(c.id);
      if (!o || o.stdout !== c.stdout || o.stderr !== c.stderr || o.exitCode !== c.exitCode)
        differing.push(`${h}:${c.id}${cutMark(commands, c.id)}${o ? cutMark([o], c.id) : ''}`);
    }
  }
  return `           outputs (${label}): ${identicalOf({ compared, differing })} commands identical (stdout, stderr, exit code)${differText(differing, 8)}`;
}
