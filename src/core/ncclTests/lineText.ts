// One line of an nccl-tests output as users paste it: behind a launcher's prefix (Open MPI
// `--tag-output` writes `[1,0]<stdout>:`, Slurm `srun -l` writes the task id right-aligned and `: `),
// with nccl-tests' `#` comment mark, or without it where Markdown turned those lines into headings.
// Every pattern here is anchored and has no nested repetition: linear on any line.

const TAG_OUTPUT = /^\[\d{1,7},\d{1,7}\]<std(?:out|err)>: ?/;
const SRUN_LABEL = /^ {0,8}\d{1,7}:(?: |$)/;

export interface LineText {
  /** The text after the launcher's prefix and nccl-tests' `#`, if any. */
  readonly body: string;
  /** The line had nccl-tests' `#` comment mark (header, devices, footer lines). */
  readonly hash: boolean;
  /** 0-based column where `body` starts in the line as given. */
  readonly column: number;
}

export function lineText(line: string): LineText {
  const prefix = TAG_OUTPUT.exec(line) ?? SRUN_LABEL.exec(line);
  let column = prefix ? prefix[0].length : 0;
  let i = column;
  while (i < line.length && line.charCodeAt(i) === 32) i++;
  const hash = line.charCodeAt(i) === 35;
  if (hash) column = i + 1;
  return { body: line.slice(column), hash, column };
}

/** Whitespace-separated words, found in one pass (no regex split on attacker-sized runs of spaces). */
export function words(text: string, max = 64): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const space = c === 32 || c === 9;
    if (!space && start < 0) start = i;
    else if (space && start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
      if (out.length > max) return out;
    }
  }
  return out;
}

/** The line holds one of NCCL's own log headers (`host:pid:tid [dev] NCCL INFO …`): not nccl-tests' text. */
export function isNcclLogLine(text: string): boolean {
  return text.includes(' NCCL INFO') || text.includes(' NCCL WARN') || text.includes(' NCCL TRACE');
}
