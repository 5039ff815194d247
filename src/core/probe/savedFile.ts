// Reading one file of a saved folder (`--from DIR`, the demo's recordings) as hostile input: the folder may
// come from anyone, so a name that is a symbolic link (`topo.txt → /dev/zero`, `os-release.txt → ~/.ssh/id_ed25519`),
// a FIFO or a device is refused with the reason, and a regular file is read only up to the cap + 1 byte (the
// extra byte tells the report the output was cut). The open itself never follows a link (O_NOFOLLOW) and never
// waits for a writer (O_NONBLOCK), and the file is checked again once open, so a swap after the lstat changes
// nothing.
import { constants, promises as fs } from 'fs';
import { t } from '../l10n';

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** At most `maxBytes + 1` bytes of `file` when it is a regular file; undefined when there is none. Rejects with why otherwise. */
export async function readSavedFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const before = await fs.lstat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (before === undefined) return undefined;
  if (!before.isFile()) throw new Error(notRegular(file, before.isSymbolicLink() ? 'link' : 'special'));
  const handle = await fs.open(file, OPEN_FLAGS).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' ? new Error(notRegular(file, 'link')) : e;
  });
  try {
    if (!(await handle.stat()).isFile()) throw new Error(notRegular(file, 'special'));
    return await readUpTo(handle, maxBytes + 1);
  } finally {
    await handle.close();
  }
}

async function readUpTo(handle: fs.FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.min(limit, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, limit - total), null);
    if (bytesRead === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

function notRegular(file: string, kind: 'link' | 'special'): string {
  return kind === 'link'
    ? t('{0} is a symbolic link: a saved folder is read from regular files only, so it was not read', file)
    : t(
        '{0} is not a regular file (a FIFO, a device or a folder): a saved folder is read from regular files only, so it was not read',
        file,
      );
}
