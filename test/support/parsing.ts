// Helpers the parser tests share: reading fixtures, unwrapping a Parsed result, checking a located
// ParseError, cutting text short. Each parser test binds its own parser with a one-line wrapper.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ParseError, Parsed } from '../../src/core/parsers/result';
import { FIXTURES } from './paths';

/** The text of test/fixtures/<dir>/<name> (name includes its extension). */
export function readFixture(dir: string, name: string): string {
  return fs.readFileSync(path.join(FIXTURES, dir, name), 'utf8');
}

/** The value of a result that must have parsed; fails the test with the ParseError otherwise. */
export function expectOk<T>(result: Parsed<T>): T {
  if (!result.ok) assert.fail(`unexpected ParseError at line ${result.error.line}: ${result.error.message}`);
  return result.value;
}

/**
 * The ParseError of a result that must have been refused; fails the test if it parsed.
 * When given, `line` must equal the error's line and `pattern` must match its message.
 */
export function expectError(result: Parsed<unknown>, line?: number, pattern?: RegExp): ParseError {
  if (result.ok) assert.fail('expected a ParseError, but the input parsed');
  const { error } = result;
  if (line !== undefined) assert.equal(error.line, line, error.message);
  if (pattern !== undefined) assert.match(error.message, pattern);
  return error;
}

/** The first `n` lines of `text`, newline-terminated, as if the output had been cut there. */
export function firstLines(text: string, n: number): string {
  return `${text.split('\n').slice(0, n).join('\n')}\n`;
}

/** The integers from `from` to `to`, both included (CPU lists, node ids). */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** The checks above bound to one parser: `parsed` unwraps its value, `failure` its located ParseError. */
export interface ParserChecks<T> {
  readonly parsed: (text: string) => T;
  readonly failure: (text: string, line?: number, pattern?: RegExp) => ParseError;
}

export function checksFor<T>(parse: (text: string) => Parsed<T>): ParserChecks<T> {
  return {
    parsed: (text) => expectOk(parse(text)),
    failure: (text, line, pattern) => expectError(parse(text), line, pattern),
  };
}
