// Reading one answer from a terminal in raw mode, where the terminal itself neither echoes nor
// interprets keys: we echo (or not, for secrets), edit the line and catch Ctrl-C ourselves.
// The mode the terminal was in is restored on every way out: Enter, Ctrl-C, Ctrl-D, end of input.

/** Where questions are asked: `write` shows text to the user, `readLine` reads one answer. */
export interface PromptTerminal {
  write(text: string): void;
  /** One line without its terminator; null when the user cancelled (Ctrl-C, Ctrl-D) or input ended. */
  readLine(echo: boolean): Promise<string | null>;
  /** Ends the question being asked, if any, as if the user cancelled it. */
  cancel?(): void;
}

const CTRL_C = '\x03';
const CTRL_D = '\x04';
const CTRL_U = '\x15';
const BACKSPACE = '\b';
const DEL = '\x7f';
const ESC = '\x1b';

export interface KeysResult {
  /** The line typed so far. */
  readonly line: string;
  /** What to echo for these keys (nothing for a secret). */
  readonly shown: string;
  /** null: the line goes on; 'enter': it is complete; 'cancel': Ctrl-C, or Ctrl-D on an empty line. */
  readonly end: 'enter' | 'cancel' | null;
  /** Keys typed past the end of the line, kept for the next question. */
  readonly rest: string;
}

/** Applies keys typed in raw mode to a line. Pure: the caller writes `shown` and keeps `rest`. */
export function applyKeys(line: string, keys: string, echo: boolean): KeysResult {
  const chars = Array.from(keys); // code points, so a backspace removes a whole character
  let shown = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\r' || c === '\n') {
      const skip = c === '\r' && chars[i + 1] === '\n' ? 2 : 1; // a pasted CRLF is one Enter
      return { line, shown, end: 'enter', rest: chars.slice(i + skip).join('') };
    }
    if (c === CTRL_C || (c === CTRL_D && line === '')) return { line: '', shown, end: 'cancel', rest: chars.slice(i + 1).join('') };
    if (c === BACKSPACE || c === DEL || c === CTRL_U) {
      const kept = c === CTRL_U ? [] : Array.from(line).slice(0, -1);
      if (echo) shown += '\b \b'.repeat(Array.from(line).length - kept.length);
      line = kept.join('');
    } else if (c === ESC) {
      i = endOfEscape(chars, i); // arrow keys and the like: not part of an answer
    } else if (c >= ' ' && !(c >= '\x80' && c <= '\x9f')) {
      line += c;
      if (echo) shown += c;
    }
  }
  return { line, shown, end: null, rest: '' };
}

/** Index of the last character of an escape sequence starting at `i` (ESC [ … final, or ESC O x). */
function endOfEscape(chars: readonly string[], i: number): number {
  const kind = chars[i + 1];
  if (kind === 'O') return Math.min(i + 2, chars.length - 1);
  if (kind !== '[') return i;
  let j = i + 2;
  while (j < chars.length && !(chars[j] >= '@' && chars[j] <= '~')) j++;
  return Math.min(j, chars.length - 1);
}

/** What rawTtyTerminal needs of a terminal's input (a tty.ReadStream has it all). */
export interface RawInput {
  readonly isRaw: boolean;
  setRawMode(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (keys: string) => void): unknown;
  on(event: 'end' | 'error', listener: () => void): unknown;
  removeListener(event: 'data', listener: (keys: string) => void): unknown;
  removeListener(event: 'end' | 'error', listener: () => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

function restoreMode(input: RawInput, raw: boolean): void {
  try {
    input.setRawMode(raw);
  } catch {
    // The terminal is gone (hung up): there is no mode left to restore.
  }
}

/** A PromptTerminal reading keys from a TTY in raw mode and writing prompts with `write`. */
export function rawTtyTerminal(input: RawInput, write: (text: string) => void): PromptTerminal {
  const state: LineReaderState = { typeAhead: '', cancelCurrent: null };
  return { write, readLine: (echo) => readRawLine(input, write, echo, state), cancel: () => state.cancelCurrent?.() };
}

interface LineReaderState {
  /** Keys typed past the end of the last answer. */
  typeAhead: string;
  /** Ends the question being asked with null; set while one is. */
  cancelCurrent: (() => void) | null;
}

function readRawLine(input: RawInput, write: (text: string) => void, echo: boolean, state: LineReaderState): Promise<string | null> {
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    let line = '';
    let finished = false;
    const finish = (answer: string | null) => {
      if (finished) return;
      finished = true;
      state.cancelCurrent = null;
      input.removeListener('data', onKeys);
      input.removeListener('end', onEnd);
      input.removeListener('error', onEnd);
      input.pause(); // a paused terminal no longer keeps the process alive
      restoreMode(input, wasRaw);
      resolve(answer);
      write('\n');
    };
    const onKeys = (keys: string) => {
      const r = applyKeys(line, keys, echo);
      line = r.line;
      if (r.shown !== '') write(r.shown);
      if (r.end === null) return;
      state.typeAhead = r.rest;
      finish(r.end === 'enter' ? line : null);
    };
    const onEnd = () => finish(null);
    try {
      input.setRawMode(true);
      input.setEncoding('utf8');
      input.on('data', onKeys);
      input.on('end', onEnd);
      input.on('error', onEnd);
      state.cancelCurrent = () => finish(null);
      const pending = state.typeAhead;
      state.typeAhead = '';
      if (pending !== '') onKeys(pending);
      if (!finished) input.resume();
    } catch {
      finish(null);
    }
  });
}
