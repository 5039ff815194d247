// What the CLI writes is made safe for a terminal, the way OpenSSH prints text a server sent
// (utf8.c, fmprintf): printable characters, valid UTF-8 of any script included, stay as they are;
// newline and tab stay; every other control character is shown as a backslash and three octal
// digits per byte of its UTF-8 encoding (ESC → \033, the 8-bit CSI U+009B → \302\233). So no escape
// sequence from a host reaches the terminal: it cannot clear the screen, move the cursor, fake a
// prompt or set the clipboard (OSC 52). One difference from OpenSSH: a carriage return is shown
// (\015) instead of kept, because a lone CR would let a host overwrite the start of a line
// gdr-doctor printed, such as a host name or a verdict. A backslash is printed as it is, as OpenSSH
// does.
//
// main() wraps the CLI's output (visibleIo), so every place that prints host text (finding
// evidence, a fix's output, the file diff, an SSH server's DISCONNECT text, srun's or pdsh's
// messages, a parse error quoting a line) gets it without having to remember. --json output is
// written with jsonText(): JSON escapes the same characters (\u001b, \u009b), visible() finds
// nothing to change in it, and JSON.parse gives back the exact text.
import type { CliIo } from './io';

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function visible(text: string): string {
  return replaceInSlices(text, CONTROL, (c) => [...Buffer.from(c, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join(''));
}

/** `value` as indented JSON and a newline, with DEL and the C1 controls escaped as JSON.stringify does C0. */
export function jsonText(value: unknown): string {
  return `${replaceInSlices(JSON.stringify(value, null, 2), /[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/**
 * `text.replace(re, fn)` for a `re` that matches single characters, a slice at a time: V8 gathers
 * every match of one replace() in a single array and aborts the process (not an exception) past
 * about 30 million of them, which megabytes of control characters from a host reach.
 */
function replaceInSlices(text: string, re: RegExp, fn: (c: string) => string): string {
  const SLICE = 1 << 20;
  if (text.length <= SLICE) return text.replace(re, fn);
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += SLICE) parts.push(text.slice(i, i + SLICE).replace(re, fn));
  return parts.join('');
}

/** The CLI's output with visible() applied; `stderrControl` (our own progress line) passes as it is. */
export function visibleIo(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(visible(text)),
    stderr: (text) => io.stderr(visible(text)),
    stderrControl: io.stderrControl ?? io.stderr,
  };
}
