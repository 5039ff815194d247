// Checks that both sides did the same work: the same fake-command calls on the host (from the
// lab's call log) and, command by command, the same output.
import { CommandResult } from '../src/core/probe/frames';
import { LabCall } from '../test/lab/lab';

const callKey = (c: LabCall) => [c.cmd, ...c.args].join(' ');

/** Empty when both lists hold the same calls (in any order); else one line per difference. */
export function compareCalls(gdr: readonly LabCall[], ssh: readonly LabCall[]): string[] {
  const count = new Map<string, number>();
  for (const c of gdr) count.set(callKey(c), (count.get(callKey(c)) ?? 0) + 1);
  for (const c of ssh) count.set(callKey(c), (count.get(callKey(c)) ?? 0) - 1);
  return [...count].filter(([, n]) => n !== 0).map(([k, n]) => `${k}: ${n > 0 ? `${n} more` : `${-n} fewer`} in gdr-doctor's run`);
}

/** Splits the sequential run's output at its `=== <id>` headers, in the order they were run. */
export function splitSections(stdout: string, ids: readonly string[]): Map<string, string> {
  const sections = new Map<string, string>();
  let from = 0;
  const starts = ids.map((id) => {
    const at = stdout.indexOf(`=== ${id}\n`, from);
    if (at >= 0) from = at;
    return at;
  });
  ids.forEach((id, i) => {
    if (starts[i] < 0) return;
    const begin = starts[i] + `=== ${id}\n`.length;
    const end = starts.slice(i + 1).find((s) => s >= 0) ?? stdout.length;
    sections.set(id, stdout.slice(begin, end));
  });
  return sections;
}

/** `identical/compared` of one comparison of outputs. */
export const identicalOf = (o: { compared: number; differing: readonly string[] }): string =>
  `${o.compared - o.differing.length}/${o.compared}`;

/** `; differ: a, b` (the first `most` of them), or nothing when every output was identical. */
export const differText = (differing: readonly string[], most = Infinity): string =>
  differing.length ? `; differ: ${differing.slice(0, most).join(', ')}` : '';

/** Ids whose output differs; only commands that wrote nothing on stderr are compared (the sequential run folds stderr in). */
export function compareOutputs(results: readonly CommandResult[], sshStdout: string): { compared: number; differing: string[] } {
  const sections = splitSections(
    sshStdout,
    results.map((r) => r.id),
  );
  const comparable = results.filter((r) => r.stderr === '');
  const differing = comparable.filter((r) => sections.get(r.id) !== r.stdout).map((r) => r.id);
  return { compared: comparable.length, differing };
}
