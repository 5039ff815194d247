// The one contract every parser follows: text in, a typed value or a located ParseError out.
// Parsers never throw; anything unexpected becomes a ParseError naming the 1-based line.

export interface ParseError {
  /** 1-based line number in the input where reading stopped (1 for empty or binary input). */
  readonly line: number;
  /** What was expected and what was found, in words a user can act on. */
  readonly message: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ParseError };

export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function fail<T = never>(line: number, message: string): Parsed<T> {
  return { ok: false, error: { line, message } };
}

/** Input larger than this is refused up front: no real diagnostic output comes close. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/**
 * Splits text into lines (LF, CRLF or CR) after the checks every parser shares:
 * input size and binary content. Returns a ParseError for input no parser should read.
 */
export function readLines(text: string, what: string): Parsed<string[]> {
  if (text.length > MAX_INPUT_BYTES) {
    const line = countLinesUpTo(text, MAX_INPUT_BYTES);
    return fail(line, `${what}: input is larger than ${MAX_INPUT_BYTES / (1024 * 1024)} MiB; expected a single command's output`);
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    return fail(countLinesUpTo(text, nul), `${what}: input contains binary data (a NUL byte); expected text output`);
  }
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return ok(lines);
}

function countLinesUpTo(text: string, end: number): number {
  let line = 1;
  for (let i = 0; i < end && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Shortens a line for quoting inside an error message. */
export function quote(line: string, max = 60): string {
  const clean = line.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(clean.length > max ? `${clean.slice(0, max)}…` : clean);
}

/** Index of the first line that is not blank, or -1. */
export function firstContentLine(lines: readonly string[]): number {
  return lines.findIndex((l) => l.trim() !== '');
}
