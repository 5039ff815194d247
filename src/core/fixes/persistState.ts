// Reads READ_STATE_SCRIPT's output (scripts.ts): whether /etc/modules-load.d is a directory, and the
// exact bytes of each file a persist may touch. Lengths are in bytes, so the content is cut from the
// raw output, not from decoded text. Follows the parser contract: a value or a located error.
import { Parsed, fail, ok, quote } from '../parsers/result';
import { sameModule } from '../probe/headedFiles';

export type FileState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'regular'; readonly content: string }
  | { readonly kind: 'symlink' }
  | { readonly kind: 'other' };

export interface PersistState {
  readonly modulesLoadDir: 'directory' | 'absent' | 'other';
  /** By absolute path, for every path the script looked at. */
  readonly files: Readonly<Record<string, FileState>>;
  /** `package <name> <state>` lines (READ_UNIT_COMMAND): whether a package is installed. */
  readonly packages?: Readonly<Record<string, 'installed' | 'absent' | 'unknown'>>;
}

const WHAT = 'persist state';
const DIR_LINE = /^modules-load\.d: (directory|absent|other)$/;
const FILE_LINE = /^file (\/\S+) (absent|symlink|other|regular (\d+))$/;
const PACKAGE_LINE = /^package ([a-z0-9][a-z0-9+.-]{0,63}) (installed|absent|unknown)$/;

/** Reads the output of READ_STATE_SCRIPT; `dirLine: false` for the files alone (readFilesLines, as READ_UNIT_COMMAND prints them). */
export function parsePersistState(out: Buffer, { dirLine = true } = {}): Parsed<PersistState> {
  const reader = new LineReader(out);
  const first = dirLine ? reader.line() : 'modules-load.d: absent';
  const dir = DIR_LINE.exec(first ?? '');
  if (!dir) return fail(1, `${WHAT}: expected "modules-load.d: directory|absent|other", found ${quote(first ?? '(nothing)')}`);
  const files: Record<string, FileState> = {};
  const packages: Record<string, 'installed' | 'absent' | 'unknown'> = {};
  for (;;) {
    const at = reader.lineNo + 1;
    const line = reader.line();
    if (line === 'end')
      return ok({
        modulesLoadDir: dir[1] as PersistState['modulesLoadDir'],
        files,
        ...(Object.keys(packages).length > 0 ? { packages } : {}),
      });
    const pkg = PACKAGE_LINE.exec(line ?? '');
    if (pkg) {
      packages[pkg[1]] = pkg[2] as 'installed' | 'absent' | 'unknown';
      continue;
    }
    const m = FILE_LINE.exec(line ?? '');
    if (!m)
      return fail(
        at,
        `${WHAT}: expected "file <path> <state>" or "end", found ${line === null ? 'the end of the output (cut off?)' : quote(line)}`,
      );
    if (m[3] === undefined) {
      files[m[1]] = { kind: m[2] as 'absent' | 'symlink' | 'other' };
      continue;
    }
    const content = reader.bytes(Number(m[3]));
    if (content === null)
      return fail(
        at,
        `${WHAT}: ${m[1]} should have ${m[3]} bytes followed by a newline; the output was cut off or the file changed while read`,
      );
    files[m[1]] = { kind: 'regular', content };
  }
}

/** Lines and byte-counted blocks over raw output. */
class LineReader {
  private pos = 0;
  lineNo = 0;

  constructor(private readonly buf: Buffer) {}

  line(): string | null {
    if (this.pos >= this.buf.length) return null;
    const nl = this.buf.indexOf(10, this.pos);
    const end = nl < 0 ? this.buf.length : nl;
    const text = this.buf.subarray(this.pos, end).toString('utf8');
    this.pos = end + 1;
    this.lineNo++;
    return text;
  }

  /** `n` bytes and the newline the script prints after them; null when they are not all there. */
  bytes(n: number): string | null {
    if (this.pos + n >= this.buf.length || this.buf[this.pos + n] !== 10) return null;
    const block = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n + 1;
    this.lineNo += block.filter((b) => b === 10).length + 1;
    return block.toString('utf8');
  }
}

/** 1-based numbers of the lines whose first word names the module (`#`/`;` comment lines skipped), as modules-load.d(5) reads them. */
export function linesNaming(content: string, module: string): number[] {
  const found: number[] = [];
  content.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    if (sameModule(line.split(/\s+/)[0], module)) found.push(i + 1);
  });
  return found;
}
