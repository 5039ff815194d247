// Reading a file that someone else may have put in place (a saved folder, an IdentityFile, an ssh_config,
// a known_hosts file) without ever blocking or reading without end: only a regular file is read (a FIFO
// would block the opening thread, the extension host's included, until some writer came; /dev/zero never
// ends), and only up to a cap + 1 byte (the extra byte tells the caller there was more). The open never
// waits for a writer (O_NONBLOCK), never follows a link when links are refused (O_NOFOLLOW), and the file is
// checked again once open, so a swap after the first look changes nothing.
import { constants, fstatSync, openSync, closeSync, readSync, promises as fs, Stats, statSync, lstatSync } from 'fs';

export type NotRegularKind = 'link' | 'directory' | 'special';

/** The file exists but is not one to read: a symbolic link where links are refused, or a FIFO, device, socket, folder. */
export class NotRegularFileError extends Error {
  constructor(
    readonly file: string,
    readonly kind: NotRegularKind,
  ) {
    super(
      kind === 'link' ? `${file} is a symbolic link` : kind === 'directory' ? `${file} is a directory` : `${file} is not a regular file`,
    );
  }
}

export interface RegularFileOptions {
  /** Read at most this many bytes + 1. */
  readonly maxBytes: number;
  /** Follow a symbolic link to a regular file (an IdentityFile may be one); default false. */
  readonly followLinks?: boolean;
}

const CHUNK = 64 * 1024;

function openFlags(followLinks: boolean): number {
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (followLinks ? 0 : (constants.O_NOFOLLOW ?? 0));
}

/** Why `st` is not to be read, or null. */
function refusal(st: Stats, followLinks: boolean): NotRegularKind | null {
  if (st.isSymbolicLink() && !followLinks) return 'link';
  return st.isFile() ? null : st.isDirectory() ? 'directory' : 'special';
}

function missing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/** What was read, and the file's status as the open file saw it (owner, mode). */
export interface RegularFileRead {
  /** At most `maxBytes` + 1 bytes. */
  readonly data: Buffer;
  readonly stats: Stats;
}

/** Up to `maxBytes` + 1 bytes of a regular file; undefined when there is none. Throws NotRegularFileError or the errno. */
export async function readRegularFile(file: string, options: RegularFileOptions): Promise<RegularFileRead | undefined> {
  const follow = options.followLinks === true;
  const st = await (follow ? fs.stat(file) : fs.lstat(file)).catch(absentOr);
  if (st === undefined) return undefined;
  refuseUnlessRegular(file, st, follow);
  const handle = await fs.open(file, openFlags(follow)).catch((e: unknown) => openFailed(file, e));
  try {
    return readOpen(file, handle.fd, options.maxBytes);
  } finally {
    await handle.close();
  }
}

/** readRegularFile, synchronously (the ssh layer's config and key reads). */
export function readRegularFileSync(file: string, options: RegularFileOptions): RegularFileRead | undefined {
  const follow = options.followLinks === true;
  let st: Stats | undefined;
  try {
    st = follow ? statSync(file) : lstatSync(file);
  } catch (e) {
    st = absentOr(e);
  }
  if (st === undefined) return undefined;
  refuseUnlessRegular(file, st, follow);
  let fd: number;
  try {
    fd = openSync(file, openFlags(follow));
  } catch (e) {
    return openFailed(file, e);
  }
  try {
    return readOpen(file, fd, options.maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** undefined for a file that is not there; any other error is thrown on. */
function absentOr(e: unknown): undefined {
  if (missing(e)) return undefined;
  throw e;
}

function refuseUnlessRegular(file: string, st: Stats, follow: boolean): void {
  const kind = refusal(st, follow);
  if (kind) throw new NotRegularFileError(file, kind);
}

/** O_NOFOLLOW's ELOOP: the name became a link after the first look. */
function openFailed(file: string, e: unknown): never {
  throw (e as NodeJS.ErrnoException).code === 'ELOOP' ? new NotRegularFileError(file, 'link') : e;
}

/** Checks the open file again and reads up to `maxBytes` + 1 bytes of it (a regular file: reading never waits long). */
function readOpen(file: string, fd: number, maxBytes: number): RegularFileRead {
  const stats = fstatSync(fd);
  if (!stats.isFile()) throw new NotRegularFileError(file, 'special');
  const limit = maxBytes + 1;
  const chunks: Buffer[] = [];
  let total = 0;
  for (let n = -1; n !== 0 && total < limit; total += n) {
    const chunk = Buffer.alloc(Math.min(CHUNK, limit - total));
    n = readSync(fd, chunk, 0, chunk.length, null);
    chunks.push(chunk.subarray(0, n));
  }
  return { data: Buffer.concat(chunks), stats };
}

/**
 * A regular file's text (links followed), or null when it is missing, unreadable, not a regular file or longer
 * than `maxBytes`: for files the user owns and OpenSSH reads the same way (ssh_config, known_hosts), where
 * such a file is skipped as a missing one is rather than left to block or fill memory.
 */
export function readTextIfRegular(file: string, maxBytes: number): string | null {
  try {
    const read = readRegularFileSync(file, { maxBytes, followLinks: true });
    return read === undefined || read.data.length > maxBytes ? null : read.data.toString('utf8');
  } catch {
    return null;
  }
}
