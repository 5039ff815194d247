// Loading an IdentityFile the way ssh's load_identity_file() does: a key that cannot be used (a
// directory, a file this user may not read, one others may read, not a key at all) is skipped with
// ssh's own warning, and authentication goes on with the next key or method.
import { ParsedKey, utils } from 'ssh2';
import { NotRegularFileError, readRegularFileSync } from '../regularFile';

/** ssh_config's NumberOfPasswordPrompts default: tries at a passphrase. */
const PASSPHRASE_TRIES = 3;

export type LoadedKey = { readonly key: ParsedKey } | { readonly skipped: readonly string[] } | null;

/**
 * The key in `file`, asking for its passphrase when it has one (null: not given or wrong each
 * time, as ssh gives up on it quietly). `skipped` carries ssh's warning lines.
 */
export async function loadIdentityFile(file: string, passphrase: (file: string) => Promise<string | null>): Promise<LoadedKey> {
  const read = readPrivateKeyFile(file);
  if ('skipped' in read) return read;
  let parsed = utils.parseKey(read.data);
  for (let tries = 0; parsed instanceof Error && /passphrase/i.test(parsed.message) && tries < PASSPHRASE_TRIES; tries++) {
    const given = await passphrase(file);
    if (given === null) return null;
    parsed = utils.parseKey(read.data, given);
  }
  if (parsed instanceof Error) return /passphrase/i.test(parsed.message) ? null : { skipped: [`Load key "${file}": invalid format`] };
  return { key: Array.isArray(parsed) ? parsed[0] : parsed };
}

/** OpenSSH's MAX_KEY_FILE_SIZE (authfile.c sshbuf_load_fd): a larger file is no key. */
const MAX_KEY_FILE_BYTES = 1024 * 1024;

/**
 * As sshkey_load_private_type(): open, refuse a key of ours that others may read, then read. Unlike ssh, a
 * FIFO, socket or device is refused before it is opened (ssh would wait on a FIFO forever; here that wait
 * would block the extension host), and at most MAX_KEY_FILE_BYTES + 1 bytes are read (core/regularFile.ts).
 */
function readPrivateKeyFile(file: string): { data: Buffer } | { skipped: string[] } {
  let read;
  try {
    read = readRegularFileSync(file, { maxBytes: MAX_KEY_FILE_BYTES, followLinks: true });
  } catch (e) {
    return { skipped: [`Load key "${file}": ${e instanceof NotRegularFileError ? notRegularText(e) : errnoText(e)}`] };
  }
  if (read === undefined) return { skipped: [`Load key "${file}": ${STRERROR.ENOENT}`] };
  const { data, stats } = read;
  // Mode bits mean nothing on Windows (Win32-OpenSSH checks ACLs instead).
  if (process.platform !== 'win32' && stats.uid === process.getuid?.() && (stats.mode & 0o077) !== 0) {
    return { skipped: [...unprotectedKeyWarning(file, stats.mode), `Load key "${file}": bad permissions`] };
  }
  if (data.length > MAX_KEY_FILE_BYTES) return { skipped: [`Load key "${file}": invalid format`] };
  return { data };
}

function notRegularText(e: NotRegularFileError): string {
  return e.kind === 'directory' ? STRERROR.EISDIR : 'not a regular file (a FIFO, socket or device), not opened';
}

/** sshkey_perm_ok()'s words. */
function unprotectedKeyWarning(file: string, mode: number): string[] {
  return [
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    '@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @',
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    `Permissions 0${(mode & 0o777).toString(8).padStart(3, '0')} for '${file}' are too open.`,
    'It is required that your private key files are NOT accessible by others.',
    'This private key will be ignored.',
  ];
}

// strerror() of the errors a key file gives, as ssh prints them.
const STRERROR: Readonly<Record<string, string>> = {
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  EIO: 'Input/output error',
};

function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  return (code !== undefined ? STRERROR[code] : undefined) ?? code ?? String(e);
}
