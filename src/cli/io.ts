// Where CLI commands read input and write output, so tests and the entry point share one path.
import * as fs from 'node:fs';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /**
   * gdr-doctor's own terminal control on stderr (the progress line's carriage return and erase),
   * never text from a host: main() makes stdout and stderr visible (visible.ts), not this.
   */
  readonly stderrControl?: (text: string) => void;
  /** Reads a named file, or standard input for "-". */
  readonly readInput: (file: string) => string;
  /** The same as a stream of chunks, for inputs too big to hold at once (NCCL logs); absent: readInput. */
  readonly openInput?: (file: string) => NodeJS.ReadableStream;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrControl: (text) => process.stderr.write(text),
  readInput: (file) => fs.readFileSync(file === '-' ? 0 : file, 'utf8'),
  openInput: (file) => (file === '-' ? process.stdin : fs.createReadStream(file, { highWaterMark: 1024 * 1024 })),
};

/** Exit statuses, following sysexits(3) where the issue does not fix a number. */
export const ExitCode = {
  ok: 0,
  parseError: 2,
  usage: 64,
  noInput: 66,
  internal: 70,
} as const;
