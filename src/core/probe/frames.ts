// Reads the probe stream (script.ts documents the format) into one result per command.
//
// The stream may end at any byte (connection lost, client deadline, stream cap): complete sections
// are kept, a section cut mid-way keeps what arrived and is `cut-off`, a command whose section never
// started is `not-run`. Payloads are length-prefixed, so output bytes are never scanned for the
// boundary. Bytes that are not UTF-8 become U+FFFD. Nothing here throws on any input.
import { ProbeCommandSpec } from './commands';
import { PREAMBLE_KEEP_BYTES } from './outputLimits';

export type SectionState = 'complete' | 'cut-off' | 'not-run';

export interface CommandResult {
  readonly id: string;
  /** The command as reports show it (ProbeCommandSpec.display, else the command itself). */
  readonly command: string;
  /** null when no exit code arrived (cut off, not run, or killed before it could be written). */
  readonly exitCode: number | null;
  readonly durationMs: number | null;
  /** Stopped by the host's `timeout` after its limit. */
  readonly timedOut: boolean;
  /** stdout or stderr went over the cap and was cut (the command was stopped). */
  readonly truncated: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code 127: the command does not exist on the host. */
  readonly missing: boolean;
  readonly complete: boolean;
  readonly state: SectionState;
}

export interface FramedStream {
  readonly results: CommandResult[];
  /** The `PROBE` header arrived (a working script on a POSIX shell). */
  readonly started: boolean;
  /** The final `DONE` line arrived: every section is in. */
  readonly done: boolean;
  /** Host facts from the header: `clock` (ns|s), `timeout` (yes|no). */
  readonly header: Record<string, string>;
  /** Text before the header (login-shell noise) or a `FATAL` line from the script: its first PREAMBLE_KEEP_BYTES. */
  readonly preamble: string;
  /** Bytes before the header in all (without the newline the script prints before it). */
  readonly preambleBytes: number;
  /** Lines that broke the framing (should never happen; kept to debug). */
  readonly framingErrors: string[];
}

interface Section {
  id: string;
  meta: Record<string, string>;
  stdout?: Buffer;
  stderr?: Buffer;
  ended: boolean;
}

export function parseFrames(stream: Buffer, boundary: string, commands: readonly ProbeCommandSpec[]): FramedStream {
  const reader = new FrameReader(stream, boundary);
  const read = reader.readAll();
  const results = commands.map((c) => toResult(c, read.sections.get(c.id)));
  const { started, done, header, preamble, preambleBytes } = read;
  return { results, started, done, header, preamble, preambleBytes, framingErrors: read.errors };
}

class FrameReader {
  private pos = 0;
  private readonly prefix: string;
  readonly sections = new Map<string, Section>();
  readonly errors: string[] = [];
  private current: Section | undefined;

  constructor(
    private readonly buf: Buffer,
    boundary: string,
  ) {
    this.prefix = `${boundary} `;
  }

  readAll(): {
    sections: Map<string, Section>;
    started: boolean;
    done: boolean;
    header: Record<string, string>;
    preamble: string;
    preambleBytes: number;
    errors: string[];
  } {
    const start = this.findLineStarting(`${this.prefix}PROBE `, 0);
    // The newline right before the header is the script's own (it starts the header on a line of its own).
    const end = start < 0 ? this.buf.length : start > 0 && this.buf[start - 1] === 0x0a ? start - 1 : start;
    const preamble = this.buf.subarray(0, end);
    const result = {
      sections: this.sections,
      started: start >= 0,
      done: false,
      header: {} as Record<string, string>,
      preamble: '',
      preambleBytes: end,
      errors: this.errors,
    };
    result.preamble = decode(preamble.subarray(0, PREAMBLE_KEEP_BYTES));
    if (start < 0) return result;
    this.pos = start;
    for (let line = this.nextLine(); line !== null; line = this.nextLine()) {
      if (!line.startsWith(this.prefix)) {
        this.resync(line);
        continue;
      }
      const [verb, ...args] = line.slice(this.prefix.length).split(' ');
      if (verb === 'PROBE') result.header = keyValues(args.slice(1));
      else if (verb === 'DONE') result.done = true;
      else if (!this.onSectionLine(verb, args)) return result;
    }
    return result;
  }

  /** Handles BEGIN/META/STDOUT/STDERR/END; false when the stream ended inside a payload. */
  private onSectionLine(verb: string, args: string[]): boolean {
    if (verb === 'BEGIN') {
      this.current = { id: args[0] ?? '', meta: {}, ended: false };
      this.sections.set(this.current.id, this.current);
    } else if (verb === 'META' && this.current) {
      this.current.meta = keyValues(args);
    } else if ((verb === 'STDOUT' || verb === 'STDERR') && this.current) {
      return this.readPayload(this.current, verb === 'STDOUT' ? 'stdout' : 'stderr', args[0]);
    } else if (verb === 'END' && this.current && args[0] === this.current.id) {
      this.current.ended = true;
      this.current = undefined;
    } else {
      this.errors.push(`unexpected ${verb} ${args.join(' ')}`.trim());
    }
    return true;
  }

