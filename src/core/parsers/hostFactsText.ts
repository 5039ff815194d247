// Small text helpers shared by the host-fact parsers (lsmod, modinfo, ofed_info, /proc/driver/nvidia/version,
// /etc/os-release). Kept apart from result.ts, which every parser shares.

import { fail, ok, Parsed, readLines } from './result';

/** One non-blank input line with its 1-based line number. */
export interface NumberedLine {
  readonly text: string;
  readonly line: number;
}

/** The non-blank lines, numbered from 1 as in the input. */
export function contentLines(lines: readonly string[]): NumberedLine[] {
  const out: NumberedLine[] = [];
  lines.forEach((text, i) => {
    if (text.trim() !== '') out.push({ text, line: i + 1 });
  });
  return out;
}

/** A host fact's non-blank lines, or a located error: unreadable text, or nothing but blanks (`expected` says what should be there). */
export function factLines(text: string, what: string, expected: string): Parsed<NumberedLine[]> {
  const read = readLines(text, what);
  if (!read.ok) return read;
  const lines = contentLines(read.value);
  return lines.length === 0 ? fail(1, `${what}: empty input; expected ${expected}`) : ok(lines);
}

/** Number of leading spaces and tabs. */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

/**
 * Removes `width` leading whitespace characters when the line has at least that many.
 * Copies pasted into documentation are often indented as a whole (RST literal blocks, list items);
 * taking the first line's indent off every line gives back the command's own layout.
 */
export function dedent(line: string, width: number): string {
  return indentOf(line) >= width ? line.slice(width) : line.trimStart();
}
