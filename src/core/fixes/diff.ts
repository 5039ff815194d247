// A unified diff for the one kind of change the fixes make to a file: lines appended at its end (and
// a final newline added to an old last line that lacked one). Shown in the plan before anything runs.

const CONTEXT = 3;

interface Lines {
  readonly lines: string[];
  /** The last line has no newline after it. */
  readonly openEnd: boolean;
}

function split(text: string): Lines {
  if (text === '') return { lines: [], openEnd: false };
  const lines = text.split('\n');
  const openEnd = lines[lines.length - 1] !== '';
  if (!openEnd) lines.pop();
  return { lines, openEnd };
}

/** Hunk range as diff(1) prints it: `start,count`, just `start` for one line, `start-1,0` for none. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  return `${count === 0 ? start - 1 : start},${count}`;
}

/** Unified diff from `before` (null: no file) to `after`, with up to three lines of context. */
export function unifiedDiff(path: string, before: string | null, after: string): string {
  const a = split(before ?? '');
  const b = split(after);
  // Lines that stay: equal, and newline-terminated on both sides.
  let same = 0;
  while (same < a.lines.length && same < b.lines.length && a.lines[same] === b.lines[same] && !(a.openEnd && same === a.lines.length - 1))
    same++;
  if (same === a.lines.length && same === b.lines.length && a.openEnd === b.openEnd) return '';
  const from = Math.max(0, same - CONTEXT);
  const removed = a.lines.slice(same);
  const added = b.lines.slice(same);
  const out = [
    `--- ${before === null ? '/dev/null' : path}`,
    `+++ ${path}`,
    `@@ -${range(from + 1, same - from + removed.length)} +${range(from + 1, same - from + added.length)} @@`,
    ...a.lines.slice(from, same).map((l) => ` ${l}`),
    ...removed.map((l) => `-${l}`),
    ...(a.openEnd && removed.length > 0 ? ['\\ No newline at end of file'] : []),
    ...added.map((l) => `+${l}`),
    ...(b.openEnd && added.length > 0 ? ['\\ No newline at end of file'] : []),
  ];
  return `${out.join('\n')}\n`;
}
