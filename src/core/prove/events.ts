// What the measurement scripts print (scripts.ts documents the lines: `<T> P|N|L|O|R …`), read as it
// arrives: each complete line is parsed once, when its newline comes, and a side's output lines (O) are
// collected until its result line (R). A prove run watches the server's output for its port and the
// listening line while perftest runs and srun relays both tasks for minutes; parsing everything received
// again on each chunk made that quadratic (8 MB of output: 3.4 s). A line longer than any the scripts
// print is not kept whole (MAX_LINE_CHARS), so no single line can grow without end either.
import { StringDecoder } from 'string_decoder';

export interface ScriptEvent {
  readonly kind: 'P' | 'N' | 'L' | 'R';
  readonly id: string;
  readonly port?: number;
  readonly role?: 'server' | 'client';
  readonly exitCode?: number | null;
  readonly output?: string;
}

const ID = /^m\d{1,5}$/;
/** The longest line the scripts print is an O line (tag, id, role, 76 base64 characters); the rest of a longer one is dropped. */
const MAX_LINE_CHARS = 64 * 1024;

export class ScriptEventReader {
  readonly events: ScriptEvent[] = [];
  /** Complete lines read so far: each exactly once, however the text was cut into chunks. */
  linesRead = 0;
  private partial = '';
  private readonly outputs = new Map<string, string[]>();
  private readonly decoder = new StringDecoder('utf8');

  /** `tag`: the run's; anything before it on a line (srun's `0: ` label) is skipped. */
  constructor(private readonly tag: string) {}

  /** A chunk as it arrived (a character split between chunks is joined). */
  pushBytes(chunk: Buffer): void {
    this.push(this.decoder.write(chunk));
  }

  push(text: string): void {
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      const line = this.partial === '' ? text.slice(from, nl) : this.keep(text.slice(from, nl));
      this.partial = '';
      this.line(line);
      from = nl + 1;
    }
    this.partial = this.keep(text.slice(from));
  }

  private keep(piece: string): string {
    const room = MAX_LINE_CHARS - this.partial.length;
    return room <= 0 ? this.partial : this.partial + piece.slice(0, room);
  }

  private line(line: string): void {
    this.linesRead++;
    const at = line.indexOf(`${this.tag} `);
    if (at < 0) return;
    const f = line
      .slice(at + this.tag.length + 1)
      .trimEnd()
      .split(' ');
    const [kind, id, role] = f;
    if (!ID.test(id ?? '')) return;
    if (kind === 'P' && /^\d+$/.test(f[2] ?? '')) this.events.push({ kind, id, port: Number(f[2]) });
    else if (kind === 'N' || kind === 'L') this.events.push({ kind, id });
    else if ((kind === 'O' || kind === 'R') && (role === 'server' || role === 'client')) this.sideLine(kind, id, role, f[3] ?? '');
  }

  private sideLine(kind: 'O' | 'R', id: string, role: 'server' | 'client', value: string): void {
    const key = `${id} ${role}`;
    const output = this.outputs.get(key) ?? [];
    if (kind === 'O') {
      output.push(value);
      this.outputs.set(key, output);
      return;
    }
    const exitCode = /^\d+$/.test(value) ? Number(value) : null;
    this.events.push({ kind, id, role, exitCode, output: Buffer.from(output.join(''), 'base64').toString('utf8') });
  }
}

/** The script's lines in `text` (whole lines only: a last line without its newline is not read). */
export function scriptEvents(text: string, tag: string): ScriptEvent[] {
  const reader = new ScriptEventReader(tag);
  reader.push(text);
  return reader.events;
}
