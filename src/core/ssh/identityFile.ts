// Loading an IdentityFile the way ssh's load_identity_file() does: a key that cannot be used (a
// directory, a file this user may not read, one others may read, not a key at all) is skipped with
// ssh's own warning, and authentication goes on with the next key or method.
import * as fs from 'node:fs';
import { ParsedKey, utils } from 'ssh2';

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

/** As sshkey_load_private_type(): open, refuse a key of ours that others may read, then read. */
function readPrivateKeyFile(file: string): { data: Buffer } | { skipped: string[] } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    return { skipped: [`Load key "${file}": ${errnoText(e)}`] };
  }
  try {
    const st = fs.fstatSync(fd);
    // Mode bits mean nothing on Windows (Win32-OpenSSH checks ACLs instead).
    if (process.platform !== 'win32' && st.uid === process.getuid?.() && (st.mode & 0o077) !== 0) {
      return { skipped: [...unprotectedKeyWarning(file, st.mode), `Load key "${file}": bad permissions`] };
    }
    return { data: fs.readFileSync(fd) };
  } catch (e) {
    return { skipped: [`Load key "${file}": ${errnoText(e)}`] };
  } finally {
    fs.closeSync(fd);
  }
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