  private readPayload(section: Section, key: 'stdout' | 'stderr', size: string | undefined): boolean {
    const n = /^\d{1,12}$/.test(size ?? '') ? Number(size) : NaN;
    if (!Number.isSafeInteger(n)) {
      this.errors.push(`bad ${key} size ${JSON.stringify(size)} in section ${section.id}`);
      return true;
    }
    const end = Math.min(this.pos + n, this.buf.length);
    section[key] = this.buf.subarray(this.pos, end);
    if (this.pos + n + 1 > this.buf.length) return false; // cut inside the payload or before its "\n"
    this.pos += n + 1;
    return true;
  }

  /** The next full line (without "\n"), or null at the end; a line cut by the end is not returned. */
  private nextLine(): string | null {
    const nl = this.buf.indexOf(0x0a, this.pos);
    if (nl < 0) return null;
    const line = this.buf.toString('latin1', this.pos, nl);
    this.pos = nl + 1;
    return line;
  }

  private resync(line: string): void {
    this.errors.push(`not a frame line: ${JSON.stringify(line.slice(0, 80))}`);
    if (this.current) this.current = undefined;
    const next = this.findLineStarting(`${this.prefix}BEGIN `, this.pos);
    this.pos = next >= 0 ? next : this.buf.length;
  }

  private findLineStarting(text: string, from: number): number {
    if (from === 0 && this.buf.subarray(0, text.length).toString('latin1') === text) return 0;
    const at = this.buf.indexOf(`\n${text}`, Math.max(0, from - 1), 'latin1');
    return at < 0 ? -1 : at + 1;
  }
}

function keyValues(words: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq > 0) out[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return out;
}

function toResult(spec: ProbeCommandSpec, s: Section | undefined): CommandResult {
  const state: SectionState = !s ? 'not-run' : s.ended && s.stdout !== undefined && s.stderr !== undefined ? 'complete' : 'cut-off';
  const meta = s?.meta ?? {};
  const exitCode = intOrNull(meta.rc);
  return {
    id: spec.id,
    command: spec.display ?? spec.command,
    exitCode,
    durationMs: intOrNull(meta.ms),
    timedOut: meta.timedout === '1',
    truncated: meta.outtrunc === '1' || meta.errtrunc === '1',
    stdout: decode(s?.stdout),
    stderr: decode(s?.stderr),
    missing: exitCode === 127,
    complete: state === 'complete',
    state,
  };
}

function intOrNull(text: string | undefined): number | null {
  return text !== undefined && /^-?\d{1,15}$/.test(text) ? Number(text) : null;
}

function decode(bytes: Buffer | undefined): string {
  return bytes ? bytes.toString('utf8') : '';
}

/** One section as the script prints it; offline and demo runners build their streams with it. */
export interface SectionData {
  readonly id: string;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly limitS: number;
  readonly timedOut?: boolean;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly stdoutTruncated?: boolean;
  readonly stderrTruncated?: boolean;
}

export function encodeHeader(boundary: string, header: Record<string, string>): Buffer {
  const pairs = Object.entries(header).map(([k, v]) => `${k}=${v}`);
  return Buffer.from(`${boundary} PROBE 1 ${pairs.join(' ')}\n`, 'latin1');
}

export function encodeSection(boundary: string, s: SectionData): Buffer {
  const flag = (b: boolean | undefined) => (b ? '1' : '0');
  const truncated = `outtrunc=${flag(s.stdoutTruncated)} errtrunc=${flag(s.stderrTruncated)}`;
  const meta = `rc=${s.exitCode ?? ''} ms=${s.durationMs} limit=${s.limitS} timedout=${flag(s.timedOut)} ${truncated}`;
  return Buffer.concat([
    Buffer.from(`${boundary} BEGIN ${s.id}\n${boundary} META ${meta}\n${boundary} STDOUT ${s.stdout.length}\n`, 'latin1'),
    s.stdout,
    Buffer.from(`\n${boundary} STDERR ${s.stderr.length}\n`, 'latin1'),
    s.stderr,
    Buffer.from(`\n${boundary} END ${s.id}\n`, 'latin1'),
  ]);
}

export function encodeDone(boundary: string): Buffer {
  return Buffer.from(`${boundary} DONE\n`, 'latin1');
}
